// Where each stream's samples go: the StreamManager's SampleHandler and RemovedHandler for the
// service. Per sample: the detections become a FrameResult (sample_results.h) that is published
// to the ResultsStore and, when configured, appended to the JSON lines; the BGR frame refreshes
// the stream's in-memory snapshot at most every live_snapshot_interval, and the snapshot archive
// saves one when it is due. A stream with lines or zones also runs its analytics
// (yolo/analytics/stream_analytics.h) on the tracked detections: events go to the EventsStore,
// into the frame's JSON line ("events") and into the Prometheus counters; counts to the store.
//
// Runs on the streaming threads: an output that fails (disk full) is logged once per stream and
// counted, never thrown into the pipeline. Thread-safe.
#pragma once

#include <gst/gst.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace yolo {
struct FrameResult;
class EventsStore;
class MqttOutput;
class MetricsRegistry;
class ResultsStore;
class SnapshotStore;
}  // namespace yolo
namespace yolo::analytics {
class StreamAnalytics;
}

namespace yolo::monitor {

class JsonlWriter;
class SnapshotArchive;
struct StreamConfig;

struct ResultSinkOptions {
  // How often a stream's in-memory snapshot (HTTP snapshot.jpg, dashboard) is refreshed; each
  // refresh copies the frame. 0 = every frame.
  std::chrono::milliseconds live_snapshot_interval{500};
};

class ResultSink {
 public:
  // `results` is required; the others are optional (nullptr: that output is off). All must
  // outlive the sink. The archive needs `snapshots` (it saves what they draw).
  // `events` and `metrics` carry the analytics' events and counts (nullptr: analytics off);
  // `mqtt` publishes events and detections to a broker.
  ResultSink(ResultSinkOptions options, ResultsStore& results, SnapshotStore* snapshots = nullptr,
             JsonlWriter* jsonl = nullptr, SnapshotArchive* archive = nullptr,
             EventsStore* events = nullptr, MetricsRegistry* metrics = nullptr,
             MqttOutput* mqtt = nullptr);
  ~ResultSink();

  void on_sample(const std::string& stream_id, GstSample* sample);
  // The stream's pipeline was (re)built: its track ids start again, so its analytics reset
  // (tracks leave their zones, reason "reset"), or start, or stop if it has none any more.
  void on_pipeline(const StreamConfig& stream);
  // The stream was removed: its results, snapshot, archive timer and frame counter go.
  void on_removed(const std::string& stream_id);

  std::uint64_t output_errors() const { return output_errors_; }

  // The stream's analytics: null when it has none configured, {"state": "counting"}, or
  // {"state": "off", "reason": ...} when its lines or zones do not fit its frames (#57: /streams
  // and /health show it, /counts carries it).
  nlohmann::json analytics_state(const std::string& stream_id);
  // Every stream whose analytics are off now: stream id -> reason.
  std::map<std::string, std::string> analytics_off();

 private:
  struct StreamState {
    std::int64_t frames = 0;
    std::chrono::steady_clock::time_point last_snapshot{};
    bool has_snapshot = false;
    bool warned = false;
    // Lines and zones; the analytics' own lock, as they run on the stream's thread and are
    // reset from the supervisor's.
    std::shared_ptr<analytics::StreamAnalytics> analytics;
    std::shared_ptr<std::mutex> analytics_mutex;
    bool analytics_failed = false;  // the settings do not fit the frame: logged once, off
    std::string analytics_error;    // why, while analytics_failed
    // A rebuilt pipeline may bring frames of another size: its first frame tries the settings
    // again. Until then they stay off, as they were (what is known survives a reconnect).
    bool analytics_retry = false;
    nlohmann::json analytics_keys;  // the settings the analytics were made from
  };
  void output_failed(const std::string& stream_id, const std::string& what);
  // Runs the stream's analytics on a result; the events' JSON (empty without analytics).
  nlohmann::json run_analytics(const std::string& stream_id, const FrameResult& result);
  // To the events store, the MQTT output and the metrics; returns the events with their seq.
  nlohmann::json publish_events(const std::string& stream_id, const nlohmann::json& events,
                                const nlohmann::json& counts);

  const ResultSinkOptions options_;
  ResultsStore& results_;
  SnapshotStore* const snapshots_;
  JsonlWriter* const jsonl_;
  SnapshotArchive* const archive_;
  EventsStore* const events_;
  MetricsRegistry* const metrics_;
  MqttOutput* const mqtt_;
  std::mutex mutex_;
  std::map<std::string, StreamState> streams_;
  std::atomic<std::uint64_t> output_errors_{0};
};

}  // namespace yolo::monitor
