// SerialTorchOps keeps LibTorch's parallel ops on the calling thread while it lives and gives
// the thread its parallelism back after; run_on_own_thread runs work on a thread that ends.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "yolo/core/serial_torch_ops.h"

namespace {

// Threads of this process now.
size_t process_threads() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

// Threads of this process once the count holds still: workers of a thread that ended just before
// (an earlier test's) leave asynchronously, and counting one of them would make `before` too big.
size_t settled_process_threads() {
  size_t last = process_threads();
  for (int held = 0, i = 0; held < 10 && i < 400; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const size_t now = process_threads();
    held = now == last ? held + 1 : 0;
    last = now;
  }
  return last;
}

// An op big enough that LibTorch splits it over its intra-op threads (its grain is 32768).
void parallel_op() {
  at::Tensor t = at::ones({1 << 22});
  t.mul_(3).add_(1);
  ASSERT_EQ(t[12].item<float>(), 4.0f);
}

bool openmp_backend() {
  return at::get_parallel_info().find("parallel backend: OpenMP") != std::string::npos;
}

// The mechanism itself: a parallel op on a thread starts OpenMP workers that live as long as the
// thread, unless SerialTorchOps is in force there; after it, the thread is parallel again.
TEST(SerialTorchOps, ParallelOpsStartNoWorkerThreadsWhileItLives) {
  if (!openmp_backend()) GTEST_SKIP() << "LibTorch's intra-op backend is not OpenMP here";
  at::set_num_threads(2);
  std::thread([] {
    const size_t before = settled_process_threads();
    {
      const yolo::SerialTorchOps serial;
      EXPECT_TRUE(serial.active());
      EXPECT_EQ(at::get_num_threads(), 1);
      parallel_op();
      {
        const yolo::SerialTorchOps nested;  // restores to serial, not to 2
      }
      EXPECT_EQ(at::get_num_threads(), 1);
      parallel_op();
    }
    EXPECT_EQ(process_threads(), before) << "serial ops started worker threads";
    EXPECT_EQ(at::get_num_threads(), 2);
    parallel_op();
    EXPECT_GT(process_threads(), before) << "a parallel op here should start a worker";
  }).join();
  EXPECT_EQ(at::get_num_threads(), 2) << "other threads never saw it";
}

// run_on_own_thread's point: the workers that the work started end with its thread.
TEST(RunOnOwnThread, WorkersStartedThereEndWithIt) {
  if (!openmp_backend()) GTEST_SKIP() << "LibTorch's intra-op backend is not OpenMP here";
  at::set_num_threads(2);
  std::thread([] {  // a fresh thread with no workers yet stands for the caller
    const size_t before = settled_process_threads();
    yolo::run_on_own_thread([] { parallel_op(); });
    // libgomp's workers leave as their thread's key destructor runs; give them a moment.
    for (int i = 0; i < 200 && process_threads() > before; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(process_threads(), before);
  })
      .join();
}

TEST(RunOnOwnThread, ReturnsTheResultFromAnotherThread) {
  const std::thread::id caller = std::this_thread::get_id();
  const std::thread::id ran_on = yolo::run_on_own_thread([] { return std::this_thread::get_id(); });
  EXPECT_NE(ran_on, caller);
  EXPECT_EQ(yolo::run_on_own_thread([] { return 6 * 7; }), 42);
}

TEST(RunOnOwnThread, RethrowsTheException) {
  EXPECT_THROW(yolo::run_on_own_thread([]() -> int { throw std::invalid_argument("bad model"); }),
               std::invalid_argument);
}

}  // namespace
