#include "yolo/trainer/model_source.h"

#include <fmt/format.h>

#include <filesystem>

#include "yolo/models/checkpoint.h"
#include "yolo/trainer/config.h"

namespace yolo {

std::shared_ptr<DetectionModelImpl> load_model_setting(const std::string& model,
                                                       std::optional<int> nc) {
  if (model.empty()) {
    throw ConfigError(
        "model= is required, e.g. model=yolo26n.yaml or model=runs/detect/train/weights/best.pt");
  }
  const std::string ext = std::filesystem::path(model).extension().string();
  if (ext == ".yaml" || ext == ".yml") return build_model(model, nc);
  // Our training checkpoints restore exactly; other TorchScript files (Ultralytics exports,
  // our lean exports) are unfused into the matching architecture.
  if (has_training_weights(model) && !nc) return load_eager_model(model);
  return import_fused_torchscript(model, nc);
}

std::pair<int64_t, int64_t> imgsz_setting(const Config& cfg) {
  std::vector<long long> v = cfg.get_int_list("imgsz");
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2 || v[0] < 32 || v[1] < 32) {
    throw ConfigError(
        fmt::format("imgsz={} is invalid: give one size >= 32 or [h, w]", cfg.get_string("imgsz")));
  }
  return {v[0], v[1]};
}

}  // namespace yolo
