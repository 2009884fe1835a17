#include "model_instance.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>
#include <utility>

#include "yolo/core/device.h"
#include "yolo/core/serial_torch_ops.h"

namespace yolo::gst {
namespace {

// The engine's options for this instance on `device` (a torch device string). bf16=true on a GPU
// is ignored with a warning, as yolo-trainer's val and predict do: BF16 autocast is for CPUs.
EngineOptions engine_options(const InstanceOptions& o, const std::string& device) {
  EngineOptions eo;
  eo.device = device;
  eo.half = o.half;
  eo.bf16 = o.bf16;
  if (o.bf16.value_or(false) && c10::Device(device).type() != c10::kCPU) {
    spdlog::warn("bf16=true ignored: BF16 autocast is for CPUs; on {} use half=true", device);
    eo.bf16 = false;
  }
  return eo;
}

}  // namespace

ModelInstance::ModelInstance(std::string label, InstanceOptions options)
    : label_(std::move(label)), options_(std::move(options)) {
  if (options_.batch_size < 1)
    throw std::invalid_argument(
        fmt::format("batch-size {} is invalid: use 1 or more", options_.batch_size));
  loaded_stamp_ = stamp_of(options_.model);
  engine_ = load_engine(select_device(options_.device).torch_string());
  BatcherOptions bo;
  bo.max_batch = options_.batch_size;
  bo.batch_timeout = options_.batch_timeout;
  // Room for the element's frames in flight (it keeps at most two batches' worth queued).
  bo.queue_capacity = static_cast<size_t>(2 * options_.batch_size);
  batcher_ = std::make_unique<DynamicBatcher>(
      [this](const torch::Tensor& batch) {
        torch::Tensor out = engine_for(batch)->forward(batch);
        const auto n = static_cast<uint64_t>(batch.size(0));
        batches_ += 1;
        frames_ += n;
        uint64_t seen = largest_batch_.load();
        while (n > seen && !largest_batch_.compare_exchange_weak(seen, n)) {
        }
        return out;
      },
      bo);
  if (options_.check_interval.count() > 0) watcher_ = std::thread(&ModelInstance::watch, this);
}

std::shared_ptr<Engine> ModelInstance::load_engine(const std::string& device) const {
  // Loading traces and warms the model up with every core. On a thread of its own, the CPU
  // worker threads that this starts end with it instead of living on beside the batcher's
  // (serial_torch_ops.h: they would halve the model's speed on a small CPU).
  return run_on_own_thread(
      [&] { return std::make_shared<Engine>(options_.model, engine_options(options_, device)); });
}

ModelInstance::~ModelInstance() {
  {
    std::lock_guard<std::mutex> lock(watch_mutex_);
    stopping_ = true;
  }
  watch_cv_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

std::shared_ptr<Engine> ModelInstance::engine() const {
  std::lock_guard<std::mutex> lock(engine_mutex_);
  return engine_;
}

std::shared_ptr<Engine> ModelInstance::engine_for(const torch::Tensor& batch) const {
  std::lock_guard<std::mutex> lock(engine_mutex_);
  const auto fits = [&](const std::shared_ptr<Engine>& e) {
    return e && batch.dim() == 4 && e->accepts(batch.size(2), batch.size(3));
  };
  if (!fits(engine_) && fits(previous_)) return previous_;
  return engine_;
}

ModelInstance::FileStamp ModelInstance::stamp_of(const std::string& path) {
  struct stat st {};
  FileStamp s;
  if (::stat(path.c_str(), &st) != 0) return s;  // missing: size -1
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.size = static_cast<int64_t>(st.st_size);
  s.inode = static_cast<uint64_t>(st.st_ino);
  return s;
}

bool ModelInstance::reload_if_replaced() {
  const FileStamp now = stamp_of(options_.model);
  // Missing (between unlink and rename), unchanged, or already failed in this very state.
  if (now.size < 0 || now == loaded_stamp_ || now == failed_stamp_) return false;
  std::shared_ptr<Engine> fresh;
  try {
    fresh = load_engine(engine()->device().str());
  } catch (const std::exception& e) {
    failed_stamp_ = now;
    spdlog::warn(
        "model '{}' was replaced but the new file does not load ({}); the previous "
        "model keeps running until the file changes again",
        options_.model, e.what());
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(engine_mutex_);
    previous_ = std::move(engine_);
    engine_ = std::move(fresh);
  }
  loaded_stamp_ = now;
  ++swaps_;
  spdlog::info("model '{}' was replaced: swapped in the new model ({}x{}, {} classes)",
               options_.model, engine()->input_width(), engine()->input_height(),
               engine()->metadata().names.size());
  return true;
}

void ModelInstance::watch() {
  std::unique_lock<std::mutex> lock(watch_mutex_);
  while (!watch_cv_.wait_for(lock, options_.check_interval, [&] { return stopping_; })) {
    lock.unlock();
    reload_if_replaced();
    lock.lock();
  }
}

InstanceStats ModelInstance::stats() const {
  InstanceStats s;
  s.batches = batches_.load();
  s.frames = frames_.load();
  s.largest_batch = largest_batch_.load();
  s.swaps = swaps_.load();
  const BatcherStats b = batcher_->stats();
  s.mean_queue_wait_us = b.mean_queue_wait_us;
  s.mean_inference_us = b.mean_inference_us;
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
    if (have.model != options.model || have.device != options.device || have.half != options.half ||
        have.bf16 != options.bf16)
      throw std::invalid_argument(fmt::format(
          "model-instance-id '{}' already runs model '{}' on device '{}'{}{}; elements sharing an "
          "instance must use the same model, device, half and bf16 settings (or use another id)",
          id, have.model, have.device.empty() ? "auto" : have.device, have.half ? " in FP16" : "",
          have.bf16 ? (*have.bf16 ? " with bf16=true" : " with bf16=false") : ""));
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
