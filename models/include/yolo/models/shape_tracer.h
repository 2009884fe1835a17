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
#include <mutex>
#include <string>
#include <utility>

#include "yolo/models/checkpoint.h"

namespace yolo {

class ShapeTracer {
 public:
  // The tracer of `file` on `device`; nullptr when the file is a fixed-shape export. The network
  // is built from the file's bytes (kept) on the first trace() or default_size(), so that a
  // checkpoint that only ever runs at its own size costs nothing more at load.
  static std::unique_ptr<ShapeTracer> open(const ModelFile& file, const c10::Device& device);
  ~ShapeTracer();

  // An Ultralytics .pt (torch.save), rather than one of our training checkpoints.
  bool torch_save() const { return file_.kind == ModelFileKind::kTorchSave; }

  // The network fused and traced at height x width (32 to 8192; a size that is not a multiple of
  // the stride is rounded up, with a warning) on the device, in FP32, at the file's batch, with
  // the file's metadata (imgsz set to the traced size). Throws CheckpointError naming the file
  // and size for a size out of range or a trace that fails (out of memory).
  LoadedModel trace(int64_t height, int64_t width) const;

  // The size the file runs at when none is given: a .pt's training size, a checkpoint's traced
  // size ([h, w]).
  std::pair<int64_t, int64_t> default_size() const;

 private:
  ShapeTracer() = default;
  // The network and what every trace's metadata starts from, read once.
  struct Network;
  const Network& network() const;

  ModelFile file_;
  c10::Device device_{c10::kCPU};
  mutable std::mutex mutex_;
  mutable std::unique_ptr<Network> network_;
};

}  // namespace yolo
