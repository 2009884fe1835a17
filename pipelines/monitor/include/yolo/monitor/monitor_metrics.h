// Prometheus metrics of yolo-monitor, served at /api/v1/metrics: what a person scraping an edge
// box wants to alert on (a camera that stopped, keeps reconnecting or has failed for good; frames
// dropped because the model is slower than the camera) and to graph (fps, frames, retries).
//
// Pulled at every scrape from the stream manager's own counters (StreamStats), so the streams'
// hot paths do nothing extra and the numbers are the ones GET /api/v1/streams shows:
//   yolo_monitor_streams                                      gauge    streams configured
//   yolo_monitor_stream_state{stream, state}                  gauge    1 for the current state
//   yolo_monitor_stream_frames_total{stream}                  counter  frames with results
//   yolo_monitor_stream_source_frames_total{stream}           counter  frames from the source
//   yolo_monitor_stream_retries_total{stream}                 counter  pipeline rebuilds
//   yolo_monitor_stream_fps{stream}                           gauge
//   yolo_monitor_stream_last_frame_age_seconds{stream}        gauge    absent before a frame
// A stream that is removed loses its series at the next scrape.
#pragma once

#include <set>
#include <string>

#include "yolo/serving/metrics_registry.h"

namespace yolo::monitor {

class StreamManager;

class MonitorMetrics {
 public:
  // Both must outlive this object (destroy it first).
  MonitorMetrics(MetricsRegistry& registry, const StreamManager& streams);
  MonitorMetrics(const MonitorMetrics&) = delete;
  MonitorMetrics& operator=(const MonitorMetrics&) = delete;

 private:
  void collect(MetricsRegistry& registry);

  const StreamManager& streams_;
  std::set<std::string> reported_;           // stream ids with series (collector thread only)
  MetricsRegistry::CollectorHandle handle_;  // last: unregistered before the rest goes
};

}  // namespace yolo::monitor
