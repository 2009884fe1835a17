#include "yolo/monitor/monitor_metrics.h"

#include "yolo/monitor/stream_manager.h"

namespace yolo::monitor {
namespace {

constexpr StreamState kStates[] = {StreamState::kStarting, StreamState::kRunning,
                                   StreamState::kStalled,  StreamState::kReconnecting,
                                   StreamState::kFailed,   StreamState::kStopped};

}  // namespace

MonitorMetrics::MonitorMetrics(MetricsRegistry& registry, const StreamManager& streams)
    : streams_(streams) {
  registry.declare("yolo_monitor_streams", MetricType::kGauge, "Streams the service runs");
  registry.declare("yolo_monitor_stream_state", MetricType::kGauge,
                   "1 for the stream's current state (starting, running, stalled, reconnecting, "
                   "failed, stopped), 0 for the others",
                   {"stream", "state"});
  registry.declare("yolo_monitor_stream_frames_total", MetricType::kCounter,
                   "Frames of the stream that got detection results", {"stream"});
  registry.declare("yolo_monitor_stream_source_frames_total", MetricType::kCounter,
                   "Frames that arrived from the source; more than frames_total when the model "
                   "is slower than the camera and frames are dropped",
                   {"stream"});
  registry.declare("yolo_monitor_stream_retries_total", MetricType::kCounter,
                   "Pipeline rebuilds after the camera dropped, stalled or failed to start",
                   {"stream"});
  registry.declare("yolo_monitor_stream_fps", MetricType::kGauge,
                   "Frames per second with results, over the last fps window", {"stream"});
  registry.declare("yolo_monitor_stream_last_frame_age_seconds", MetricType::kGauge,
                   "Seconds since the stream's last frame with results", {"stream"});
  handle_ = registry.add_collector([this](MetricsRegistry& r) { collect(r); });
}

void MonitorMetrics::collect(MetricsRegistry& r) {
  std::set<std::string> now;
  for (const std::string& id : streams_.ids()) {
    const auto stats = streams_.stats(id);
    if (!stats) continue;  // removed since ids()
    now.insert(id);
    for (const StreamState s : kStates)
      r.set("yolo_monitor_stream_state", {id, to_string(s)}, stats->state == s ? 1 : 0);
    r.set("yolo_monitor_stream_frames_total", {id}, static_cast<double>(stats->frames));
    r.set("yolo_monitor_stream_source_frames_total", {id},
          static_cast<double>(stats->source_frames));
    r.set("yolo_monitor_stream_retries_total", {id}, static_cast<double>(stats->retries));
    r.set("yolo_monitor_stream_fps", {id}, stats->fps);
    if (stats->last_frame_age)
      r.set("yolo_monitor_stream_last_frame_age_seconds", {id},
            static_cast<double>(stats->last_frame_age->count()) / 1000.0);
  }
  for (const std::string& gone : reported_)
    if (!now.count(gone)) r.remove_series("stream", gone);
  reported_ = std::move(now);
  r.set("yolo_monitor_streams", {}, static_cast<double>(reported_.size()));
}

}  // namespace yolo::monitor
