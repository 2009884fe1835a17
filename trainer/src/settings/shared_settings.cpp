#include "yolo/trainer/settings/shared_settings.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "yolo/trainer/settings/config.h"

namespace yolo {

std::set<int> classes_setting(const Config& cfg) {
  std::set<int> classes;
  if (!cfg.is_null("classes"))
    for (long long c : cfg.get_int_list("classes")) classes.insert(static_cast<int>(c));
  return classes;
}

InferenceSettings inference_settings(const Config& cfg, double conf_when_empty) {
  const InferenceNames& n = kInferenceNames;
  InferenceSettings s;
  s.device = cfg.is_null(n.device.command_line) ? "" : cfg.get_string(n.device.command_line);
  s.conf = conf_setting(cfg, conf_when_empty);
  s.iou = cfg.get_float(n.iou.command_line);
  s.max_det = static_cast<int>(cfg.get_int(n.max_det.command_line));
  const std::set<int> ids = classes_setting(cfg);
  s.classes = classes_text({ids.begin(), ids.end()});
  s.agnostic = cfg.get_bool(n.agnostic.command_line);
  s.half = cfg.get_bool(n.half.command_line);
  const std::optional<bool> bf16 = cfg.get_optional_bool(n.bf16.command_line);
  s.bf16 = bf16 ? (*bf16 ? "true" : "false") : "auto";
  s.rect = rect_inference_setting(cfg);
  return s;
}

bool rect_inference_setting(const Config& cfg) {
  return cfg.was_set("rect") ? cfg.get_bool("rect") : true;
}

ImageSize imgsz_setting(const Config& cfg) {
  std::vector<long long> v = cfg.get_int_list("imgsz");
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2 || v[0] < 32 || v[1] < 32) {
    throw ConfigError(
        fmt::format("imgsz={} is invalid: give one size >= 32 or [h, w]", cfg.get_string("imgsz")));
  }
  return {v[0], v[1], cfg.was_set("imgsz")};
}

int64_t square_imgsz_setting(const Config& cfg, const std::string& mode) {
  const ImageSize s = imgsz_setting(cfg);
  const int64_t side = std::max(s.h, s.w);
  if (s.h != s.w)
    spdlog::warn(
        "imgsz=[{}, {}]: {} uses square images, so it runs at imgsz={} ([h, w] is for "
        "predict and export)",
        s.h, s.w, mode, side);
  return side;
}

double conf_setting(const Config& cfg, double when_empty) {
  return cfg.is_null("conf") ? when_empty : cfg.get_float("conf");
}

InferencePrecision precision_setting(const Config& cfg, const std::string& torch_device) {
  const bool gpu = torch_device.rfind("cuda", 0) == 0;
  InferencePrecision p;
  p.half = cfg.get_bool("half") && gpu;
  if (cfg.get_bool("half") && !gpu)
    spdlog::warn("half=True ignored: {} runs FP32 (FP16 is for GPUs; bf16= is the CPU's)",
                 torch_device);
  p.bf16 = gpu ? std::optional<bool>(false) : cfg.get_optional_bool("bf16");
  if (gpu && cfg.get_optional_bool("bf16").value_or(false))
    spdlog::warn("bf16=True ignored: BF16 autocast is for CPUs; on {} use half=True", torch_device);
  return p;
}

}  // namespace yolo
