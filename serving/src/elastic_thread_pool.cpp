#include "elastic_thread_pool.h"

#include <algorithm>

namespace yolo::http {

ElasticThreadPool::ElasticThreadPool(size_t base, size_t max) : max_(std::max(base, max)) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < std::max<size_t>(base, 1); ++i) spawn();
}

ElasticThreadPool::~ElasticThreadPool() {
  shutdown();
}

void ElasticThreadPool::spawn() {
  threads_.emplace_back([this] { work(); });
}

void ElasticThreadPool::enqueue(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
    // Every waiting worker already has a job to take: one more worker for this one.
    if (!stopping_ && jobs_.size() > idle_ && threads_.size() < max_) spawn();
  }
  wake_.notify_one();
}

void ElasticThreadPool::shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  {
    // No worker is started once stopping_ is set, so this is the final list.
    std::lock_guard<std::mutex> lock(mutex_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
}

size_t ElasticThreadPool::workers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return threads_.size();
}

void ElasticThreadPool::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    ++idle_;
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    --idle_;
    if (jobs_.empty()) return;  // stopping, and nothing left to serve
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

}  // namespace yolo::http
