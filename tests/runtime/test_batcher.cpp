// The dynamic batcher: flush on a full batch and on time-out, each caller gets its own row,
// drop-oldest and blocking queues, model errors, and many producer threads at once.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <thread>

#include "yolo/runtime/batcher.h"

using namespace std::chrono_literals;
using yolo::BatcherOptions;
using yolo::DynamicBatcher;
using yolo::QueueFullPolicy;

namespace {

// Holds the model call until opened, to fill queues deterministically.
class Gate {
 public:
  void open() {
    {
      std::lock_guard<std::mutex> l(m_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return open_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = false;
};

torch::Tensor frame(float v) {
  return torch::full({2}, v);
}

}  // namespace

TEST(Batcher, FlushesOnFullBatchAndRoutesRows) {
  std::vector<int64_t> sizes;
  std::mutex m;
  BatcherOptions o;
  o.max_batch = 4;
  o.batch_timeout = 10s;  // never reached: the batch fills first
  DynamicBatcher b(
      [&](const torch::Tensor& x) {
        std::lock_guard<std::mutex> l(m);
        sizes.push_back(x.size(0));
        return x * 2;
      },
      o);
  int p = b.add_producer("cam", QueueFullPolicy::kBlock);
  std::vector<std::future<torch::Tensor>> fs;
  for (int i = 0; i < 4; ++i) fs.push_back(b.submit(p, frame(float(i))));
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(fs[i].wait_for(5s), std::future_status::ready);
    EXPECT_FLOAT_EQ(fs[i].get()[0].item<float>(), 2.f * i);
  }
  EXPECT_EQ(sizes, std::vector<int64_t>{4});
  auto s = b.stats();
  EXPECT_EQ(s.batches, 1u);
  EXPECT_DOUBLE_EQ(s.mean_batch_fill, 1.0);
  EXPECT_EQ(s.inferred, 4u);
}

TEST(Batcher, FlushesAPartialBatchOnTimeout) {
  std::atomic<int64_t> last_size{0};
  BatcherOptions o;
  o.max_batch = 8;
  o.batch_timeout = 30ms;
  DynamicBatcher b(
      [&](const torch::Tensor& x) {
        last_size = x.size(0);
        return x;
      },
      o);
  int p = b.add_producer("cam", QueueFullPolicy::kDropOldest);
  auto f = b.submit(p, frame(1));
  ASSERT_EQ(f.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(last_size, 1);
  EXPECT_DOUBLE_EQ(b.stats().mean_batch_fill, 1.0 / 8);
}

TEST(Batcher, DropOldestWhenTheQueueIsFull) {
  Gate gate;
  BatcherOptions o;
  o.max_batch = 1;
  o.batch_timeout = 0us;
  o.queue_capacity = 2;
  DynamicBatcher b(
      [&](const torch::Tensor& x) {
        gate.wait();
        return x;
      },
      o);
  int cam = b.add_producer("cam", QueueFullPolicy::kDropOldest);
  auto busy = b.submit(cam, frame(0));  // taken by the worker, held at the gate
  while (b.producer_stats(cam).queued != 0) std::this_thread::sleep_for(1ms);
  std::vector<std::future<torch::Tensor>> fs;
  for (int i = 1; i <= 4; ++i) fs.push_back(b.submit(cam, frame(float(i))));  // capacity 2
  EXPECT_THROW(fs[0].get(), yolo::FrameDropped);
  EXPECT_THROW(fs[1].get(), yolo::FrameDropped);
  gate.open();
  EXPECT_FLOAT_EQ(fs[2].get()[0].item<float>(), 3.f);  // the newest frames survive
  EXPECT_FLOAT_EQ(fs[3].get()[0].item<float>(), 4.f);
  busy.get();
  auto ps = b.producer_stats(cam);
  EXPECT_EQ(ps.frames_in, 5u);
  EXPECT_EQ(ps.dropped, 2u);
  EXPECT_EQ(ps.inferred, 3u);
  EXPECT_EQ(b.stats().dropped, 2u);
}

TEST(Batcher, BlockingProducerWaitsForSpace) {
  Gate gate;
  BatcherOptions o;
  o.max_batch = 1;
  o.batch_timeout = 0us;
  o.queue_capacity = 1;
  DynamicBatcher b(
      [&](const torch::Tensor& x) {
        gate.wait();
        return x;
      },
      o);
  int file = b.add_producer("file", QueueFullPolicy::kBlock);
  auto first = b.submit(file, frame(0));  // held in the model call
  while (b.producer_stats(file).queued != 0) std::this_thread::sleep_for(1ms);
  auto second = b.submit(file, frame(1));  // fills the queue
  std::atomic<bool> third_submitted{false};
  std::future<torch::Tensor> third;
  std::thread t([&] {
    third = b.submit(file, frame(2));  // must wait: queue full
    third_submitted = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(third_submitted.load());
  gate.open();
  t.join();
  EXPECT_TRUE(third_submitted.load());
  EXPECT_FLOAT_EQ(third.get()[0].item<float>(), 2.f);
  EXPECT_EQ(b.producer_stats(file).dropped, 0u);
  first.get();
  second.get();
}

TEST(Batcher, ModelErrorsReachEveryCaller) {
  BatcherOptions o;
  o.max_batch = 2;
  o.batch_timeout = 10s;
  DynamicBatcher b([](const torch::Tensor&) -> torch::Tensor { throw std::runtime_error("boom"); },
                   o);
  int p = b.add_producer("cam", QueueFullPolicy::kBlock);
  auto f1 = b.submit(p, frame(1)), f2 = b.submit(p, frame(2));
  EXPECT_THROW(f1.get(), std::runtime_error);
  EXPECT_THROW(f2.get(), std::runtime_error);
  EXPECT_EQ(b.stats().failed, 2u);
  EXPECT_THROW(b.submit(99, frame(0)), std::invalid_argument);
}

TEST(Batcher, ManyProducerThreads) {
  BatcherOptions o;
  o.max_batch = 8;
  o.batch_timeout = 1ms;
  o.queue_capacity = 64;
  DynamicBatcher b([](const torch::Tensor& x) { return x + 1; }, o);
  constexpr int kProducers = 4, kFrames = 50;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kProducers; ++t) {
    threads.emplace_back([&, t] {
      int p = b.add_producer("cam" + std::to_string(t), QueueFullPolicy::kBlock);
      for (int i = 0; i < kFrames; ++i) {
        const float v = float(t * 1000 + i);
        if (b.submit(p, frame(v)).get()[0].item<float>() != v + 1) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong, 0);
  auto s = b.stats();
  EXPECT_EQ(s.inferred, uint64_t(kProducers * kFrames));
  EXPECT_GT(s.mean_batch_fill, 0.0);
  EXPECT_GE(s.mean_inference_us, 0.0);
}

TEST(Batcher, DestructionReleasesBlockedProducersAndQueuedFrames) {
  Gate gate;
  BatcherOptions o;
  o.max_batch = 1;
  o.batch_timeout = 0us;
  o.queue_capacity = 1;
  auto b = std::make_unique<DynamicBatcher>(
      [&](const torch::Tensor& x) {
        gate.wait();
        return x;
      },
      o);
  int p = b->add_producer("file", QueueFullPolicy::kBlock);
  auto first = b->submit(p, frame(0));  // held in the model call
  while (b->producer_stats(p).queued != 0) std::this_thread::sleep_for(1ms);
  auto queued = b->submit(p, frame(1));
  std::atomic<bool> dropped{false};
  std::thread blocked([&] {
    try {
      b->submit(p, frame(2)).get();
    } catch (const yolo::FrameDropped&) {
      dropped = true;
    }
  });
  std::this_thread::sleep_for(30ms);
  std::thread opener([&] {
    std::this_thread::sleep_for(30ms);
    gate.open();
  });
  b.reset();  // must not hang or crash
  blocked.join();
  opener.join();
  EXPECT_TRUE(dropped.load());
  EXPECT_NO_THROW(first.get());
  // The frame still queued at destruction either ran or was dropped: its future is ready when
  // the batcher is gone (never left hanging), with a result or FrameDropped, nothing else.
  // Any other exception fails the test.
  ASSERT_EQ(queued.wait_for(0s), std::future_status::ready) << "a queued frame was left hanging";
  try {
    queued.get();
  } catch (const yolo::FrameDropped&) {  // dropped: allowed
  }
}

// Streams of other frame sizes get other rectangular inputs: a batch holds one shape (the oldest
// frame's, then that shape's others in arrival order), and every frame still gets its own row.
TEST(Batcher, BatchesHoldFramesOfOneShape) {
  std::vector<std::vector<int64_t>> shapes;
  std::mutex m;
  BatcherOptions o;
  o.max_batch = 3;
  o.batch_timeout = 10s;  // full batches or the flush below run them
  DynamicBatcher b(
      [&](const torch::Tensor& x) {
        std::lock_guard<std::mutex> l(m);
        shapes.push_back(x.sizes().vec());
        return x.flatten(1).sum(1);  // one row per frame, whatever its shape
      },
      o);
  const int wide = b.add_producer("wide", QueueFullPolicy::kBlock);
  const int tall = b.add_producer("tall", QueueFullPolicy::kBlock);
  std::vector<std::future<torch::Tensor>> fs;
  std::vector<float> want;
  for (int i = 0; i < 4; ++i) {
    fs.push_back(b.submit(wide, torch::full({2, 3}, float(i))));
    want.push_back(6.0f * i);
    fs.push_back(b.submit(tall, torch::full({3, 1}, float(10 + i))));
    want.push_back(3.0f * (10 + i));
  }
  b.flush();
  for (size_t i = 0; i < fs.size(); ++i) EXPECT_FLOAT_EQ(fs[i].get().item<float>(), want[i]) << i;
  std::lock_guard<std::mutex> l(m);
  int64_t frames = 0;
  for (const auto& s : shapes) {
    ASSERT_EQ(s.size(), 3u);
    EXPECT_LE(s[0], 3);
    EXPECT_TRUE((s[1] == 2 && s[2] == 3) || (s[1] == 3 && s[2] == 1));
    frames += s[0];
  }
  EXPECT_EQ(frames, 8);
}

// Result slots: each frame's row arrives in the producer's slot, the batcher lets go of the slot
// and the input once it has delivered (a producer then reuses both), and drops and model errors
// reach the slot as exceptions.
TEST(Batcher, ResultSlotsAreDeliveredAndReleased) {
  Gate gate;
  BatcherOptions o;
  o.max_batch = 2;
  o.batch_timeout = 10s;
  o.queue_capacity = 2;
  DynamicBatcher b(
      [&](const torch::Tensor& x) {
        gate.wait();
        return x * 3;
      },
      o);
  const int p = b.add_producer("cam", QueueFullPolicy::kDropOldest);
  auto first = std::make_shared<yolo::ResultSlot>(), second = std::make_shared<yolo::ResultSlot>();
  torch::Tensor in0 = frame(1), in1 = frame(2);
  b.submit(p, in0, first);
  b.submit(p, in1, second);
  EXPECT_FALSE(first->wait_for(std::chrono::microseconds(0)));
  gate.open();
  ASSERT_TRUE(first->wait_for(5s));
  ASSERT_TRUE(second->wait_for(5s));
  EXPECT_FLOAT_EQ(first->take()[0].item<float>(), 3.f);
  EXPECT_FLOAT_EQ(second->take()[1].item<float>(), 6.f);
  EXPECT_EQ(in0.use_count(), 1) << "the input goes back before the result says done";
  // Reused: the same slot takes the next frame's row.
  b.submit(p, frame(5), first);
  b.submit(p, frame(6), second);
  ASSERT_TRUE(first->wait_for(5s));
  EXPECT_FLOAT_EQ(first->take()[0].item<float>(), 15.f);
  ASSERT_TRUE(second->wait_for(5s));
  second->take();
  for (int i = 0; i < 100 && first.use_count() > 1; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(first.use_count(), 1) << "the batcher keeps no slot it has delivered";
}

TEST(Batcher, ResultSlotsCarryDropsAndErrors) {
  BatcherOptions o;
  o.max_batch = 4;
  o.batch_timeout = 10s;  // nothing runs until a flush
  o.queue_capacity = 1;
  std::atomic<bool> fail{false};
  DynamicBatcher b(
      [&](const torch::Tensor& x) -> torch::Tensor {
        if (fail) throw std::runtime_error("model broke");
        return x;
      },
      o);
  const int p = b.add_producer("cam", QueueFullPolicy::kDropOldest);
  auto dropped = std::make_shared<yolo::ResultSlot>(), kept = std::make_shared<yolo::ResultSlot>();
  b.submit(p, frame(1), dropped);
  b.submit(p, frame(2), kept);  // the queue of 1 is full: the first is dropped
  ASSERT_TRUE(dropped->wait_for(5s));
  EXPECT_THROW(dropped->take(), yolo::FrameDropped);
  fail = true;
  b.flush();
  ASSERT_TRUE(kept->wait_for(5s));
  EXPECT_THROW(kept->take(), std::runtime_error);
}
