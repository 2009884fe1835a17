// Dynamic batching: many producers (streams, threads) share one model. A worker thread forms a
// batch from the oldest waiting frames, up to `max_batch` frames or until `batch_timeout` has
// passed since the oldest one arrived, whichever comes first, runs it, and completes each
// caller's future with that frame's row of the output.
//
// A frame's result arrives in a std::future (submit()), or, for a producer that must not allocate
// per frame, in a ResultSlot it owns and reuses.
//
// Each producer has a bounded queue. When it is full, the producer's policy decides:
//   kBlock      submit() waits for space (back-pressure: a file source slows down);
//   kDropOldest the producer's oldest waiting frame is dropped, its future fails with
//               FrameDropped, and the new frame is queued (live cameras: keep the newest).
#pragma once

#include <torch/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace yolo {

// The future of a frame dropped under kDropOldest, or still queued when the batcher stops.
class FrameDropped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where one frame's output row arrives, for producers that submit frame after frame without a heap
// allocation (a std::future's shared state is one per frame). A producer keeps a few slots and
// reuses one once nothing else holds it (use_count() == 1): the batcher holds a slot from
// submit() until it has delivered into it.
class ResultSlot {
 public:
  // Waits up to `timeout`; true when the row (or an error) is there.
  bool wait_for(std::chrono::microseconds timeout);
  // The row, or rethrows FrameDropped / the model's error. Call after wait_for() returned true.
  torch::Tensor take();

 private:
  friend class DynamicBatcher;
  void reset();
  void deliver(torch::Tensor row, std::exception_ptr error);

  std::mutex mutex_;
  std::condition_variable cv_;
  bool ready_ = false;
  torch::Tensor row_;
  std::exception_ptr error_;
};

enum class QueueFullPolicy { kBlock, kDropOldest };

struct BatcherOptions {
  int max_batch = 8;                              // frames per model call (>= 1)
  std::chrono::microseconds batch_timeout{2000};  // longest wait for a batch to fill
  size_t queue_capacity = 16;                     // waiting frames per producer (>= 1)
};

struct BatcherStats {
  uint64_t frames_in = 0, inferred = 0, dropped = 0, failed = 0, batches = 0;
  double mean_batch_fill = 0;     // frames per batch / max_batch, 0..1
  double mean_queue_wait_us = 0;  // from submit to the start of the model call
  double mean_inference_us = 0;   // model call per batch
};

struct ProducerStats {
  std::string name;
  QueueFullPolicy policy = QueueFullPolicy::kDropOldest;
  uint64_t frames_in = 0, inferred = 0, dropped = 0;
  size_t queued = 0;
};

class DynamicBatcher {
 public:
  // run: (B, ...) stacked inputs -> (B, ...) outputs; called on the batcher's worker thread.
  using RunFn = std::function<torch::Tensor(const torch::Tensor& batch)>;

  DynamicBatcher(RunFn run, BatcherOptions options);
  // Stops the worker; queued frames fail with FrameDropped, and a producer blocked in submit()
  // is woken with FrameDropped (the destructor waits for it to leave). No new submit() calls may
  // start once destruction has begun.
  ~DynamicBatcher();
  DynamicBatcher(const DynamicBatcher&) = delete;
  DynamicBatcher& operator=(const DynamicBatcher&) = delete;

  int add_producer(const std::string& name, QueueFullPolicy policy);
  // Forgets a producer (a stream that ended) so that long-lived batchers shared by streams that
  // come and go stay small; its queued frames fail with FrameDropped. No submit() of this
  // producer may be running or start afterwards. Unknown ids are ignored.
  void remove_producer(int producer);
  // input: one frame (no batch dimension). Frames of one shape are batched together (streams
  // whose frame sizes give other rectangular inputs run in batches of their own). The future
  // gives that frame's output row, or throws FrameDropped / the model's error.
  std::future<torch::Tensor> submit(int producer, torch::Tensor input);
  // As submit(), with the result delivered into `slot` (reset here; it must not be waiting in
  // the batcher already). In steady state this allocates nothing.
  void submit(int producer, torch::Tensor input, std::shared_ptr<ResultSlot> slot);

  // Runs the frames waiting now without waiting for the batch to fill or for batch_timeout (a
  // stream at its end must not wait for frames that will never come). No-op when none wait.
  void flush();

  BatcherStats stats() const;
  ProducerStats producer_stats(int producer) const;

 private:
  struct Item {
    int producer = -1;
    torch::Tensor input;
    std::optional<std::promise<torch::Tensor>> promise;  // submit() with a future
    std::shared_ptr<ResultSlot> slot;                    // submit() with a slot
    std::chrono::steady_clock::time_point arrived;
    void deliver(torch::Tensor row, std::exception_ptr error);
  };
  struct Producer {
    ProducerStats stats;
  };
  // Queues `item` under `lock` (blocking or dropping by the producer's policy). Throws.
  void enqueue(std::unique_lock<std::mutex>& lock, Item item);
  void worker();
  void run_batch();  // worker thread: runs batch_ and delivers its rows

  RunFn run_;
  BatcherOptions opts_;
  mutable std::mutex mutex_;
  std::condition_variable work_cv_, space_cv_, idle_cv_;
  int active_submits_ = 0;  // producers inside submit(); the destructor waits for 0
  // Arrival order across producers; a vector with room reserved for every producer's queue, so
  // that queueing a frame never allocates (it holds at most a few dozen frames).
  std::vector<Item> queue_;
  std::vector<Item> batch_;  // worker thread: the batch being run
  std::vector<torch::Tensor> batch_inputs_;
  std::map<int, Producer> producers_;
  int next_producer_id_ = 0;
  BatcherStats stats_;
  double fill_sum_ = 0, wait_sum_us_ = 0, infer_sum_us_ = 0;
  bool stopping_ = false;
  bool flush_requested_ = false;  // flush(): run what is queued now
  std::thread thread_;
};

}  // namespace yolo
