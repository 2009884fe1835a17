#include "model_instance.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <filesystem>
#include <stdexcept>
#include <utility>

#include "yolo/core/device.h"

namespace yolo::gst {

ModelInstance::ModelInstance(std::string label, InstanceOptions options)
    : label_(std::move(label)), options_(std::move(options)) {
  if (options_.batch_size < 1)
    throw std::invalid_argument(
        fmt::format("batch-size {} is invalid: use 1 or more", options_.batch_size));
  EngineOptions eo;
  eo.device = select_device(options_.device).torch_string();
  eo.half = options_.half;
  engine_ = std::make_unique<Engine>(options_.model, eo);
  BatcherOptions bo;
  bo.max_batch = options_.batch_size;
  bo.batch_timeout = options_.batch_timeout;
  // Room for the element's frames in flight (it keeps at most two batches' worth queued).
  bo.queue_capacity = static_cast<size_t>(2 * options_.batch_size);
  batcher_ = std::make_unique<DynamicBatcher>(
      [this](const torch::Tensor& batch) {
        torch::Tensor out = engine_->forward(batch);
        const auto n = static_cast<uint64_t>(batch.size(0));
        batches_ += 1;
        frames_ += n;
        uint64_t seen = largest_batch_.load();
        while (n > seen && !largest_batch_.compare_exchange_weak(seen, n)) {
        }
        return out;
      },
      bo);
}

InstanceStats ModelInstance::stats() const {
  InstanceStats s;
  s.batches = batches_.load();
  s.frames = frames_.load();
  s.largest_batch = largest_batch_.load();
  return s;
}

ModelRegistry& ModelRegistry::process() {
  static ModelRegistry registry;
  return registry;
}

std::shared_ptr<ModelInstance> ModelRegistry::acquire(const std::string& id,
                                                      const InstanceOptions& options,
                                                      std::string* note) {
  const std::string label =
      id.empty() ? std::filesystem::path(options.model).filename().string() : id;
  if (id.empty()) return std::make_shared<ModelInstance>(label, options);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto live = instances_[id].lock()) {
    const InstanceOptions& have = live->options();
    if (have.model != options.model || have.device != options.device || have.half != options.half)
      throw std::invalid_argument(fmt::format(
          "model-instance-id '{}' already runs model '{}' on device '{}'{}; elements sharing an "
          "instance must use the same model, device and half settings (or use another id)",
          id, have.model, have.device.empty() ? "auto" : have.device, have.half ? " in FP16" : ""));
    if (note &&
        (have.batch_size != options.batch_size || have.batch_timeout != options.batch_timeout))
      *note = fmt::format(
          "model-instance-id '{}' keeps batch-size {} and batch-timeout {} us from the element "
          "that created it",
          id, have.batch_size, have.batch_timeout.count());
    return live;
  }
  auto created = std::make_shared<ModelInstance>(label, options);
  instances_[id] = created;
  return created;
}

}  // namespace yolo::gst
