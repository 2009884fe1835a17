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

#include <new>
#include <string>

#include "debug.h"
#include "video_frames.h"
#include "yolo_analytics_logic.h"

namespace {

using yolo::gst::YoloAnalyticsLogic;

enum { PROP_0, PROP_CONFIG, PROP_STREAM_ID, PROP_POST_MESSAGES, PROP_STATS };

constexpr gboolean kDefaultPostMessages = FALSE;

}  // namespace

static GstStaticPadTemplate analytics_sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));
static GstStaticPadTemplate analytics_src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));

G_DEFINE_TYPE(GstYoloAnalytics, gst_yolo_analytics, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(yoloanalytics, "yoloanalytics", GST_RANK_NONE, GST_TYPE_YOLO_ANALYTICS)

namespace {

YoloAnalyticsLogic& impl(gpointer object) {
  return *GST_YOLO_ANALYTICS(object)->impl;
}

// config and stream-id under the object lock; the stream id defaults to the element's name.
std::pair<std::string, std::string> settings_of(GstYoloAnalytics* self) {
  GST_OBJECT_LOCK(self);
  std::string config = self->config ? self->config : "";
  std::string id = self->stream_id && *self->stream_id ? self->stream_id : GST_OBJECT_NAME(self);
  GST_OBJECT_UNLOCK(self);
  return {config, id};
}

void set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
  GstYoloAnalytics* self = GST_YOLO_ANALYTICS(object);
  if ((id == PROP_CONFIG || id == PROP_STREAM_ID) && GST_STATE(self) > GST_STATE_READY) {
    GST_WARNING_OBJECT(self, "property '%s' can only be changed in the NULL or READY state",
                       pspec->name);
    return;
  }
  GST_OBJECT_LOCK(self);
  switch (id) {
    case PROP_CONFIG:
      g_free(self->config);
      self->config = g_value_dup_string(value);
      break;
    case PROP_STREAM_ID:
      g_free(self->stream_id);
      self->stream_id = g_value_dup_string(value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

void get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
  GstYoloAnalytics* self = GST_YOLO_ANALYTICS(object);
  if (id == PROP_STATS) {
    g_value_take_boxed(value, impl(object).stats_structure());
    return;
  }
  GST_OBJECT_LOCK(self);
  switch (id) {
    case PROP_CONFIG:
      g_value_set_string(value, self->config);
      break;
    case PROP_STREAM_ID:
      g_value_set_string(value, self->stream_id);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean(value, self->post_messages);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

void finalize(GObject* object) {
  GstYoloAnalytics* self = GST_YOLO_ANALYTICS(object);
  self->impl.~unique_ptr();
  g_free(self->config);
  g_free(self->stream_id);
  G_OBJECT_CLASS(gst_yolo_analytics_parent_class)->finalize(object);
}

// The settings are read going to READY: a bad file fails the state change at once.
GstStateChangeReturn change_state(GstElement* element, GstStateChange transition) {
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    const auto [config, id] = settings_of(GST_YOLO_ANALYTICS(element));
    if (!impl(element).load(config, id)) return GST_STATE_CHANGE_FAILURE;
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
  GstYoloAnalytics* self = GST_YOLO_ANALYTICS(trans);
  GST_OBJECT_LOCK(self);
  const bool post = self->post_messages;
  GST_OBJECT_UNLOCK(self);
  return impl(trans).process(buffer, post);
}

gboolean propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* q) {
  return yolo::gst::propose_with_frame_metas(
      GST_BASE_TRANSFORM_CLASS(gst_yolo_analytics_parent_class), trans, decide_query, q);
}

void install_properties(GObjectClass* object_class) {
  const auto ready = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                              GST_PARAM_MUTABLE_READY);
  g_object_class_install_property(
      object_class, PROP_CONFIG,
      g_param_spec_string("config", "Config",
                          "Lines and zones: an analytics YAML (units, anchor, track_timeout, "
                          "lines, zones; docs/analytics.md) or a yolo-monitor configuration whose "
                          "streams: entry named by stream-id holds them. Read when the element "
                          "goes to READY: a bad file is an error naming the file and the key",
                          nullptr, ready));
  g_object_class_install_property(
      object_class, PROP_STREAM_ID,
      g_param_spec_string("stream-id", "Stream id",
                          "The stream's name in events, and the entry of a yolo-monitor "
                          "configuration to use (default: the element's name)",
                          nullptr, ready));
  g_object_class_install_property(
      object_class, PROP_POST_MESSAGES,
      g_param_spec_boolean("post-messages", "Post messages",
                           "Post a \"yolo-analytics\" element message (stream-id, events: a JSON "
                           "array) for each frame that caused events",
                           kDefaultPostMessages,
                           static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                    GST_PARAM_MUTABLE_PLAYING)));
  g_object_class_install_property(
      object_class, PROP_STATS,
      g_param_spec_boxed("stats", "Statistics",
                         "Counters since start: frames, analysed (frames the detector ran on), "
                         "events, resets",
                         GST_TYPE_STRUCTURE,
                         static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

}  // namespace

static void gst_yolo_analytics_class_init(GstYoloAnalyticsClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  object_class->set_property = set_property;
  object_class->get_property = get_property;
  object_class->finalize = finalize;
  install_properties(object_class);
  gst_element_class_set_static_metadata(
      element_class, "YOLO line and zone analytics", "Filter/Analyzer/Video",
      "Counts tracked detections crossing lines (per class and direction) and entering, leaving "
      "and dwelling in zones; puts the frame's events, the counts and the geometry on a "
      "YoloAnalyticsMeta",
      "yolo-edge developers");
  gst_element_class_add_static_pad_template(element_class, &analytics_sink_template);
  gst_element_class_add_static_pad_template(element_class, &analytics_src_template);
  element_class->change_state = change_state;
  trans_class->start = start;
  trans_class->stop = stop;
  trans_class->set_caps = set_caps;
  trans_class->sink_event = sink_event;
  trans_class->transform_ip = transform_ip;
  trans_class->propose_allocation = propose_allocation;
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
}

static void gst_yolo_analytics_init(GstYoloAnalytics* self) {
  self->config = nullptr;
  self->stream_id = nullptr;
  self->post_messages = kDefaultPostMessages;
  new (&self->impl) std::unique_ptr<YoloAnalyticsLogic>(
      std::make_unique<YoloAnalyticsLogic>(GST_BASE_TRANSFORM(self)));
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
