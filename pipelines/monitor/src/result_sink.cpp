#include "yolo/monitor/result_sink.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "yolo/analytics/analytics_json.h"
#include "yolo/analytics/stream_analytics.h"
#include "yolo/monitor/jsonl_writer.h"
#include "yolo/monitor/monitor_config.h"
#include "yolo/monitor/sample_results.h"
#include "yolo/monitor/snapshot_archive.h"
#include "yolo/serving/events_store.h"
#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/mqtt_output.h"
#include "yolo/serving/results_store.h"
#include "yolo/serving/snapshot_store.h"

namespace yolo::monitor {

using Clock = std::chrono::steady_clock;

ResultSink::ResultSink(ResultSinkOptions options, ResultsStore& results, SnapshotStore* snapshots,
                       JsonlWriter* jsonl, SnapshotArchive* archive, EventsStore* events,
                       MetricsRegistry* metrics, MqttOutput* mqtt)
    : options_(options),
      results_(results),
      snapshots_(snapshots),
      jsonl_(jsonl),
      archive_(archive),
      events_(events),
      metrics_(metrics),
      mqtt_(mqtt) {
  if (metrics_) {
    metrics_->declare("yolo_line_crossings_total", MetricType::kCounter,
                      "Tracks counted crossing a line", {"stream", "line", "class", "direction"});
    metrics_->declare("yolo_zone_occupancy", MetricType::kGauge, "Tracks in a zone now",
                      {"stream", "zone"});
    metrics_->declare("yolo_zone_entries_total", MetricType::kCounter, "Tracks that entered a zone",
                      {"stream", "zone", "class"});
    metrics_->declare("yolo_analytics_events_total", MetricType::kCounter,
                      "Analytics events by type", {"stream", "type"});
    metrics_->declare("yolo_monitor_output_errors_total", MetricType::kCounter,
                      "Results an output (JSON lines, snapshot archive, results or events store) "
                      "could not take: a full disk, a file size limit",
                      {"stream"});
  }
  if (archive_ && !snapshots_) {
    throw std::invalid_argument("result sink: the snapshot archive needs a snapshot store");
  }
  if (options_.live_snapshot_interval.count() < 0) {
    throw std::invalid_argument("result sink: live_snapshot_interval must be >= 0");
  }
}

ResultSink::~ResultSink() = default;

void ResultSink::on_pipeline(const StreamConfig& stream) {
  std::shared_ptr<analytics::StreamAnalytics> previous, fresh;
  std::shared_ptr<std::mutex> previous_mutex;
  int64_t frames = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& s = streams_[stream.id];
    frames = s.frames;
    if (!stream.analytics || !events_) {
      // None (any more: a reload took them away): nothing stale is served.
      if (s.analytics && events_) events_->remove_stream(stream.id);
      s.analytics.reset();
      s.analytics_mutex.reset();
      s.analytics_keys = nlohmann::json();
      return;
    }
    const bool new_keys = s.analytics_keys != stream.analytics_keys;
    if (!s.analytics || s.analytics_failed || new_keys) {
      // First start, a retry after settings that did not fit, or new settings from a reload.
      s.analytics = std::make_shared<analytics::StreamAnalytics>(stream.id, *stream.analytics);
      s.analytics_mutex = std::make_shared<std::mutex>();
      s.analytics_keys = stream.analytics_keys;
      if (s.analytics_failed && !new_keys) {
        // The same settings: off, with the same reason, until a frame of the new pipeline fits.
        s.analytics_retry = true;
        return;
      }
      s.analytics_failed = false;
      s.analytics_retry = false;
      s.analytics_error.clear();
      fresh = s.analytics;
    } else {
      previous = s.analytics;
      previous_mutex = s.analytics_mutex;
    }
  }
  if (fresh) {
    try {
      events_->set_counts(stream.id, analytics::counts_json(*fresh));
    } catch (const std::exception& e) {  // more streams than the store allows
      output_failed(stream.id, std::string("events store refused the stream: ") + e.what());
    }
    return;
  }
  // A rebuilt pipeline: the tracker's ids start again, so every track leaves.
  analytics::AnalyticsFrame at;
  at.frame = frames;
  at.wall_time = std::chrono::system_clock::now();
  std::vector<analytics::AnalyticsEvent> events;
  nlohmann::json counts;
  {
    std::lock_guard<std::mutex> lock(*previous_mutex);
    events = previous->reset(at);
    counts = analytics::counts_json(*previous);
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : events) list.push_back(analytics::to_json(e));
  publish_events(stream.id, list, counts);
}

nlohmann::json ResultSink::run_analytics(const std::string& stream_id, const FrameResult& result) {
  std::shared_ptr<analytics::StreamAnalytics> a;
  std::shared_ptr<std::mutex> m;
  bool retry = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(stream_id);
    if (it == streams_.end() || !it->second.analytics ||
        (it->second.analytics_failed && !it->second.analytics_retry))
      return nlohmann::json::array();
    a = it->second.analytics;
    m = it->second.analytics_mutex;
    retry = it->second.analytics_retry;
  }
  analytics::AnalyticsFrame f;
  f.frame = result.frame;
  f.pts_ns = result.pts_ns;
  f.wall_time = result.wall_time;
  f.width = result.width;
  f.height = result.height;
  for (const Detection& d : result.detections) {
    if (d.track_id > 0)
      f.objects.push_back({d.track_id, d.class_id, d.class_name, d.x1, d.y1, d.x2, d.y2});
  }
  std::vector<analytics::AnalyticsEvent> events;
  nlohmann::json counts;
  try {
    std::lock_guard<std::mutex> lock(*m);
    events = a->update(f);
    counts = analytics::counts_json(*a);
  } catch (const std::invalid_argument& e) {
    // Lines or zones outside this stream's frames: the stream keeps running without them, and
    // says so where counts are read (/counts), besides /streams and /health.
    bool again = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto& s = streams_[stream_id];
      again = s.analytics_failed && s.analytics_error == e.what();
      s.analytics_failed = true;
      s.analytics_retry = false;
      s.analytics_error = e.what();
    }
    if (again) return nlohmann::json::array();  // a replay of what is already said and stored
    spdlog::error("stream {}: analytics off (tried again when the stream restarts): {}", stream_id,
                  e.what());
    try {
      nlohmann::json off;
      {
        std::lock_guard<std::mutex> lock(*m);
        off = analytics::counts_json(*a);
      }
      off["analytics"] = {{"state", "off"}, {"reason", e.what()}};
      events_->set_counts(stream_id, off);
    } catch (const std::exception& store) {
      output_failed(stream_id, std::string("events store refused the stream: ") + store.what());
    }
    return nlohmann::json::array();
  }
  if (retry) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& s = streams_[stream_id];
    if (s.analytics_retry) {  // the new pipeline's frames fit: counting again
      s.analytics_failed = s.analytics_retry = false;
      s.analytics_error.clear();
      spdlog::info("stream {}: analytics on again (the frames fit the lines and zones)", stream_id);
    }
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : events) list.push_back(analytics::to_json(e));
  return publish_events(stream_id, list, counts);
}

nlohmann::json ResultSink::publish_events(const std::string& stream_id,
                                          const nlohmann::json& events,
                                          const nlohmann::json& counts) {
  // Each event with its store's seq, so that every output (HTTP, JSON lines, MQTT) names it alike.
  nlohmann::json stored = nlohmann::json::array();
  try {
    for (nlohmann::json e : events) {
      e["seq"] = events_->publish(stream_id, e);
      stored.push_back(std::move(e));
    }
    events_->set_counts(stream_id, counts);
  } catch (const std::exception& e) {  // more streams than the store allows
    output_failed(stream_id, std::string("events store refused an event: ") + e.what());
  }
  if (mqtt_) mqtt_->publish_events(stream_id, stored);
  if (!metrics_) return stored;
  for (const auto& e : stored) {
    const std::string type = e["type"];
    metrics_->add("yolo_analytics_events_total", {stream_id, type});
    if (type == "line_crossed") {
      metrics_->add("yolo_line_crossings_total",
                    {stream_id, e["line"], e["class_name"], e["direction"]});
    } else if (type == "zone_entered") {
      metrics_->add("yolo_zone_entries_total", {stream_id, e["zone"], e["class_name"]});
    }
  }
  for (const auto& z : counts["zones"])
    metrics_->set("yolo_zone_occupancy", {stream_id, z["name"]}, z["occupancy"].get<double>());
  return stored;
}

nlohmann::json ResultSink::analytics_state(const std::string& stream_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = streams_.find(stream_id);
  if (it == streams_.end() || !it->second.analytics) return nullptr;
  if (it->second.analytics_failed)
    return {{"state", "off"}, {"reason", it->second.analytics_error}};
  return {{"state", "counting"}};
}

std::map<std::string, std::string> ResultSink::analytics_off() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, std::string> off;
  for (const auto& [id, s] : streams_)
    if (s.analytics && s.analytics_failed) off[id] = s.analytics_error;
  return off;
}

void ResultSink::output_failed(const std::string& stream_id, const std::string& what) {
  ++output_errors_;
  if (metrics_) metrics_->add("yolo_monitor_output_errors_total", {stream_id});
  std::lock_guard<std::mutex> lock(mutex_);
  auto& s = streams_[stream_id];
  if (!s.warned) {  // once per stream: a full disk must not flood the log at frame rate
    s.warned = true;
    spdlog::error("stream {}: {} (further failures of this stream are counted, not logged)",
                  stream_id, what);
  }
}

void ResultSink::on_sample(const std::string& stream_id, GstSample* sample) {
  const auto now = Clock::now();
  std::int64_t frame;
  bool refresh_snapshot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& s = streams_[stream_id];
    frame = s.frames++;
    refresh_snapshot =
        snapshots_ && (!s.has_snapshot || now - s.last_snapshot >= options_.live_snapshot_interval);
    if (refresh_snapshot) {
      s.last_snapshot = now;
      s.has_snapshot = true;
    }
  }
  FrameResult result = frame_result_from_sample(sample, stream_id, frame);
  if (refresh_snapshot) {
    // Keyed by the result, so the drawn boxes are this frame's.
    with_bgr_frame(sample, [&](const cv::Mat& bgr) { snapshots_->put(result, bgr); });
  }
  try {
    result.seq = results_.publish(result);
  } catch (const std::exception& e) {  // e.g. more streams than the store allows
    output_failed(stream_id, std::string("results store refused a result: ") + e.what());
  }
  const nlohmann::json events = run_analytics(stream_id, result);
  if (mqtt_) mqtt_->publish_detections(result);
  if (jsonl_) {
    try {
      if (events.empty()) {
        jsonl_->write(result);
      } else {
        nlohmann::json line = to_json(result);
        line["events"] = events;
        jsonl_->write(line);
      }
    } catch (const std::exception& e) {
      output_failed(stream_id, e.what());
    }
  }
  if (archive_ && refresh_snapshot && archive_->due(stream_id, now)) {
    try {
      if (const auto jpeg = snapshots_->jpeg(stream_id)) {
        archive_->save(stream_id, *jpeg, result.wall_time, now);
      }
    } catch (const std::exception& e) {
      output_failed(stream_id, e.what());
    }
  }
}

void ResultSink::on_removed(const std::string& stream_id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_.erase(stream_id);
  }
  results_.remove_stream(stream_id);
  if (events_) events_->remove_stream(stream_id);
  if (mqtt_) mqtt_->forget(stream_id);
  if (metrics_) metrics_->remove_series("stream", stream_id);  // its counts go with it
  if (snapshots_) snapshots_->remove(stream_id);
  if (archive_) archive_->forget(stream_id);
}

}  // namespace yolo::monitor
