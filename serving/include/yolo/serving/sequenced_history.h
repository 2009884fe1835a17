// Per-stream bounded histories with sequence numbers, and readers that wait (long-poll) for
// items newer than the ones they have: what the results store and the events store share.
// T has a `uint64_t seq` member, which publish() assigns (1, 2, ... per stream). Thread-safe;
// memory is bounded by history_per_stream x max_streams items.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace yolo {

template <typename T>
class SequencedHistory {
 public:
  // `what` names the store in errors ("results store").
  SequencedHistory(size_t history_per_stream, size_t max_streams, std::string what)
      : history_per_stream_(std::max<size_t>(1, history_per_stream)),
        max_streams_(std::max<size_t>(1, max_streams)),
        what_(std::move(what)) {}

  // Stores an item, assigns and returns its sequence number and wakes the stream's readers.
  // A new stream beyond max_streams throws std::length_error.
  uint64_t publish(const std::string& stream_id, T item) {
    uint64_t seq;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      Stream& s = stream_locked(stream_id);
      seq = item.seq = s.next_seq++;
      s.history.push_back(std::move(item));
      while (s.history.size() > history_per_stream_) s.history.pop_front();
    }
    published_.notify_all();
    return seq;
  }

  // Makes the stream known without an item (readers then get an empty history, not "unknown").
  void declare(const std::string& stream_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    stream_locked(stream_id);
  }

  std::optional<T> latest(const std::string& stream_id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(stream_id);
    if (it == streams_.end() || it->second.history.empty()) return std::nullopt;
    return it->second.history.back();
  }

  // The last assigned sequence number (0 before the first item); nullopt for an unknown stream.
  std::optional<uint64_t> latest_seq(const std::string& stream_id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(stream_id);
    if (it == streams_.end()) return std::nullopt;
    return it->second.next_seq - 1;
  }

  // Items of the stream with seq > since (oldest first, at most the kept history). If there are
  // none, waits up to `timeout` for one; returns empty on timeout, on shutdown, or for an unknown
  // stream once the wait ends. A reader that fell behind sees a gap in seq.
  std::vector<T> wait_since(const std::string& stream_id, uint64_t since,
                            std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto ready = [&] {
      if (shutdown_) return true;
      auto it = streams_.find(stream_id);
      return it != streams_.end() && !it->second.history.empty() &&
             it->second.history.back().seq > since;
    };
    published_.wait_for(lock, timeout, ready);
    std::vector<T> out;
    auto it = streams_.find(stream_id);
    if (it == streams_.end()) return out;
    for (const auto& item : it->second.history) {
      if (item.seq > since) out.push_back(item);
    }
    return out;
  }

  std::vector<std::string> streams() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    for (const auto& kv : streams_) out.push_back(kv.first);
    return out;
  }

  bool has_stream(const std::string& stream_id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return streams_.count(stream_id) > 0;
  }

  void remove_stream(const std::string& stream_id) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      streams_.erase(stream_id);
    }
    published_.notify_all();
  }

  // Wakes every waiting reader (service shutdown); later waits return immediately.
  void shutdown() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      shutdown_ = true;
    }
    published_.notify_all();
  }

  bool is_shut_down() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return shutdown_;
  }

 private:
  struct Stream {
    uint64_t next_seq = 1;
    std::deque<T> history;
  };

  Stream& stream_locked(const std::string& stream_id) {
    auto it = streams_.find(stream_id);
    if (it != streams_.end()) return it->second;
    if (streams_.size() >= max_streams_) {
      throw std::length_error(
          fmt::format("{}: cannot add stream '{}', already {} streams (the configured maximum)",
                      what_, stream_id, max_streams_));
    }
    return streams_.emplace(stream_id, Stream{}).first->second;
  }

  const size_t history_per_stream_, max_streams_;
  const std::string what_;
  mutable std::mutex mutex_;
  std::condition_variable published_;
  std::map<std::string, Stream> streams_;
  bool shutdown_ = false;
};

}  // namespace yolo
