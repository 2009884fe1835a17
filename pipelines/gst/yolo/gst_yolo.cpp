// GObject glue for the `yolo` element; the logic is in yolo_logic.cpp.
/**
 * SECTION:element-yolo
 * @title: yolo
 *
 * YOLO object detection (YOLOv8, YOLO11, YOLO26 detectors trained by yolo-trainer,
 * Ultralytics TorchScript exports or Ultralytics .pt files) on raw video. Frames pass through
 * unchanged, each with one GstVideoRegionOfInterestMeta per detection (params structure
 * "detection": confidence, class-id, label, normalised x_min/y_min/x_max/y_max). Elements with the
 * same model-instance-id share one model and are batched together across streams.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=video.mp4 ! decodebin ! videoconvert ! \
 *     yolo model=best.pt draw=true http-port=8080 ! videoconvert ! autovideosink
 * ]|
 */
#include "gst_yolo.h"

#include <gst/video/gstvideometa.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

#include "debug.h"
#include "element_glue.h"
#include "element_settings.h"
#include "video_frames.h"
#include "yolo_logic.h"

GST_DEBUG_CATEGORY(gst_yolo_debug);

using yolo::gst::ElementSettings;
using yolo::gst::YoloLogic;

G_DEFINE_TYPE(GstYolo, gst_yolo, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(yolo, "yolo", GST_RANK_NONE, GST_TYPE_YOLO)

namespace {

YoloLogic& impl(gpointer object) {
  return *GST_YOLO(object)->impl;
}

// Writes through the logic, which holds the settings under its own lock; the check adds bf16's
// choices to the table's ranges (ElementSettings::problems).
void set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
  yolo::gst::set_table_property(
      object, yolo::gst::yolo_properties(),
      [&](const auto& change) { impl(object).update_settings(change); },
      [](const ElementSettings& s) { return s.problems(); }, id, value, pspec);
}

void get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
  if (id == yolo::gst::yolo_properties().size() + 1) {  // stats
    g_value_take_boxed(value, impl(object).stats_structure());
    return;
  }
  if (!yolo::gst::yolo_properties().read(impl(object).settings(), id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

void finalize(GObject* object) {
  yolo::gst::destroy_member(GST_YOLO(object)->impl);
  G_OBJECT_CLASS(gst_yolo_parent_class)->finalize(object);
}

gboolean start(GstBaseTransform* trans) {
  return impl(trans).start();
}
gboolean stop(GstBaseTransform* trans) {
  return impl(trans).stop();
}

gboolean set_caps(GstBaseTransform* trans, GstCaps* incaps, GstCaps*) {
  return impl(trans).set_caps(incaps);
}

// Chains up first: the base class renegotiates when downstream asked for it and parks the
// buffer in queued_buf. Its QoS dropping never triggers, because src_event keeps QOS events
// from it (the element drops inference, not frames).
GstFlowReturn submit_input_buffer(GstBaseTransform* trans, gboolean is_discont, GstBuffer* input) {
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS(gst_yolo_parent_class)
                          ->submit_input_buffer(trans, is_discont, input);
  if (ret != GST_FLOW_OK) return ret;
  GstBuffer* buffer = trans->queued_buf;
  trans->queued_buf = nullptr;
  if (!buffer) return GST_FLOW_OK;
  return impl(trans).submit(buffer);
}

// Frames leave from the element's output thread as their results arrive, never from here.
GstFlowReturn generate_output(GstBaseTransform*, GstBuffer** outbuf) {
  *outbuf = nullptr;
  return GST_FLOW_OK;
}

// Never called (generate_output is overridden); its presence keeps the base class in in-place
// mode, which is what allocation queries and buffer writability follow.
GstFlowReturn transform_ip(GstBaseTransform*, GstBuffer*) {
  return GST_FLOW_OK;
}

gboolean sink_event(GstBaseTransform* trans, GstEvent* event) {
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_START:
      impl(trans).flush_start();
      break;
    case GST_EVENT_FLUSH_STOP:
      impl(trans).flush_stop();
      break;
    default:
      // Serialized events follow the frames before them: EOS drains a partial batch first.
      if (GST_EVENT_IS_SERIALIZED(event) && !impl(trans).drain()) {
        gst_event_unref(event);
        return FALSE;
      }
      break;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_yolo_parent_class)->sink_event(trans, event);
}

gboolean src_event(GstBaseTransform* trans, GstEvent* event) {
  if (GST_EVENT_TYPE(event) == GST_EVENT_QOS) {
    GstQOSType type;
    gdouble proportion;
    GstClockTimeDiff diff;
    GstClockTime timestamp;
    gst_event_parse_qos(event, &type, &proportion, &diff, &timestamp);
    impl(trans).on_qos(diff, timestamp);
    return gst_pad_push_event(GST_BASE_TRANSFORM_SINK_PAD(trans), event);
  }
  return GST_BASE_TRANSFORM_CLASS(gst_yolo_parent_class)->src_event(trans, event);
}

gboolean query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* q) {
  gboolean ok = GST_BASE_TRANSFORM_CLASS(gst_yolo_parent_class)->query(trans, direction, q);
  if (ok && direction == GST_PAD_SRC && GST_QUERY_TYPE(q) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max;
    gst_query_parse_latency(q, &live, &min, &max);
    const GstClockTime added = impl(trans).added_latency();
    min += added;
    if (GST_CLOCK_TIME_IS_VALID(max)) max += added;
    gst_query_set_latency(q, live, min, max);
    GST_DEBUG_OBJECT(trans, "latency: added %" GST_TIME_FORMAT " of batching wait",
                     GST_TIME_ARGS(added));
  }
  return ok;
}

}  // namespace

static void gst_yolo_class_init(GstYoloClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  object_class->set_property = set_property;
  object_class->get_property = get_property;
  object_class->finalize = finalize;
  yolo::gst::yolo_properties().install(object_class);
  yolo::gst::install_stats_property(
      object_class, yolo::gst::yolo_properties().size() + 1,
      "Counters: frames, inferred, skipped-interval, skipped-qos, dropped, unfit, and of the "
      "(shared) "
      "model: model-batches, model-frames, largest-batch, model-swaps");

  gst_element_class_set_static_metadata(
      element_class, "YOLO object detector", "Filter/Analyzer/Video",
      "Detects objects with a YOLO model (YOLOv8, YOLO11, YOLO26) and attaches them as region "
      "of interest metas; optionally draws them and serves them over HTTP",
      "yolo-edge developers");
  yolo::gst::init_video_filter_class(element_class, trans_class);

  trans_class->start = start;
  trans_class->stop = stop;
  trans_class->set_caps = set_caps;
  trans_class->submit_input_buffer = submit_input_buffer;
  trans_class->generate_output = generate_output;
  trans_class->transform_ip = transform_ip;
  trans_class->sink_event = sink_event;
  trans_class->src_event = src_event;
  trans_class->query = query;

  GST_DEBUG_CATEGORY_INIT(gst_yolo_debug, "yolo", 0, "YOLO object detection");
}

static void gst_yolo_init(GstYolo* self) {
  yolo::gst::construct_member(self->impl, GST_BASE_TRANSFORM(self));
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
  gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), TRUE);
}
