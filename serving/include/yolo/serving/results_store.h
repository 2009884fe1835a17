// The results store: the latest result of every stream plus a bounded history with per-stream
// sequence numbers, and readers that wait (long-poll) for results newer than the ones they have.
// Thread-safe; memory is bounded by history_per_stream x max_streams results.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "yolo/runtime/detection.h"
#include "yolo/serving/sequenced_history.h"

namespace yolo {

class ResultsStore {
 public:
  // history_per_stream >= 1: results kept per stream (older ones are dropped first);
  // max_streams >= 1: publishing to a new stream beyond it throws std::length_error.
  explicit ResultsStore(size_t history_per_stream = 100, size_t max_streams = 256)
      : history_(history_per_stream, max_streams, "results store") {}

  // Stores a result, assigns and returns its sequence number (1, 2, ... per stream) and wakes
  // the readers waiting on that stream. A result without a wall time gets the present.
  uint64_t publish(FrameResult result) {
    if (result.wall_time == std::chrono::system_clock::time_point{})
      result.wall_time = std::chrono::system_clock::now();
    const std::string id = result.stream_id;
    return history_.publish(id, std::move(result));
  }

  std::optional<FrameResult> latest(const std::string& stream_id) const {
    return history_.latest(stream_id);
  }

  // Results of the stream with seq > since (oldest first, at most the kept history). If there
  // are none, waits up to `timeout` for one; returns empty on timeout, on shutdown, or for an
  // unknown stream once the wait ends. A reader that fell behind sees a gap in seq.
  std::vector<FrameResult> wait_since(const std::string& stream_id, uint64_t since,
                                      std::chrono::milliseconds timeout) {
    return history_.wait_since(stream_id, since, timeout);
  }

  std::vector<std::string> streams() const { return history_.streams(); }
  bool has_stream(const std::string& stream_id) const { return history_.has_stream(stream_id); }
  void remove_stream(const std::string& stream_id) { history_.remove_stream(stream_id); }

  // Wakes every waiting reader (service shutdown); later waits return immediately.
  void shutdown() { history_.shutdown(); }
  bool is_shut_down() const { return history_.is_shut_down(); }

 private:
  SequencedHistory<FrameResult> history_;
};

}  // namespace yolo
