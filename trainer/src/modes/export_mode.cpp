#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>

#include "yolo/core/device.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/ultralytics_checkpoint.h"
#include "yolo/trainer/modes/modes.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/settings/model_source.h"
#include "yolo/trainer/settings/shared_settings.h"

namespace yolo {
namespace fs = std::filesystem;

namespace {

void check_format(const std::string& format) {
  if (format == "torchscript") return;
  if (format == "migraphx" || format == "mxr") {
    throw ConfigError(
        "format=migraphx is not a supported export target: MIGraphX is AMD's inference graph "
        "compiler, used through ONNX Runtime's MIGraphX execution provider, which this product "
        "does "
        "not ship; an ONNX file alone would not enable it. On AMD GPUs export format=torchscript "
        "and run it with a ROCm build of LibTorch (device=0).");
  }
  throw ConfigError(fmt::format(
      "format={} is not supported: yolo-trainer exports format=torchscript only (the checkpoint "
      "format the runtime, the GStreamer element and Ultralytics' TorchScript loaders read){}",
      format, format == "onnx" ? "; ONNX export is not available in this C++-only product" : ""));
}

// Rows of an end-to-end output: max_det, at most the number of anchors at the traced size.
int64_t exported_rows(const ModelMetadata& meta, const DetectionModelImpl& model, int64_t max_det) {
  int64_t anchors = 0;
  for (double s : model.detect().stride) {
    anchors +=
        (meta.imgsz[0] / static_cast<int64_t>(s)) * (meta.imgsz[1] / static_cast<int64_t>(s));
  }
  return std::min(max_det, anchors);
}

}  // namespace

int run_export_mode(const Config& cfg, const SelectedDevice& device) {
  check_format(cfg.get_string("format"));
  const std::string model_setting = cfg.get_string("model");
  std::shared_ptr<DetectionModelImpl> model;
  const ImageSize imgsz = imgsz_setting(cfg);
  int64_t h = imgsz.h, w = imgsz.w;
  if (is_torch_save_file(model_setting)) {
    // An Ultralytics .pt exports at the size it was trained at unless imgsz= is given, as
    // Ultralytics' export does.
    const UltralyticsCheckpoint ckpt = read_ultralytics_checkpoint(model_setting);
    model = build_ultralytics_model(ckpt);
    if (!imgsz.given) {
      std::tie(h, w) = ckpt.imgsz;
      spdlog::info("imgsz={}: the size '{}' was trained at (imgsz= exports another)", h,
                   model_setting);
    }
  } else {
    model = load_model_setting(model_setting);
  }
  choose_inference_head(*model, cfg);

  ExportOptions opts;
  opts.height = h;
  opts.width = w;
  // As in Ultralytics, export traces batch 1 unless batch= is given.
  opts.batch = cfg.was_set("batch") ? cfg.get_int("batch") : 1;
  if (opts.batch < 1) throw ConfigError("export needs batch >= 1");
  opts.half = cfg.get_bool("half");
  opts.device = device.torch_string();
  opts.max_det = cfg.get_int("max_det");
  opts.include_weights = false;  // a deployment file: the traced model and its metadata only
  if (opts.half && !device.is_gpu) {
    spdlog::warn("half=True only works on a GPU; exporting FP32 on the CPU");
    opts.half = false;
  }
  if (cfg.get_optional_bool("nms").value_or(false)) {
    spdlog::warn("nms=True is not embedded in exports: the runtime runs NMS itself; ignoring it");
  }
  fs::path in(model_setting);
  fs::path out = in.extension() == ".yaml" || in.extension() == ".yml"
                     ? fs::path(in.stem().string() + ".torchscript")
                     : in.parent_path() / (in.stem().string() + ".torchscript");
  if (out == in) out = in.parent_path() / (in.stem().string() + "-export.torchscript");

  spdlog::info("TorchScript: exporting {} ({}x{}, batch {}, {}, {}) ...", model->config().name, h,
               w, opts.batch, opts.half ? "FP16" : "FP32", opts.device);
  const auto t0 = std::chrono::steady_clock::now();
  ModelMetadata meta = export_torchscript(*model, opts, out);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  spdlog::info(
      "TorchScript: export success in {:.1f}s, saved as '{}' ({:.1f} MB), input [{}, {}, "
      "{}, {}], output {}",
      secs, out.string(), fs::file_size(out) / 1e6, meta.batch, meta.channels, meta.imgsz[0],
      meta.imgsz[1],
      meta.end2end
          ? fmt::format("[{}, {}, 6]", meta.batch, exported_rows(meta, *model, opts.max_det))
          : fmt::format("[{}, {}, anchors]", meta.batch, 4 + model->num_classes()));
  return 0;
}

}  // namespace yolo
