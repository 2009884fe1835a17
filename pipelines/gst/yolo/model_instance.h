// Model instances shared by `yolo` elements: one Engine and one DynamicBatcher per instance.
//
// Elements with the same model-instance-id, in any pipelines of one process, get the same
// instance, so their frames are batched together into one model call (DL Streamer's
// model-instance-id, NNStreamer's shared-tensor-filter-key). An element without an id gets an
// instance of its own. Instances live as long as an element holds them; the registry keeps
// only weak references, so the last element to stop releases the model.
//
// Hot swap: an instance watches its model file and, when the file is replaced (a new training
// run's best.pt renamed over the old one), loads the new model in the background and swaps it
// in between two batches; streams never stop. A file that fails to load (a copy still in
// progress, a broken export) is logged and the old model keeps running until the file changes
// again. Frames preprocessed for the old model's input size still run on the old model.
//
// No GStreamer here: the element adapts GStreamer frames to these calls.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "yolo/runtime/batcher.h"
#include "yolo/runtime/engine.h"

namespace yolo::gst {

struct InstanceOptions {
  std::string model;   // checkpoint or TorchScript export
  std::string device;  // the device grammar of core/device.h ("" = best available)
  bool half = false;
  std::optional<bool> bf16;  // BF16 autocast on the CPU; empty: where the CPU has it natively
  int batch_size = 1;        // frames per model call
  std::chrono::microseconds batch_timeout{5000};  // longest wait for a batch to fill
  // How often the model file is checked for replacement; 0 = never.
  std::chrono::milliseconds check_interval{2000};
};

struct InstanceStats {
  uint64_t batches = 0;           // model calls
  uint64_t frames = 0;            // frames inferred
  uint64_t largest_batch = 0;     // most frames in one call
  uint64_t swaps = 0;             // models swapped in after the file was replaced
  double mean_queue_wait_us = 0;  // the batcher's: submit to the start of the model call
  double mean_inference_us = 0;   // the batcher's: one model call (a whole batch)
};

class ModelInstance {
 public:
  // Loads the model and starts the batcher. Throws CheckpointError / DeviceError /
  // std::invalid_argument with a user-facing message.
  ModelInstance(std::string label, InstanceOptions options);
  ~ModelInstance();
  ModelInstance(const ModelInstance&) = delete;
  ModelInstance& operator=(const ModelInstance&) = delete;

  const std::string& label() const { return label_; }  // for logs and metrics
  const InstanceOptions& options() const { return options_; }
  // The model running now. Callers keep the pointer for one frame (preprocessing size, class
  // names, output format), so a swap never changes a frame's model halfway.
  std::shared_ptr<Engine> engine() const;
  DynamicBatcher& batcher() { return *batcher_; }
  InstanceStats stats() const;

  // Checks the model file now (the watcher calls this every check_interval); true if a new model
  // was swapped in. Exposed for tests.
  bool reload_if_replaced();

 private:
  struct FileStamp {
    int64_t mtime_ns = 0, size = -1;
    uint64_t inode = 0;
    bool operator==(const FileStamp& o) const {
      return mtime_ns == o.mtime_ns && size == o.size && inode == o.inode;
    }
  };
  static FileStamp stamp_of(const std::string& path);
  // The engine whose input fits the batch: the current one, or the previous one for frames
  // prepared before a swap to a model of another input size.
  std::shared_ptr<Engine> engine_for(const at::Tensor& batch) const;
  // Loads options_.model for `device` (a torch device string) on a thread of its own.
  std::shared_ptr<Engine> load_engine(const std::string& device) const;
  void watch();

  std::string label_;
  InstanceOptions options_;
  mutable std::mutex engine_mutex_;
  std::shared_ptr<Engine> engine_, previous_;
  FileStamp loaded_stamp_, failed_stamp_;  // watcher thread only
  std::atomic<uint64_t> batches_{0}, frames_{0}, largest_batch_{0}, swaps_{0};
  std::unique_ptr<DynamicBatcher> batcher_;  // after the engines: its worker uses them
  std::mutex watch_mutex_;
  std::condition_variable watch_cv_;
  bool stopping_ = false;
  std::thread watcher_;
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
