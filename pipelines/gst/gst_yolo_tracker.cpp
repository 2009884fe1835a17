// GObject glue for the `yolotracker` element; the logic is in yolo_tracker_logic.cpp.
/**
 * SECTION:element-yolotracker
 * @title: yolotracker
 *
 * Multi-object tracking of the detections a frame carries (the `yolo` element's ROI metas, or any
 * detector's with a "detection" params structure): ByteTrack or BoT-SORT as Ultralytics runs
 * them, one tracker per element, so each stream branch has its own ids (from 1).
 *
 * Each detection that belongs to a confirmed track keeps its GstVideoRegionOfInterestMeta, moved
 * to the tracker's (Kalman-filtered) box, with the track id in roi->id and a second params
 * structure "tracking" (track-id, guint64; frames-tracked, guint64). Detections that are not
 * confirmed tracks are removed, as Ultralytics' track reports only tracks; keep-untracked=true
 * keeps them unchanged and without an id. Other elements' regions pass untouched.
 *
 * Ids start again at 1 on STREAM_START, FLUSH_STOP, a SEGMENT that differs from the previous one
 * and CAPS with another frame size (nvtracker's "reset on stream reset"); frames the `yolo` element
 * did not infer
 * (inference-interval, QoS) are passed on without being tracked.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -e filesrc location=video.mp4 ! decodebin ! videoconvert ! \
 *     yolo model=best.pt ! yolotracker tracker=bytetrack.yaml ! yolooverlay trails=30 ! \
 *     videoconvert ! x264enc ! mp4mux ! filesink location=tracked.mp4
 * ]|
 */
#include "gst_yolo_tracker.h"

#include <gst/video/video.h>

#include <new>
#include <string>

#include "debug.h"
#include "video_frames.h"
#include "yolo_tracker_logic.h"

namespace {

using yolo::gst::YoloTrackerLogic;

enum { PROP_0, PROP_TRACKER, PROP_KEEP_UNTRACKED, PROP_STATS };

constexpr const char* kDefaultTracker = "botsort.yaml";
constexpr gboolean kDefaultKeepUntracked = FALSE;

}  // namespace

static GstStaticPadTemplate tracker_sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));
static GstStaticPadTemplate tracker_src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));

G_DEFINE_TYPE(GstYoloTracker, gst_yolo_tracker, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(yolotracker, "yolotracker", GST_RANK_NONE, GST_TYPE_YOLO_TRACKER)

namespace {

YoloTrackerLogic& impl(gpointer object) {
  return *GST_YOLO_TRACKER(object)->impl;
}

std::string tracker_name(GstYoloTracker* self) {
  GST_OBJECT_LOCK(self);
  std::string name = self->tracker ? self->tracker : "";
  GST_OBJECT_UNLOCK(self);
  return name;
}

void set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
  GstYoloTracker* self = GST_YOLO_TRACKER(object);
  if (id == PROP_TRACKER && GST_STATE(self) > GST_STATE_READY) {
    // The tracker is made when the element starts; a change now would silently do nothing.
    GST_WARNING_OBJECT(self, "property 'tracker' can only be changed in the NULL or READY state");
    return;
  }
  GST_OBJECT_LOCK(self);
  switch (id) {
    case PROP_TRACKER:
      g_free(self->tracker);
      self->tracker = g_value_dup_string(value);
      break;
    case PROP_KEEP_UNTRACKED:
      self->keep_untracked = g_value_get_boolean(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

void get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
  GstYoloTracker* self = GST_YOLO_TRACKER(object);
  if (id == PROP_STATS) {
    g_value_take_boxed(value, impl(object).stats_structure());  // takes the object lock itself
    return;
  }
  GST_OBJECT_LOCK(self);
  switch (id) {
    case PROP_TRACKER:
      g_value_set_string(value, self->tracker);
      break;
    case PROP_KEEP_UNTRACKED:
      g_value_set_boolean(value, self->keep_untracked);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

void finalize(GObject* object) {
  GstYoloTracker* self = GST_YOLO_TRACKER(object);
  self->impl.~unique_ptr();
  g_free(self->tracker);
  G_OBJECT_CLASS(gst_yolo_tracker_parent_class)->finalize(object);
}

// The settings are read when the element goes to READY, so that a bad file fails
// gst_element_set_state() at once, with the library's message, before any frame flows.
GstStateChangeReturn change_state(GstElement* element, GstStateChange transition) {
  if (transition == GST_STATE_CHANGE_NULL_TO_READY &&
      !impl(element).load(tracker_name(GST_YOLO_TRACKER(element))))
    return GST_STATE_CHANGE_FAILURE;
  return GST_ELEMENT_CLASS(gst_yolo_tracker_parent_class)->change_state(element, transition);
}

gboolean start(GstBaseTransform* trans) {
  return impl(trans).start(tracker_name(GST_YOLO_TRACKER(trans)));
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
  return GST_BASE_TRANSFORM_CLASS(gst_yolo_tracker_parent_class)->sink_event(trans, event);
}

GstFlowReturn transform_ip(GstBaseTransform* trans, GstBuffer* buffer) {
  GstYoloTracker* self = GST_YOLO_TRACKER(trans);
  GST_OBJECT_LOCK(self);
  const bool keep_untracked = self->keep_untracked;
  GST_OBJECT_UNLOCK(self);
  return impl(trans).process(buffer, keep_untracked);
}

// The `yolo` element's offer to hand its publishing over (result_publisher.h); other queries as
// GstBaseTransform answers them.
gboolean query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* q) {
  if (direction == GST_PAD_SINK && yolo::gst::is_handoff_query(q) &&
      impl(trans).take_over_publishing(q))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS(gst_yolo_tracker_parent_class)->query(trans, direction, q);
}

// Upstream may send padded frames (GstVideoMeta), and the ROI metas are what this element reads.
gboolean propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* q) {
  return yolo::gst::propose_with_frame_metas(
      GST_BASE_TRANSFORM_CLASS(gst_yolo_tracker_parent_class), trans, decide_query, q);
}

void install_properties(GObjectClass* object_class) {
  g_object_class_install_property(
      object_class, PROP_TRACKER,
      g_param_spec_string(
          "tracker", "Tracker",
          "Tracker settings: botsort.yaml (BoT-SORT with camera motion compensation) or "
          "bytetrack.yaml, built in, or a YAML file with Ultralytics' tracker keys "
          "(docs/tracking.md). Read when the element goes to READY: a bad file is an error "
          "naming the file and the key",
          kDefaultTracker,
          static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                   GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property(
      object_class, PROP_KEEP_UNTRACKED,
      g_param_spec_boolean(
          "keep-untracked", "Keep untracked",
          "Keep the detections that are not confirmed tracks (new, unmatched or low-score ones) "
          "unchanged and without an id, instead of removing them",
          kDefaultKeepUntracked,
          static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                   GST_PARAM_MUTABLE_PLAYING)));
  g_object_class_install_property(
      object_class, PROP_STATS,
      g_param_spec_boxed(
          "stats", "Statistics",
          "Counters since start: frames, tracked-frames, skipped-frames (not inferred "
          "upstream), tracks (confirmed on the last tracked frame), highest-id (since the last "
          "reset), removed (untracked detections), skipped-detections (non-finite or empty "
          "boxes), resets",
          GST_TYPE_STRUCTURE, static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

}  // namespace

static void gst_yolo_tracker_class_init(GstYoloTrackerClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  object_class->set_property = set_property;
  object_class->get_property = get_property;
  object_class->finalize = finalize;
  install_properties(object_class);

  gst_element_class_set_static_metadata(
      element_class, "YOLO object tracker", "Filter/Analyzer/Video",
      "Tracks the detections of the frames' region of interest metas (ByteTrack or BoT-SORT, one "
      "tracker per element): confirmed tracks keep their meta with the tracker's box, the id in "
      "roi->id and a \"tracking\" structure (track-id); other detections are removed unless "
      "keep-untracked. Ids start again at 1 on stream-start, flush-stop, a changed segment and "
      "a new frame size",
      "yolo-edge developers");
  gst_element_class_add_static_pad_template(element_class, &tracker_sink_template);
  gst_element_class_add_static_pad_template(element_class, &tracker_src_template);
  element_class->change_state = change_state;

  trans_class->start = start;
  trans_class->query = query;
  trans_class->stop = stop;
  trans_class->set_caps = set_caps;
  trans_class->sink_event = sink_event;
  trans_class->transform_ip = transform_ip;
  trans_class->propose_allocation = propose_allocation;
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
}

static void gst_yolo_tracker_init(GstYoloTracker* self) {
  self->tracker = g_strdup(kDefaultTracker);
  self->keep_untracked = kDefaultKeepUntracked;
  new (&self->impl) std::unique_ptr<YoloTrackerLogic>(
      std::make_unique<YoloTrackerLogic>(GST_BASE_TRANSFORM(self)));
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
