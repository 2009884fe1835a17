// The events store: per stream, the analytics' events (line crossings, zone entries and exits,
// dwell) in a bounded history with sequence numbers that readers long-poll, as they do results,
// and the stream's latest counts. Events and counts are kept as their JSON
// (yolo/analytics/analytics_json.h): the store serves them and does not read them.
// Thread-safe; memory is bounded by history_per_stream x max_streams events.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "yolo/serving/sequenced_history.h"

namespace yolo {

struct StoredEvent {
  uint64_t seq = 0;
  nlohmann::json event;  // with "seq" added when stored
};

class EventsStore {
 public:
  explicit EventsStore(size_t history_per_stream = 1000, size_t max_streams = 256)
      : history_(history_per_stream, max_streams, "events store") {}

  // The stream's counts now; also makes the stream known (its events list may still be empty).
  void set_counts(const std::string& stream_id, nlohmann::json counts) {
    history_.declare(stream_id);
    std::lock_guard<std::mutex> lock(mutex_);
    counts_[stream_id] = std::move(counts);
  }
  std::optional<nlohmann::json> counts(const std::string& stream_id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = counts_.find(stream_id);
    if (it == counts_.end()) return std::nullopt;
    return it->second;
  }

  // Stores an event and returns its sequence number (also written into it as "seq").
  uint64_t publish(const std::string& stream_id, nlohmann::json event) {
    StoredEvent e;
    e.event = std::move(event);
    return history_.publish(stream_id, std::move(e));
  }

  // Like ResultsStore::wait_since; each event's JSON carries its "seq".
  std::vector<nlohmann::json> wait_since(const std::string& stream_id, uint64_t since,
                                         std::chrono::milliseconds timeout) {
    std::vector<nlohmann::json> out;
    for (auto& e : history_.wait_since(stream_id, since, timeout)) {
      e.event["seq"] = e.seq;
      out.push_back(std::move(e.event));
    }
    return out;
  }
  std::optional<uint64_t> latest_seq(const std::string& stream_id) const {
    return history_.latest_seq(stream_id);
  }

  bool has_stream(const std::string& stream_id) const { return history_.has_stream(stream_id); }
  void remove_stream(const std::string& stream_id) {
    history_.remove_stream(stream_id);
    std::lock_guard<std::mutex> lock(mutex_);
    counts_.erase(stream_id);
  }
  void shutdown() { history_.shutdown(); }
  bool is_shut_down() const { return history_.is_shut_down(); }

 private:
  SequencedHistory<StoredEvent> history_;
  mutable std::mutex mutex_;
  std::map<std::string, nlohmann::json> counts_;
};

}  // namespace yolo
