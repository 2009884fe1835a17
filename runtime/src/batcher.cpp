#include "yolo/runtime/batcher.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>

namespace yolo {

using Clock = std::chrono::steady_clock;

DynamicBatcher::DynamicBatcher(RunFn run, BatcherOptions options)
    : run_(std::move(run)), opts_(options) {
  if (opts_.max_batch < 1) throw std::invalid_argument("batcher: max_batch must be >= 1");
  if (opts_.queue_capacity < 1) throw std::invalid_argument("batcher: queue_capacity must be >= 1");
  thread_ = std::thread([this] { worker(); });
}

DynamicBatcher::~DynamicBatcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  space_cv_.notify_all();
  thread_.join();
  std::unique_lock<std::mutex> lock(mutex_);
  idle_cv_.wait(lock, [&] { return active_submits_ == 0; });  // blocked producers have left
  for (auto& item : queue_) {
    item.result.set_exception(std::make_exception_ptr(FrameDropped("batcher stopped")));
  }
}

int DynamicBatcher::add_producer(const std::string& name, QueueFullPolicy policy) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int id = next_producer_id_++;
  producers_[id].stats.name = name;
  producers_[id].stats.policy = policy;
  return id;
}

std::future<torch::Tensor> DynamicBatcher::submit(int producer, torch::Tensor input) {
  std::unique_lock<std::mutex> lock(mutex_);
  // Counts this call as active until it returns or throws (the destructor waits for it).
  ++active_submits_;
  struct Leave {
    DynamicBatcher* self;
    std::unique_lock<std::mutex>& lock;
    ~Leave() {
      if (!lock.owns_lock()) lock.lock();
      if (--self->active_submits_ == 0) self->idle_cv_.notify_all();
    }
  } leave{this, lock};
  auto it = producers_.find(producer);
  if (it == producers_.end())
    throw std::invalid_argument(fmt::format("batcher: unknown producer {}", producer));
  ProducerStats& ps = it->second.stats;
  if (stopping_) throw FrameDropped("batcher stopped");
  ++ps.frames_in;
  ++stats_.frames_in;
  if (ps.queued >= opts_.queue_capacity) {
    if (ps.policy == QueueFullPolicy::kBlock) {
      space_cv_.wait(lock, [&] { return stopping_ || ps.queued < opts_.queue_capacity; });
      if (stopping_) throw FrameDropped("batcher stopped");
    } else {
      auto oldest = std::find_if(queue_.begin(), queue_.end(),
                                 [&](const Item& i) { return i.producer == producer; });
      oldest->result.set_exception(std::make_exception_ptr(FrameDropped(fmt::format(
          "frame of '{}' dropped: its queue of {} was full", ps.name, opts_.queue_capacity))));
      queue_.erase(oldest);
      --ps.queued;
      ++ps.dropped;
      ++stats_.dropped;
    }
  }
  Item item{producer, std::move(input), {}, Clock::now()};
  std::future<torch::Tensor> f = item.result.get_future();
  queue_.push_back(std::move(item));
  ++ps.queued;
  lock.unlock();
  work_cv_.notify_one();
  return f;
}

void DynamicBatcher::worker() {
  const auto max_batch = static_cast<size_t>(opts_.max_batch);
  while (true) {
    std::vector<Item> batch;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      // Wait for a full batch, but never longer than batch_timeout after the oldest arrival.
      // A batch holds frames of one shape (streams of other frame sizes get other rectangular
      // inputs): the oldest frame's, the others of that shape in arrival order.
      const auto deadline = queue_.front().arrived + opts_.batch_timeout;
      const auto same_shape = [this](const Item& i) {
        return i.input.sizes() == queue_.front().input.sizes();
      };
      work_cv_.wait_until(lock, deadline, [&] {
        return stopping_ || flush_requested_ ||
               static_cast<size_t>(std::count_if(queue_.begin(), queue_.end(), same_shape)) >=
                   max_batch;
      });
      if (stopping_) return;
      const at::IntArrayRef shape = queue_.front().input.sizes();
      const std::vector<int64_t> batch_shape(shape.begin(), shape.end());
      for (auto it = queue_.begin(); it != queue_.end() && batch.size() < max_batch;) {
        if (it->input.sizes() != at::IntArrayRef(batch_shape)) {
          ++it;
          continue;
        }
        batch.push_back(std::move(*it));
        it = queue_.erase(it);
        auto p = producers_.find(batch.back().producer);
        if (p != producers_.end()) --p->second.stats.queued;
      }
      // A flush runs every waiting frame: frames of other shapes go in the next batches.
      flush_requested_ = flush_requested_ && !queue_.empty();
    }
    space_cv_.notify_all();

    const auto start = Clock::now();
    double wait_us = 0;
    for (const auto& item : batch) {
      wait_us += std::chrono::duration<double, std::micro>(start - item.arrived).count();
    }
    std::vector<torch::Tensor> inputs;
    for (const auto& item : batch) inputs.push_back(item.input);
    torch::Tensor out;
    std::exception_ptr error;
    try {
      out = run_(torch::stack(inputs));
      if (out.size(0) != static_cast<int64_t>(batch.size())) {
        throw std::runtime_error(fmt::format("batcher: the model returned {} rows for {} frames",
                                             out.size(0), batch.size()));
      }
    } catch (...) {
      error = std::current_exception();
    }
    const double infer_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
    {
      // Counters first, so that a caller who has its result also sees it counted.
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.batches;
      fill_sum_ += static_cast<double>(batch.size()) / opts_.max_batch;
      wait_sum_us_ += wait_us;
      infer_sum_us_ += infer_us;
      for (const auto& item : batch) {
        if (error) {
          ++stats_.failed;
        } else {
          ++stats_.inferred;
          auto p = producers_.find(item.producer);
          if (p != producers_.end()) ++p->second.stats.inferred;
        }
      }
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      if (error) {
        batch[i].result.set_exception(error);
      } else {
        batch[i].result.set_value(out[static_cast<int64_t>(i)]);
      }
    }
  }
}

void DynamicBatcher::flush() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty()) return;
    flush_requested_ = true;
  }
  work_cv_.notify_one();
}

void DynamicBatcher::remove_producer(int producer) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!producers_.erase(producer)) return;
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (it->producer != producer) {
        ++it;
        continue;
      }
      it->result.set_exception(
          std::make_exception_ptr(FrameDropped("frame dropped: its producer was removed")));
      it = queue_.erase(it);
    }
  }
  space_cv_.notify_all();
}

BatcherStats DynamicBatcher::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  BatcherStats s = stats_;
  if (s.batches) {
    s.mean_batch_fill = fill_sum_ / s.batches;
    s.mean_inference_us = infer_sum_us_ / s.batches;
  }
  const uint64_t done = s.inferred + s.failed;
  if (done) s.mean_queue_wait_us = wait_sum_us_ / done;
  return s;
}

ProducerStats DynamicBatcher::producer_stats(int producer) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = producers_.find(producer);
  if (it == producers_.end())
    throw std::invalid_argument(fmt::format("batcher: unknown producer {}", producer));
  return it->second.stats;
}

}  // namespace yolo
