// Model instances shared by `yolo` elements: one Engine and one DynamicBatcher per instance.
//
// Elements with the same model-instance-id, in any pipelines of one process, get the same
// instance, so their frames are batched together into one model call (DL Streamer's
// model-instance-id, NNStreamer's shared-tensor-filter-key). An element without an id gets an
// instance of its own. Instances live as long as an element holds them; the registry keeps
// only weak references, so the last element to stop releases the model.
//
// No GStreamer here: the element adapts GStreamer frames to these calls.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "yolo/runtime/batcher.h"
#include "yolo/runtime/engine.h"

namespace yolo::gst {

struct InstanceOptions {
  std::string model;   // checkpoint or TorchScript export
  std::string device;  // the device grammar of core/device.h ("" = best available)
  bool half = false;
  int batch_size = 1;                             // frames per model call
  std::chrono::microseconds batch_timeout{5000};  // longest wait for a batch to fill
};

struct InstanceStats {
  uint64_t batches = 0;        // model calls
  uint64_t frames = 0;         // frames inferred
  uint64_t largest_batch = 0;  // most frames in one call
};

class ModelInstance {
 public:
  // Loads the model and starts the batcher. Throws CheckpointError / DeviceError /
  // std::invalid_argument with a user-facing message.
  ModelInstance(std::string label, InstanceOptions options);
  ModelInstance(const ModelInstance&) = delete;
  ModelInstance& operator=(const ModelInstance&) = delete;

  const std::string& label() const { return label_; }  // for logs and metrics
  const InstanceOptions& options() const { return options_; }
  Engine& engine() { return *engine_; }
  DynamicBatcher& batcher() { return *batcher_; }
  InstanceStats stats() const;

 private:
  std::string label_;
  InstanceOptions options_;
  std::unique_ptr<Engine> engine_;
  std::atomic<uint64_t> batches_{0}, frames_{0}, largest_batch_{0};
  std::unique_ptr<DynamicBatcher> batcher_;  // last: its worker uses the members above
};

class ModelRegistry {
 public:
  // The registry of this process. Sharing across elements is the point of model-instance-id, so
  // there is exactly one; it holds no state beyond weak references to live instances.
  static ModelRegistry& process();

  // The instance with this id, created on first use; id "" always creates a private instance.
  // An existing instance must use the same model, device and precision (std::invalid_argument
  // otherwise); its batch settings win, and `note` then says so.
  std::shared_ptr<ModelInstance> acquire(const std::string& id, const InstanceOptions& options,
                                         std::string* note = nullptr);

 private:
  ModelRegistry() = default;
  std::mutex mutex_;  // held while loading, so that two elements never load one id twice
  std::map<std::string, std::weak_ptr<ModelInstance>> instances_;
};

}  // namespace yolo::gst
