// cpp-httplib's task queue with a worker count that grows with demand. httplib serves each
// connection on one worker from reading the request to writing the response, so a client that
// sends half a request holds its worker until the read timeout, and with a fixed pool forty such
// clients kept /health waiting for ~20 s. Here `base` workers always run and more are started,
// up to `max`, whenever a connection arrives while every worker is busy; the extra ones stay for
// the life of the server (a later burst needs them again; an idle thread costs no CPU).
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace yolo::http {

class ElasticThreadPool : public httplib::TaskQueue {
 public:
  ElasticThreadPool(size_t base, size_t max);
  ~ElasticThreadPool() override;
  ElasticThreadPool(const ElasticThreadPool&) = delete;
  ElasticThreadPool& operator=(const ElasticThreadPool&) = delete;

  void enqueue(std::function<void()> job) override;
  void shutdown() override;  // runs the queued jobs, then joins every worker

  size_t workers() const;

 private:
  void spawn();  // with mutex_ held
  void work();

  const size_t max_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;  // workers waiting for a job
  bool stopping_ = false;
};

}  // namespace yolo::http
