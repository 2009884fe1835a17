#include "yolo/serving/results_store.h"

#include <fmt/format.h>

namespace yolo {

ResultsStore::ResultsStore(size_t history_per_stream, size_t max_streams)
    : history_per_stream_(std::max<size_t>(1, history_per_stream)),
      max_streams_(std::max<size_t>(1, max_streams)) {}

uint64_t ResultsStore::publish(FrameResult result) {
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(result.stream_id);
    if (it == streams_.end()) {
      if (streams_.size() >= max_streams_) {
        throw std::length_error(
            fmt::format("results store: cannot add stream '{}', already {} "
                        "streams (the configured maximum)",
                        result.stream_id, max_streams_));
      }
      it = streams_.emplace(result.stream_id, Stream{}).first;
    }
    Stream& s = it->second;
    seq = result.seq = s.next_seq++;
    if (result.wall_time == std::chrono::system_clock::time_point{}) {
      result.wall_time = std::chrono::system_clock::now();
    }
    s.history.push_back(std::move(result));
    while (s.history.size() > history_per_stream_) s.history.pop_front();
  }
  published_.notify_all();
  return seq;
}

std::optional<FrameResult> ResultsStore::latest(const std::string& stream_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = streams_.find(stream_id);
  if (it == streams_.end() || it->second.history.empty()) return std::nullopt;
  return it->second.history.back();
}

std::vector<FrameResult> ResultsStore::newer_than(const Stream& s, uint64_t since) const {
  std::vector<FrameResult> out;
  for (const auto& r : s.history) {
    if (r.seq > since) out.push_back(r);
  }
  return out;
}

std::vector<FrameResult> ResultsStore::wait_since(const std::string& stream_id, uint64_t since,
                                                  std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto ready = [&] {
    if (shutdown_) return true;
    auto it = streams_.find(stream_id);
    return it != streams_.end() && !it->second.history.empty() &&
           it->second.history.back().seq > since;
  };
  published_.wait_for(lock, timeout, ready);
  auto it = streams_.find(stream_id);
  if (it == streams_.end()) return {};
  return newer_than(it->second, since);
}

std::vector<std::string> ResultsStore::streams() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [id, s] : streams_) out.push_back(id);
  return out;
}

bool ResultsStore::has_stream(const std::string& stream_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return streams_.count(stream_id) > 0;
}

void ResultsStore::remove_stream(const std::string& stream_id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_.erase(stream_id);
  }
  published_.notify_all();
}

void ResultsStore::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
  }
  published_.notify_all();
}

bool ResultsStore::is_shut_down() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return shutdown_;
}

}  // namespace yolo
