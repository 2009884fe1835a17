#include "yolo/models/shape_tracer.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "yolo/models/ultralytics_checkpoint.h"

namespace yolo {
namespace {

constexpr int64_t kMinSide = 32, kMaxSide = 8192;  // as the .pt reader's imgsz check

}  // namespace

struct ShapeTracer::Network {
  std::shared_ptr<DetectionModelImpl> model;  // eager, unfused, eval, on the CPU
  ModelMetadata metadata;
  std::pair<int64_t, int64_t> default_size{640, 640};
};

ShapeTracer::~ShapeTracer() = default;

std::unique_ptr<ShapeTracer> ShapeTracer::open(const ModelFile& file, const c10::Device& device) {
  if (file.kind != ModelFileKind::kTorchSave && !has_training_weights(file))
    return nullptr;  // a fixed-shape export
  std::unique_ptr<ShapeTracer> t(new ShapeTracer());
  t->file_ = file;
  t->device_ = device;
  return t;
}

const ShapeTracer::Network& ShapeTracer::network() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (network_) return *network_;
  auto n = std::make_unique<Network>();
  if (torch_save()) {
    const UltralyticsCheckpoint ckpt = read_ultralytics_checkpoint(file_);
    n->model = build_ultralytics_model(ckpt);
    n->default_size = ckpt.imgsz;
    // What an export of it would say, plus where it came from.
    n->metadata.description =
        fmt::format("Ultralytics {} model from {} (Ultralytics {})", ckpt.config.name,
                    std::filesystem::path(file_.path).filename().string(),
                    ckpt.version.empty() ? "?" : ckpt.version);
    n->metadata.date = ckpt.date.substr(0, 10);
    n->metadata.version = ckpt.version;
    n->metadata.author = "Ultralytics";
  } else {
    n->model = load_eager_model(file_, &n->metadata);
    // The head as the file traced it: an end-to-end architecture exported with nms=True
    // (one-to-many head) says so in its metadata.
    nn::DetectImpl& head = n->model->detect();
    if (head.end2end) head.use_one2one = n->metadata.end2end;
    n->default_size = {n->metadata.imgsz.front(), n->metadata.imgsz.back()};
  }
  n->model->eval();
  network_ = std::move(n);
  return *network_;
}

std::pair<int64_t, int64_t> ShapeTracer::default_size() const {
  return network().default_size;
}

LoadedModel ShapeTracer::trace(int64_t height, int64_t width) const {
  if (height < kMinSide || width < kMinSide || height > kMaxSide || width > kMaxSide) {
    throw CheckpointError(fmt::format("'{}': imgsz {}x{} is out of range; give {} to {}",
                                      file_.path, height, width, kMinSide, kMaxSide));
  }
  const Network& net = network();
  ExportOptions options;
  options.height = height;
  options.width = width;
  options.batch = std::max<int64_t>(1, net.metadata.batch);
  options.device = device_.str();
  options.include_weights = false;
  options.description = net.metadata.description;
  std::string bytes;
  try {
    bytes = TorchScriptExporter(options).serialize(*net.model);
  } catch (const c10::Error& e) {
    // Out of memory on the device, a size the network cannot take: named, not a crash.
    const std::string what = e.what_without_backtrace();
    throw CheckpointError(fmt::format("'{}' cannot be traced at {}x{} on {}: {}", file_.path,
                                      height, width, device_.str(),
                                      what.substr(0, what.find('\n'))));
  }
  LoadedModel loaded = load_torchscript_bytes(bytes, device_, file_.path);
  ModelMetadata& m = loaded.metadata;
  m.date = net.metadata.date.empty() ? m.date : net.metadata.date;
  m.version = net.metadata.version.empty() ? m.version : net.metadata.version;
  m.author = net.metadata.author;
  if (!net.metadata.args.empty()) m.args = net.metadata.args;
  return loaded;
}

}  // namespace yolo
