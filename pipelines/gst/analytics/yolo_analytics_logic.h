// Logic of the `yoloanalytics` element, plain C++; the GObject glue is in gst_yolo_analytics.cpp.
//
// The element's state and streaming work (docs/gst-yolo.md describes the element).
//
// After yolotracker: per frame, the tracked detections (ROI metas with a track id, exact boxes)
// go through the stream's analytics (yolo/analytics/stream_analytics.h); the frame gets a
// YoloAnalyticsMeta (yolo/gst/analytics_meta.h) with this frame's events, the counts and the
// lines and zones in pixels, and, with post-messages, a "yolo-analytics" element message when
// it caused events. Frames the `yolo` element did not infer pass without analysis, as the
// tracker skips them. The analytics start again (tracks leave their zones, reason "reset") on
// the events after which yolotracker's ids start again (id_reset_rule.h).
//
// The settings file is an analytics YAML (docs/analytics.md) or a yolo-monitor configuration
// whose `streams:` entry with this element's stream-id holds the lines and zones: one file for
// both. Threads: everything but the stats runs on the streaming thread; stats under the object
// lock.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "id_reset_rule.h"
#include "yolo/analytics/stream_analytics.h"

namespace yolo::gst {

struct AnalyticsStats {
  uint64_t frames = 0;    // buffers received
  uint64_t analysed = 0;  // frames given to the analytics
  uint64_t events = 0;    // events since start
  uint64_t resets = 0;
};

// The element's properties (gst_yolo_analytics.cpp's table).
struct AnalyticsSettings {
  std::string config;     // analytics or yolo-monitor YAML; read going to READY
  std::string stream_id;  // "" = the element's name
  bool post_messages = false;
};

class YoloAnalyticsLogic {
 public:
  explicit YoloAnalyticsLogic(GstBaseTransform* element) : element_(element) {}
  YoloAnalyticsLogic(const YoloAnalyticsLogic&) = delete;
  YoloAnalyticsLogic& operator=(const YoloAnalyticsLogic&) = delete;

  // NULL -> READY: reads the settings. A problem posts an element error that names the file and
  // the key, and returns false.
  bool load(const std::string& config_path, const std::string& stream_id);
  bool start();  // READY -> PAUSED: fresh analytics
  void stop();
  bool set_caps(GstCaps* caps);
  void on_event(GstEvent* event);
  GstFlowReturn process(GstBuffer* buffer, bool post_messages);
  GstStructure* stats_structure() const;

 private:
  GstBaseTransform* element_;  // owns this object
  std::string stream_id_;
  std::optional<analytics::AnalyticsConfig> config_;
  std::optional<analytics::StreamAnalytics> analytics_;
  std::optional<analytics::AnalyticsConfig> placed_;  // in the current caps' pixels
  GstVideoInfo info_{};
  bool have_caps_ = false;
  IdResetRule resets_;
  nlohmann::json pending_ = nlohmann::json::array();  // reset events for the next frame
  uint64_t next_seq_ = 1;
  uint64_t unmarked_frames_ = 0;
  AnalyticsStats stats_;  // under the object lock
};

// Reads the analytics settings of `stream_id` from `path` (see the header comment); throws
// std::invalid_argument naming the file, the stream and the key.
analytics::AnalyticsConfig load_stream_analytics(const std::string& path,
                                                 const std::string& stream_id);

}  // namespace yolo::gst
