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

#include <new>

#include "debug.h"
#include "video_frames.h"
#include "yolo_logic.h"

GST_DEBUG_CATEGORY(gst_yolo_debug);

using yolo::gst::ElementSettings;
using yolo::gst::YoloLogic;

enum {
  PROP_0,
  PROP_MODEL,
  PROP_DEVICE,
  PROP_CONF_THRESHOLD,
  PROP_IOU_THRESHOLD,
  PROP_MAX_DETECTIONS,
  PROP_CLASSES,
  PROP_HALF,
  PROP_RECT,
  PROP_BF16,
  PROP_BATCH_SIZE,
  PROP_BATCH_TIMEOUT,
  PROP_MODEL_INSTANCE_ID,
  PROP_INFERENCE_INTERVAL,
  PROP_STREAM_ID,
  PROP_HTTP_PORT,
  PROP_HTTP_ADDRESS,
  PROP_SNAPSHOT_INTERVAL,
  PROP_MODEL_CHECK_INTERVAL,
  PROP_DRAW,
  PROP_POST_MESSAGES,
  PROP_STATS,
};

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));

G_DEFINE_TYPE(GstYolo, gst_yolo, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(yolo, "yolo", GST_RANK_NONE, GST_TYPE_YOLO)

namespace {

YoloLogic& impl(gpointer object) {
  return *GST_YOLO(object)->impl;
}

std::string string_or_empty(const GValue* value) {
  const char* s = g_value_get_string(value);
  return s ? s : "";
}

// Properties that shape the model or the endpoint take effect at the next start (READY ->
// PAUSED); changing them later would silently do nothing, so say so.
bool settable_now(GObject* object, GParamSpec* pspec) {
  if (!(pspec->flags & GST_PARAM_MUTABLE_READY)) return true;
  GstState state = GST_STATE(GST_ELEMENT(object));
  if (state <= GST_STATE_READY) return true;
  GST_WARNING_OBJECT(object, "property '%s' can only be changed in the NULL or READY state",
                     pspec->name);
  return false;
}

// Writes one property value into `s`; false for an id that is not ours.
bool apply_property(ElementSettings& s, guint id, const GValue* value) {
  switch (id) {
    case PROP_MODEL:
      s.model = string_or_empty(value);
      break;
    case PROP_DEVICE:
      s.device = string_or_empty(value);
      break;
    case PROP_CONF_THRESHOLD:
      s.conf_threshold = g_value_get_double(value);
      break;
    case PROP_IOU_THRESHOLD:
      s.iou_threshold = g_value_get_double(value);
      break;
    case PROP_MAX_DETECTIONS:
      s.max_detections = g_value_get_uint(value);
      break;
    case PROP_CLASSES:
      s.classes = string_or_empty(value);
      break;
    case PROP_HALF:
      s.half = g_value_get_boolean(value);
      break;
    case PROP_RECT:
      s.rect = g_value_get_boolean(value);
      break;
    case PROP_BF16:
      s.bf16 = string_or_empty(value);
      break;
    case PROP_BATCH_SIZE:
      s.batch_size = g_value_get_uint(value);
      break;
    case PROP_BATCH_TIMEOUT:
      s.batch_timeout_us = g_value_get_uint(value);
      break;
    case PROP_MODEL_INSTANCE_ID:
      s.model_instance_id = string_or_empty(value);
      break;
    case PROP_INFERENCE_INTERVAL:
      s.inference_interval = g_value_get_uint(value);
      break;
    case PROP_STREAM_ID:
      s.stream_id = string_or_empty(value);
      break;
    case PROP_HTTP_PORT:
      s.http_port = g_value_get_int(value);
      break;
    case PROP_HTTP_ADDRESS:
      s.http_address = string_or_empty(value);
      break;
    case PROP_SNAPSHOT_INTERVAL:
      s.snapshot_interval_ms = g_value_get_uint(value);
      break;
    case PROP_MODEL_CHECK_INTERVAL:
      s.model_check_interval_ms = g_value_get_uint(value);
      break;
    case PROP_DRAW:
      s.draw = g_value_get_boolean(value);
      break;
    case PROP_POST_MESSAGES:
      s.post_messages = g_value_get_boolean(value);
      break;
    default:
      return false;
  }
  return true;
}

void set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
  if (!settable_now(object, pspec)) return;
  const bool running = GST_STATE(GST_ELEMENT(object)) > GST_STATE_READY;
  bool known = true;
  std::string refused;
  impl(object).update_settings([&](ElementSettings& s) {
    ElementSettings next = s;
    known = apply_property(next, id, value);
    const std::vector<std::string> problems = next.problems();
    // Before start an invalid value is kept, and start() fails naming it; a running stream keeps
    // its previous value (one bad change must not stop it).
    if (known && running && !problems.empty())
      refused = problems.front();
    else
      s = next;
  });
  if (!known) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  if (!refused.empty())
    GST_ELEMENT_WARNING(object, LIBRARY, SETTINGS, ("Invalid property value ignored"),
                        ("%s; keeping the previous value", refused.c_str()));
}

void get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
  if (id == PROP_STATS) {
    g_value_take_boxed(value, impl(object).stats_structure());
    return;
  }
  const ElementSettings s = impl(object).settings();
  switch (id) {
    case PROP_MODEL:
      g_value_set_string(value, s.model.empty() ? nullptr : s.model.c_str());
      break;
    case PROP_DEVICE:
      g_value_set_string(value, s.device.c_str());
      break;
    case PROP_CONF_THRESHOLD:
      g_value_set_double(value, s.conf_threshold);
      break;
    case PROP_IOU_THRESHOLD:
      g_value_set_double(value, s.iou_threshold);
      break;
    case PROP_MAX_DETECTIONS:
      g_value_set_uint(value, s.max_detections);
      break;
    case PROP_CLASSES:
      g_value_set_string(value, s.classes.c_str());
      break;
    case PROP_HALF:
      g_value_set_boolean(value, s.half);
      break;
    case PROP_RECT:
      g_value_set_boolean(value, s.rect);
      break;
    case PROP_BF16:
      g_value_set_string(value, s.bf16.c_str());
      break;
    case PROP_BATCH_SIZE:
      g_value_set_uint(value, s.batch_size);
      break;
    case PROP_BATCH_TIMEOUT:
      g_value_set_uint(value, s.batch_timeout_us);
      break;
    case PROP_MODEL_INSTANCE_ID:
      g_value_set_string(value, s.model_instance_id.c_str());
      break;
    case PROP_INFERENCE_INTERVAL:
      g_value_set_uint(value, s.inference_interval);
      break;
    case PROP_STREAM_ID:
      g_value_set_string(value, s.stream_id.c_str());
      break;
    case PROP_HTTP_PORT:
      g_value_set_int(value, s.http_port);
      break;
    case PROP_HTTP_ADDRESS:
      g_value_set_string(value, s.http_address.c_str());
      break;
    case PROP_SNAPSHOT_INTERVAL:
      g_value_set_uint(value, s.snapshot_interval_ms);
      break;
    case PROP_MODEL_CHECK_INTERVAL:
      g_value_set_uint(value, s.model_check_interval_ms);
      break;
    case PROP_DRAW:
      g_value_set_boolean(value, s.draw);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean(value, s.post_messages);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
}

void finalize(GObject* object) {
  GST_YOLO(object)->impl.~unique_ptr();
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

gboolean propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* q) {
  return yolo::gst::propose_with_frame_metas(GST_BASE_TRANSFORM_CLASS(gst_yolo_parent_class), trans,
                                             decide_query, q);
}

constexpr auto kReady =
    static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
constexpr auto kPlaying = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                   GST_PARAM_MUTABLE_PLAYING);

}  // namespace

namespace {

// What the model is and how its detections are filtered.
void install_model_properties(GObjectClass* object_class) {
  const ElementSettings d;
  g_object_class_install_property(
      object_class, PROP_MODEL,
      g_param_spec_string("model", "Model",
                          "Detection model: a yolo-trainer checkpoint (best.pt), an Ultralytics "
                          "TorchScript export (.torchscript) or an Ultralytics .pt. Required",
                          nullptr, kReady));
  g_object_class_install_property(
      object_class, PROP_DEVICE,
      g_param_spec_string("device", "Device",
                          "Inference device: \"cpu\", \"0\" or \"cuda:0\" (AMD GPUs through ROCm "
                          "LibTorch too); empty picks GPU 0 when there is one, else the CPU",
                          d.device.c_str(), kReady));
  g_object_class_install_property(
      object_class, PROP_CONF_THRESHOLD,
      g_param_spec_double("conf-threshold", "Confidence threshold",
                          "Keep detections whose confidence is above this (0 to 1)", -G_MAXDOUBLE,
                          G_MAXDOUBLE, d.conf_threshold, kPlaying));
  g_object_class_install_property(
      object_class, PROP_IOU_THRESHOLD,
      g_param_spec_double("iou-threshold", "IoU threshold",
                          "Non-maximum suppression removes boxes overlapping a better one of the "
                          "same class by more than this IoU (not used by end-to-end YOLO26 "
                          "models; 0 to 1)",
                          -G_MAXDOUBLE, G_MAXDOUBLE, d.iou_threshold, kPlaying));
  g_object_class_install_property(object_class, PROP_MAX_DETECTIONS,
                                  g_param_spec_uint("max-detections", "Max detections",
                                                    "Detections kept per frame (1 to 10000)", 0,
                                                    G_MAXUINT, d.max_detections, kPlaying));
  g_object_class_install_property(
      object_class, PROP_CLASSES,
      g_param_spec_string("classes", "Classes",
                          "Only these classes: comma-separated ids or names (\"0,2\", "
                          "\"person,car\"); empty keeps all",
                          d.classes.c_str(), kPlaying));
  g_object_class_install_property(
      object_class, PROP_HALF,
      g_param_spec_boolean("half", "Half precision", "Run the model in FP16 (GPU devices only)",
                           d.half, kReady));
  g_object_class_install_property(
      object_class, PROP_RECT,
      g_param_spec_boolean(
          "rect", "Rectangular input",
          "Letterbox the stream's frames to their smallest stride-multiple rectangle (1920x1080 "
          "at 640: 640x384) where the model runs any size (a .pt or a training checkpoint; a "
          "fixed-shape export stays square), as Ultralytics' rect; false: the square input",
          d.rect, kReady));
  g_object_class_install_property(
      object_class, PROP_BF16,
      g_param_spec_string("bf16", "BF16 autocast",
                          "BF16 autocast on the CPU: auto (where the CPU computes BF16 natively: "
                          "AVX-512 BF16, AMX), true, or false (FP32)",
                          d.bf16.c_str(), kReady));
}

// How frames are batched and what the element does with its results.
void install_stream_properties(GObjectClass* object_class) {
  const ElementSettings d;
  g_object_class_install_property(
      object_class, PROP_BATCH_SIZE,
      g_param_spec_uint("batch-size", "Batch size",
                        "Frames per model call, from this element and every element sharing its "
                        "model-instance-id (the first element to start sets it; 1 to 256)",
                        0, G_MAXUINT, d.batch_size, kReady));
  g_object_class_install_property(
      object_class, PROP_BATCH_TIMEOUT,
      g_param_spec_uint("batch-timeout", "Batch timeout",
                        "Longest wait, in microseconds, for a batch to fill before a partial "
                        "batch runs; added to the latency the element reports when batch-size > 1 "
                        "(0 to 10000000)",
                        0, G_MAXUINT, d.batch_timeout_us, kReady));
  g_object_class_install_property(
      object_class, PROP_MODEL_INSTANCE_ID,
      g_param_spec_string("model-instance-id", "Model instance id",
                          "Elements of one process with the same id share one loaded model and "
                          "are batched together; empty: a model of this element's own",
                          d.model_instance_id.c_str(), kReady));
  g_object_class_install_property(
      object_class, PROP_INFERENCE_INTERVAL,
      g_param_spec_uint("inference-interval", "Inference interval",
                        "Run the model on every Nth frame; the frames in between pass through "
                        "without ROI metas and are not published (with draw=true they show the "
                        "latest detections; 1 to 1000000)",
                        0, G_MAXUINT, d.inference_interval, kPlaying));
  g_object_class_install_property(
      object_class, PROP_STREAM_ID,
      g_param_spec_string("stream-id", "Stream id",
                          "Name of this stream in results, messages, metrics and the HTTP API; "
                          "empty: the element's name",
                          d.stream_id.c_str(), kReady));
  g_object_class_install_property(
      object_class, PROP_HTTP_PORT,
      g_param_spec_int("http-port", "HTTP port",
                       "Serve detections, snapshots and metrics over HTTP on this port (see "
                       "docs/http-api.md); elements using the same port share one server. 0: "
                       "off; -1: any free port",
                       G_MININT, G_MAXINT, d.http_port, kReady));
  g_object_class_install_property(
      object_class, PROP_HTTP_ADDRESS,
      g_param_spec_string("http-address", "HTTP address",
                          "Address the HTTP endpoint binds (0.0.0.0: every interface)",
                          d.http_address.c_str(), kReady));
  g_object_class_install_property(
      object_class, PROP_SNAPSHOT_INTERVAL,
      g_param_spec_uint("snapshot-interval", "Snapshot interval",
                        "With http-port: keep the latest frame for snapshot.jpg at most this "
                        "often, in milliseconds (each keep converts a frame); 0: no snapshots",
                        0, G_MAXUINT, d.snapshot_interval_ms, kPlaying));
  g_object_class_install_property(
      object_class, PROP_MODEL_CHECK_INTERVAL,
      g_param_spec_uint("model-check-interval", "Model check interval",
                        "How often, in milliseconds, the model file is checked for replacement "
                        "(e.g. a new best.pt renamed over it); a replaced model is loaded in the "
                        "background and swapped in without stopping the stream. 0: never",
                        0, G_MAXUINT, d.model_check_interval_ms, kReady));
  g_object_class_install_property(
      object_class, PROP_DRAW,
      g_param_spec_boolean("draw", "Draw", "Draw boxes and labels onto the frames", d.draw,
                           kPlaying));
  g_object_class_install_property(
      object_class, PROP_POST_MESSAGES,
      g_param_spec_boolean("post-messages", "Post messages",
                           "Post an element message \"yolo-detections\" on the bus for every "
                           "inferred frame",
                           d.post_messages, kPlaying));
  g_object_class_install_property(
      object_class, PROP_STATS,
      g_param_spec_boxed(
          "stats", "Statistics",
          "Counters: frames, inferred, skipped-interval, skipped-qos, dropped, and "
          "of the (shared) model: model-batches, model-frames, largest-batch, model-swaps",
          GST_TYPE_STRUCTURE, static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

}  // namespace

static void gst_yolo_class_init(GstYoloClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  object_class->set_property = set_property;
  object_class->get_property = get_property;
  object_class->finalize = finalize;
  install_model_properties(object_class);
  install_stream_properties(object_class);

  gst_element_class_set_static_metadata(
      element_class, "YOLO object detector", "Filter/Analyzer/Video",
      "Detects objects with a YOLO model (YOLOv8, YOLO11, YOLO26) and attaches them as region "
      "of interest metas; optionally draws them and serves them over HTTP",
      "yolo-edge developers");
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);

  trans_class->start = start;
  trans_class->stop = stop;
  trans_class->set_caps = set_caps;
  trans_class->submit_input_buffer = submit_input_buffer;
  trans_class->generate_output = generate_output;
  trans_class->transform_ip = transform_ip;
  trans_class->sink_event = sink_event;
  trans_class->src_event = src_event;
  trans_class->query = query;
  trans_class->propose_allocation = propose_allocation;
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;

  GST_DEBUG_CATEGORY_INIT(gst_yolo_debug, "yolo", 0, "YOLO object detection");
}

static void gst_yolo_init(GstYolo* self) {
  new (&self->impl)
      std::unique_ptr<YoloLogic>(std::make_unique<YoloLogic>(GST_BASE_TRANSFORM(self)));
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
  gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), TRUE);
}
