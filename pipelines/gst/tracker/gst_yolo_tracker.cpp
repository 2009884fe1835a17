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

#include <string>

#include "debug.h"
#include "element_glue.h"
#include "yolo_tracker_logic.h"

using yolo::gst::Change;
using yolo::gst::PropertyTable;
using yolo::gst::TrackerSettings;
using yolo::gst::YoloTrackerLogic;

G_DEFINE_TYPE(GstYoloTracker, gst_yolo_tracker, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(yolotracker, "yolotracker", GST_RANK_NONE, GST_TYPE_YOLO_TRACKER)

namespace {

const PropertyTable<TrackerSettings>& properties() {
  static const PropertyTable<TrackerSettings> table =
      PropertyTable<TrackerSettings>()
          .text("tracker", "Tracker",
                "Tracker settings: botsort.yaml (BoT-SORT with camera motion compensation) or "
                "bytetrack.yaml, built in, or a YAML file with Ultralytics' tracker keys "
                "(docs/tracking.md). Read when the element goes to READY: a bad file is an error "
                "naming the file and the key",
                &TrackerSettings::tracker, Change::kReady)
          .structure("settings", "Tracker settings as a value",
                     "The tracker settings as a \"yolo-tracker-settings\" structure (one field "
                     "per tracker YAML key; yolo/gst/tracker_settings.h), from an application "
                     "that has read them already (yolo-monitor); when set, tracker is not read",
                     &TrackerSettings::settings, Change::kReady)
          .flag("keep-untracked", "Keep untracked",
                "Keep the detections that are not confirmed tracks (new, unmatched or low-score "
                "ones) unchanged and without an id, instead of removing them",
                &TrackerSettings::keep_untracked, Change::kPlaying);
  return table;
}

using Glue = yolo::gst::ElementGlue<GstYoloTracker, TrackerSettings, properties>;

YoloTrackerLogic& impl(gpointer object) {
  return Glue::impl(object);
}

// The settings are read when the element goes to READY, so that a bad file fails
// gst_element_set_state() at once, with the library's message, before any frame flows.
GstStateChangeReturn change_state(GstElement* element, GstStateChange transition) {
  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !impl(element).load(Glue::settings(element)))
    return GST_STATE_CHANGE_FAILURE;
  return GST_ELEMENT_CLASS(gst_yolo_tracker_parent_class)->change_state(element, transition);
}

gboolean start(GstBaseTransform* trans) {
  return impl(trans).start(Glue::settings(trans));
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
  return impl(trans).process(buffer, Glue::setting(trans, &TrackerSettings::keep_untracked));
}

// The `yolo` element's offer to hand its publishing over (result_publisher.h); other queries as
// GstBaseTransform answers them.
gboolean query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* q) {
  if (direction == GST_PAD_SINK && yolo::gst::is_handoff_query(q) &&
      impl(trans).take_over_publishing(q))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS(gst_yolo_tracker_parent_class)->query(trans, direction, q);
}

}  // namespace

static void gst_yolo_tracker_class_init(GstYoloTrackerClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  Glue::init_class(
      object_class,
      "Counters since start: frames, tracked-frames, skipped-frames (not inferred upstream), "
      "tracks (confirmed on the last tracked frame), highest-id (since the last reset), removed "
      "(untracked detections), skipped-detections (non-finite or empty boxes), resets");

  gst_element_class_set_static_metadata(
      element_class, "YOLO object tracker", "Filter/Analyzer/Video",
      "Tracks the detections of the frames' region of interest metas (ByteTrack or BoT-SORT, one "
      "tracker per element): confirmed tracks keep their meta with the tracker's box, the id in "
      "roi->id and a \"tracking\" structure (track-id); other detections are removed unless "
      "keep-untracked. Ids start again at 1 on stream-start, flush-stop, a changed segment and "
      "a new frame size",
      "yolo-edge developers");
  yolo::gst::init_video_filter_class(element_class, trans_class);
  element_class->change_state = change_state;

  trans_class->start = start;
  trans_class->query = query;
  trans_class->stop = stop;
  trans_class->set_caps = set_caps;
  trans_class->sink_event = sink_event;
  trans_class->transform_ip = transform_ip;
}

static void gst_yolo_tracker_init(GstYoloTracker* self) {
  Glue::init_instance(self);
}
