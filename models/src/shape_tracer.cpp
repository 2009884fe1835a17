#include "yolo/models/shape_tracer.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "yolo/models/ultralytics_checkpoint.h"

namespace yolo {
namespace {

constexpr int64_t kMinSide = 32, kMaxSide = 8192;  // as the .pt reader's imgsz check

}  // namespace

ShapeTracer::~ShapeTracer() = default;

std::unique_ptr<ShapeTracer> ShapeTracer::open(const std::string& path, const c10::Device& device) {
  std::unique_ptr<ShapeTracer> t(new ShapeTracer());
  t->path_ = path;
  t->device_ = device;
  if (is_torch_save_file(path)) {
    const UltralyticsCheckpoint ckpt = read_ultralytics_checkpoint(path);
    t->model_ = build_ultralytics_model(ckpt);
    t->default_size_ = ckpt.imgsz;
    // What an export of it would say, plus where it came from.
    t->metadata_.description = fmt::format(
        "Ultralytics {} model from {} (Ultralytics {})", ckpt.config.name,
        std::filesystem::path(path).filename().string(), ckpt.version.empty() ? "?" : ckpt.version);
    t->metadata_.date = ckpt.date.substr(0, 10);
    t->metadata_.version = ckpt.version;
    t->metadata_.author = "Ultralytics";
  } else {
    if (!has_training_weights(path)) return nullptr;  // a fixed-shape export
    t->model_ = load_eager_model(path, &t->metadata_);
    // The head as the file traced it: an end-to-end architecture exported with nms=True
    // (one-to-many head) says so in its metadata.
    nn::DetectImpl& head = t->model_->detect();
    if (head.end2end) head.use_one2one = t->metadata_.end2end;
    t->default_size_ = {t->metadata_.imgsz.front(), t->metadata_.imgsz.back()};
  }
  t->model_->eval();
  t->stride_ = t->model_->max_stride();
  return t;
}

LoadedModel ShapeTracer::trace(int64_t height, int64_t width) const {
  if (height < kMinSide || width < kMinSide || height > kMaxSide || width > kMaxSide) {
    throw CheckpointError(fmt::format("'{}': imgsz {}x{} is out of range; give {} to {}", path_,
                                      height, width, kMinSide, kMaxSide));
  }
  ExportOptions options;
  options.height = height;
  options.width = width;
  options.batch = std::max<int64_t>(1, metadata_.batch);
  options.device = device_.str();
  options.include_weights = false;
  options.description = metadata_.description;
  std::string bytes;
  try {
    bytes = TorchScriptExporter(options).serialize(*model_);
  } catch (const c10::Error& e) {
    // Out of memory on the device, a size the network cannot take: named, not a crash.
    const std::string what = e.what_without_backtrace();
    throw CheckpointError(fmt::format("'{}' cannot be traced at {}x{} on {}: {}", path_, height,
                                      width, device_.str(), what.substr(0, what.find('\n'))));
  }
  LoadedModel loaded = load_torchscript_bytes(bytes, device_, path_);
  ModelMetadata& m = loaded.metadata;
  m.date = metadata_.date.empty() ? m.date : metadata_.date;
  m.version = metadata_.version.empty() ? m.version : metadata_.version;
  m.author = metadata_.author;
  if (!metadata_.args.empty()) m.args = metadata_.args;
  return loaded;
}

}  // namespace yolo
