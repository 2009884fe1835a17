// GObject glue for the `yoloanalytics` element; the logic is in yolo_analytics_logic.cpp.
/**
 * SECTION:element-yoloanalytics
 * @title: yoloanalytics
 *
 * Counting lines and zones on tracked detections (after yolotracker): line crossings per class
 * and direction (Ultralytics' ObjectCounter), zone entries, exits, occupancy and dwell
 * (docs/analytics.md). Each analysed frame gets a "YoloAnalyticsMeta" custom meta with the
 * events it caused, the counts and the lines and zones in pixels (JSON texts), which yolooverlay
 * draws and yolopublish sends; with post-messages a "yolo-analytics" element message carries the
 * frame's events. The analytics start again, like the tracker's ids, on stream-start,
 * flush-stop, a changed segment and a new frame size.
 *
 * config is an analytics YAML (units, anchor, track_timeout, lines, zones) or a yolo-monitor
 * configuration, whose streams: entry with id equal to stream-id is used.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -e filesrc location=video.mp4 ! decodebin ! videoconvert ! \
 *     yolo model=best.pt conf-threshold=0.1 ! yolotracker tracker=bytetrack.yaml ! \
 *     yoloanalytics config=lines.yaml stream-id=door ! yolooverlay ! \
 *     videoconvert ! x264enc ! mp4mux ! filesink location=counted.mp4
 * ]|
 */
#include "gst_yolo_analytics.h"

#include <gst/video/video.h>

#include <string>

#include "debug.h"
#include "element_glue.h"
#include "yolo_analytics_logic.h"

using yolo::gst::AnalyticsSettings;
using yolo::gst::Change;
using yolo::gst::EmptyText;
using yolo::gst::PropertyTable;
using yolo::gst::YoloAnalyticsLogic;

G_DEFINE_TYPE(GstYoloAnalytics, gst_yolo_analytics, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(yoloanalytics, "yoloanalytics", GST_RANK_NONE, GST_TYPE_YOLO_ANALYTICS)

namespace {

const PropertyTable<AnalyticsSettings>& properties() {
  static const PropertyTable<AnalyticsSettings> table =
      PropertyTable<AnalyticsSettings>()
          .text("config", "Config",
                "Lines and zones: an analytics YAML (units, anchor, track_timeout, lines, zones; "
                "docs/analytics.md) or a yolo-monitor configuration whose streams: entry named by "
                "stream-id holds them. Read when the element goes to READY: a bad file is an "
                "error naming the file and the key",
                &AnalyticsSettings::config, Change::kReady, EmptyText::kNull)
          .text("stream-id", "Stream id",
                "The stream's name in events, and the entry of a yolo-monitor configuration to "
                "use (default: the element's name)",
                &AnalyticsSettings::stream_id, Change::kReady, EmptyText::kNull)
          .flag("post-messages", "Post messages",
                "Post a \"yolo-analytics\" element message (stream-id, events: a JSON array) for "
                "each frame that caused events",
                &AnalyticsSettings::post_messages, Change::kPlaying);
  return table;
}

using Glue = yolo::gst::ElementGlue<GstYoloAnalytics, AnalyticsSettings, properties>;

YoloAnalyticsLogic& impl(gpointer object) {
  return Glue::impl(object);
}

// The settings are read going to READY: a bad file fails the state change at once. The stream id
// defaults to the element's name.
GstStateChangeReturn change_state(GstElement* element, GstStateChange transition) {
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    const AnalyticsSettings s = Glue::settings(element);
    const std::string id = s.stream_id.empty() ? GST_OBJECT_NAME(element) : s.stream_id;
    if (!impl(element).load(s.config, id)) return GST_STATE_CHANGE_FAILURE;
  }
  return GST_ELEMENT_CLASS(gst_yolo_analytics_parent_class)->change_state(element, transition);
}

gboolean start(GstBaseTransform* trans) {
  return impl(trans).start();
}

gboolean stop(GstBaseTransform* trans) {
  impl(trans).stop();
  return TRUE;
}

gboolean set_caps(GstBaseTransform* trans, GstCaps* incaps, GstCaps*) {
  return impl(trans).set_caps(incaps);
}

gboolean sink_event(GstBaseTransform* trans, GstEvent* event) {
  impl(trans).on_event(event);
  return GST_BASE_TRANSFORM_CLASS(gst_yolo_analytics_parent_class)->sink_event(trans, event);
}

GstFlowReturn transform_ip(GstBaseTransform* trans, GstBuffer* buffer) {
  return impl(trans).process(buffer, Glue::setting(trans, &AnalyticsSettings::post_messages));
}

}  // namespace

static void gst_yolo_analytics_class_init(GstYoloAnalyticsClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  Glue::init_class(
      object_class,
      "Counters since start: frames, analysed (frames the detector ran on), events, resets");
  gst_element_class_set_static_metadata(
      element_class, "YOLO line and zone analytics", "Filter/Analyzer/Video",
      "Counts tracked detections crossing lines (per class and direction) and entering, leaving "
      "and dwelling in zones; puts the frame's events, the counts and the geometry on a "
      "YoloAnalyticsMeta",
      "yolo-edge developers");
  yolo::gst::init_video_filter_class(element_class, trans_class);
  element_class->change_state = change_state;
  trans_class->start = start;
  trans_class->stop = stop;
  trans_class->set_caps = set_caps;
  trans_class->sink_event = sink_event;
  trans_class->transform_ip = transform_ip;
}

static void gst_yolo_analytics_init(GstYoloAnalytics* self) {
  Glue::init_instance(self);
}
