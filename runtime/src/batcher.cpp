#include "yolo/runtime/batcher.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>

#include "yolo/core/thread_name.h"

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
    item.deliver({}, std::make_exception_ptr(FrameDropped("batcher stopped")));
  }
}

int DynamicBatcher::add_producer(const std::string& name, QueueFullPolicy policy) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int id = next_producer_id_++;
  producers_[id].stats.name = name;
  producers_[id].stats.policy = policy;
  // Room for every producer's full queue: queueing a frame then never allocates.
  queue_.reserve(producers_.size() * opts_.queue_capacity);
  return id;
}

bool ResultSlot::wait_for(std::chrono::microseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return cv_.wait_for(lock, timeout, [&] { return ready_; });
}

torch::Tensor ResultSlot::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!ready_) throw std::logic_error("ResultSlot::take: no result yet");
  if (error_) std::rethrow_exception(error_);
  return std::move(row_);
}

void ResultSlot::reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  ready_ = false;
  row_ = torch::Tensor();
  error_ = nullptr;
}

void ResultSlot::deliver(torch::Tensor row, std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    row_ = std::move(row);
    error_ = std::move(error);
    ready_ = true;
  }
  cv_.notify_all();
}

void DynamicBatcher::Item::deliver(torch::Tensor row, std::exception_ptr error) {
  if (slot) {
    slot->deliver(std::move(row), std::move(error));
  } else if (promise) {
    if (error) {
      promise->set_exception(std::move(error));
    } else {
      promise->set_value(std::move(row));
    }
  }
}

std::future<torch::Tensor> DynamicBatcher::submit(int producer, torch::Tensor input) {
  Item item;
  item.producer = producer;
  item.input = std::move(input);
  item.promise.emplace();
  std::future<torch::Tensor> f = item.promise->get_future();
  std::unique_lock<std::mutex> lock(mutex_);
  enqueue(lock, std::move(item));
  return f;
}

void DynamicBatcher::submit(int producer, torch::Tensor input, std::shared_ptr<ResultSlot> slot) {
  if (!slot) throw std::invalid_argument("batcher: no result slot");
  slot->reset();
  Item item;
  item.producer = producer;
  item.input = std::move(input);
  item.slot = std::move(slot);
  std::unique_lock<std::mutex> lock(mutex_);
  enqueue(lock, std::move(item));
}

void DynamicBatcher::enqueue(std::unique_lock<std::mutex>& lock, Item item) {
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
  const int producer = item.producer;
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
      oldest->deliver(
          {},
          std::make_exception_ptr(FrameDropped(fmt::format(
              "frame of '{}' dropped: its queue of {} was full", ps.name, opts_.queue_capacity))));
      queue_.erase(oldest);
      --ps.queued;
      ++ps.dropped;
      ++stats_.dropped;
    }
  }
  item.arrived = Clock::now();
  queue_.push_back(std::move(item));
  ++ps.queued;
  lock.unlock();
  work_cv_.notify_one();
}

void DynamicBatcher::worker() {
  name_this_thread("yolo-batcher");
  const auto max_batch = static_cast<size_t>(opts_.max_batch);
  batch_.reserve(max_batch);
  batch_inputs_.reserve(max_batch);
  while (true) {
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
      const at::DimVector batch_shape(queue_.front().input.sizes());
      for (auto it = queue_.begin(); it != queue_.end() && batch_.size() < max_batch;) {
        if (it->input.sizes() != at::IntArrayRef(batch_shape)) {
          ++it;
          continue;
        }
        batch_.push_back(std::move(*it));
        it = queue_.erase(it);
        auto p = producers_.find(batch_.back().producer);
        if (p != producers_.end()) --p->second.stats.queued;
      }
      // A flush runs every waiting frame: frames of other shapes go in the next batches.
      flush_requested_ = flush_requested_ && !queue_.empty();
    }
    space_cv_.notify_all();
    run_batch();
  }
}

void DynamicBatcher::run_batch() {
  const auto start = Clock::now();
  double wait_us = 0;
  for (const auto& item : batch_) {
    wait_us += std::chrono::duration<double, std::micro>(start - item.arrived).count();
  }
  torch::Tensor out;
  std::exception_ptr error;
  try {
    // One frame runs as it is (a view with a batch dimension), without stack's copy.
    if (batch_.size() == 1) {
      out = run_(batch_.front().input.unsqueeze(0));
    } else {
      for (const auto& item : batch_) batch_inputs_.push_back(item.input);
      out = run_(torch::stack(batch_inputs_));
      batch_inputs_.clear();
    }
    if (out.size(0) != static_cast<int64_t>(batch_.size())) {
      throw std::runtime_error(fmt::format("batcher: the model returned {} rows for {} frames",
                                           out.size(0), batch_.size()));
    }
  } catch (...) {
    batch_inputs_.clear();
    error = std::current_exception();
  }
  const double infer_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  {
    // Counters first, so that a caller who has its result also sees it counted.
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.batches;
    fill_sum_ += static_cast<double>(batch_.size()) / opts_.max_batch;
    wait_sum_us_ += wait_us;
    infer_sum_us_ += infer_us;
    for (const auto& item : batch_) {
      if (error) {
        ++stats_.failed;
      } else {
        ++stats_.inferred;
        auto p = producers_.find(item.producer);
        if (p != producers_.end()) ++p->second.stats.inferred;
      }
    }
  }
  for (size_t i = 0; i < batch_.size(); ++i) {
    batch_[i].input = torch::Tensor();  // back to its producer before the result says "done"
    batch_[i].deliver(error ? torch::Tensor() : out[static_cast<int64_t>(i)], error);
  }
  // The inputs and slots go back to their producers now, not when the next batch forms.
  batch_.clear();
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
      it->deliver({},
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
