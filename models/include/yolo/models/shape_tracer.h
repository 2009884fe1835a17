// Traces a model file's network again at another input size: what rectangular inference needs
// from a file (Ultralytics' rect=True runs a .pt eagerly at each image's own stride-multiple
// shape; our graphs are traced, so each shape gets its own trace).
//
// Only files that carry the network can: an Ultralytics .pt (built by our builder from its own
// YAML and weights) and a yolo-trainer training checkpoint (yolo/model.json + yolo/weights.pkl).
// A fixed-shape export (Ultralytics' .torchscript, `yolo-trainer export`) holds one traced graph
// with its anchors baked in and runs at that size only, as Ultralytics runs its exports.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "yolo/models/checkpoint.h"

namespace yolo {

class ShapeTracer {
 public:
  // The tracer of `path` on `device`; nullptr when the file is a fixed-shape export. Throws
  // CheckpointError for unusable files, as load_torchscript does.
  static std::unique_ptr<ShapeTracer> open(const std::string& path, const c10::Device& device);
  ~ShapeTracer();

  // The network fused and traced at height x width (32 to 8192; a size that is not a multiple of
  // the stride is rounded up, with a warning) on the device, in FP32, at the file's batch, with
  // the file's metadata (imgsz set to the traced size). Throws CheckpointError naming the file
  // and size for a size out of range or a trace that fails (out of memory).
  LoadedModel trace(int64_t height, int64_t width) const;

  // The size the file runs at when none is given: a .pt's training size, a checkpoint's traced
  // size ([h, w]).
  std::pair<int64_t, int64_t> default_size() const { return default_size_; }
  int64_t stride() const { return stride_; }

 private:
  ShapeTracer() = default;
  std::string path_;
  c10::Device device_{c10::kCPU};
  std::shared_ptr<DetectionModelImpl> model_;  // eager, unfused, eval, on the CPU
  ModelMetadata metadata_;                     // what every trace's metadata starts from
  std::pair<int64_t, int64_t> default_size_{640, 640};
  int64_t stride_ = 32;
};

}  // namespace yolo
