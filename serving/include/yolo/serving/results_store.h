// The results store: the latest result of every stream plus a bounded history with per-stream
// sequence numbers, and readers that wait (long-poll) for results newer than the ones they have.
// Thread-safe; memory is bounded by history_per_stream x max_streams results.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "yolo/runtime/detection.h"

namespace yolo {

class ResultsStore {
 public:
  // history_per_stream >= 1: results kept per stream (older ones are dropped first);
  // max_streams >= 1: publishing to a new stream beyond it throws std::length_error.
  explicit ResultsStore(size_t history_per_stream = 100, size_t max_streams = 256);

  // Stores a result, assigns and returns its sequence number (1, 2, ... per stream) and wakes
  // the readers waiting on that stream.
  uint64_t publish(FrameResult result);

  std::optional<FrameResult> latest(const std::string& stream_id) const;

  // Results of the stream with seq > since (oldest first, at most the kept history). If there
  // are none, waits up to `timeout` for one; returns empty on timeout, on shutdown, or for an
  // unknown stream once the wait ends. A reader that fell behind sees a gap in seq.
  std::vector<FrameResult> wait_since(const std::string& stream_id, uint64_t since,
                                      std::chrono::milliseconds timeout);

  std::vector<std::string> streams() const;
  bool has_stream(const std::string& stream_id) const;
  void remove_stream(const std::string& stream_id);

  // Wakes every waiting reader (service shutdown); later waits return immediately.
  void shutdown();
  bool is_shut_down() const;

 private:
  struct Stream {
    uint64_t next_seq = 1;
    std::deque<FrameResult> history;
  };
  std::vector<FrameResult> newer_than(const Stream& s, uint64_t since) const;

  const size_t history_per_stream_, max_streams_;
  mutable std::mutex mutex_;
  std::condition_variable published_;
  std::map<std::string, Stream> streams_;
  bool shutdown_ = false;
};

}  // namespace yolo
