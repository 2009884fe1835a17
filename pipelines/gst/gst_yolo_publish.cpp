// GObject glue for the `yolopublish` element; the logic is in yolo_publish_logic.cpp.
/**
 * SECTION:element-yolopublish
 * @title: yolopublish
 *
 * Publishes to an MQTT broker, from a pipeline: each event of the frames' YoloAnalyticsMeta
 * (put there by yoloanalytics) as one message to <topic>/<device-id>/<stream>/events and, with
 * detections-every or detections-on-change, the frames' detections to .../detections, as the
 * versioned JSON of docs/detections-json.md#mqtt-messages. Frames pass unchanged and are never
 * held: while the broker is away messages wait in a bounded buffer (the oldest dropped when it
 * is full), the client reconnects with backoff and sends them in order once the broker is back
 * (QoS 1: at least once). The stats property shows the connection and the buffer.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -e filesrc location=video.mp4 ! decodebin ! videoconvert ! \
 *     yolo model=best.pt conf-threshold=0.1 ! yolotracker tracker=bytetrack.yaml ! \
 *     yoloanalytics config=lines.yaml stream-id=door ! \
 *     yolopublish url=mqtt://127.0.0.1:1883 topic=yolo-edge device-id=pole-17 ! fakesink
 * mosquitto_sub -h 127.0.0.1 -t 'yolo-edge/#' -v
 * ]|
 */
#include "gst_yolo_publish.h"

#include <gst/video/video.h>

#include <new>
#include <string>

#include "debug.h"
#include "video_frames.h"
#include "yolo_publish_logic.h"

namespace {

using yolo::gst::YoloPublishLogic;

enum {
  PROP_0,
  PROP_URL,
  PROP_TOPIC,
  PROP_QOS,
  PROP_DEVICE_ID,
  PROP_STREAM_ID,
  PROP_CLIENT_ID,
  PROP_USERNAME,
  PROP_PASSWORD_FILE,
  PROP_TLS_CA,
  PROP_TLS_CERT,
  PROP_TLS_KEY,
  PROP_DETECTIONS_EVERY,
  PROP_DETECTIONS_ON_CHANGE,
  PROP_BUFFER_MAX_MESSAGES,
  PROP_STATS
};

}  // namespace

static GstStaticPadTemplate publish_sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));
static GstStaticPadTemplate publish_src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));

G_DEFINE_TYPE(GstYoloPublish, gst_yolo_publish, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(yolopublish, "yolopublish", GST_RANK_NONE, GST_TYPE_YOLO_PUBLISH)

namespace {

YoloPublishLogic& impl(gpointer object) {
  return *GST_YOLO_PUBLISH(object)->impl;
}

// The string member a string property is kept in.
std::string* string_property(GstYoloPublish* self, guint id) {
  auto& o = self->options;
  switch (id) {
    case PROP_URL:
      return &o.url;
    case PROP_TOPIC:
      return &o.topic;
    case PROP_DEVICE_ID:
      return &o.device_id;
    case PROP_STREAM_ID:
      return &self->stream_id;
    case PROP_CLIENT_ID:
      return &o.client_id;
    case PROP_USERNAME:
      return &o.username;
    case PROP_PASSWORD_FILE:
      return &o.password_file;
    case PROP_TLS_CA:
      return &o.tls_ca;
    case PROP_TLS_CERT:
      return &o.tls_cert;
    case PROP_TLS_KEY:
      return &o.tls_key;
    default:
      return nullptr;
  }
}

void set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
  GstYoloPublish* self = GST_YOLO_PUBLISH(object);
  if (GST_STATE(self) > GST_STATE_READY) {
    GST_WARNING_OBJECT(self, "property '%s' can only be changed in the NULL or READY state",
                       pspec->name);
    return;
  }
  GST_OBJECT_LOCK(self);
  if (std::string* s = string_property(self, id)) {
    const char* v = g_value_get_string(value);
    *s = v ? v : "";
  } else if (id == PROP_QOS) {
    self->options.qos = g_value_get_int(value);
  } else if (id == PROP_DETECTIONS_EVERY) {
    self->options.detections_every = static_cast<int>(g_value_get_uint(value));
  } else if (id == PROP_DETECTIONS_ON_CHANGE) {
    self->options.detections_on_change = g_value_get_boolean(value);
  } else if (id == PROP_BUFFER_MAX_MESSAGES) {
    self->options.buffer_max_messages = g_value_get_uint(value);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  }
  GST_OBJECT_UNLOCK(self);
}

void get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
  GstYoloPublish* self = GST_YOLO_PUBLISH(object);
  if (id == PROP_STATS) {
    g_value_take_boxed(value, impl(object).stats_structure());
    return;
  }
  GST_OBJECT_LOCK(self);
  if (std::string* s = string_property(self, id)) {
    g_value_set_string(value, s->c_str());
  } else if (id == PROP_QOS) {
    g_value_set_int(value, self->options.qos);
  } else if (id == PROP_DETECTIONS_EVERY) {
    g_value_set_uint(value, static_cast<guint>(self->options.detections_every));
  } else if (id == PROP_DETECTIONS_ON_CHANGE) {
    g_value_set_boolean(value, self->options.detections_on_change);
  } else if (id == PROP_BUFFER_MAX_MESSAGES) {
    g_value_set_uint(value, static_cast<guint>(self->options.buffer_max_messages));
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  }
  GST_OBJECT_UNLOCK(self);
}

void finalize(GObject* object) {
  GstYoloPublish* self = GST_YOLO_PUBLISH(object);
  self->impl.~unique_ptr();
  self->stream_id.~basic_string();
  self->options.~MqttOutputOptions();
  G_OBJECT_CLASS(gst_yolo_publish_parent_class)->finalize(object);
}

gboolean start(GstBaseTransform* trans) {
  GstYoloPublish* self = GST_YOLO_PUBLISH(trans);
  GST_OBJECT_LOCK(self);
  const yolo::MqttOutputOptions options = self->options;
  const std::string stream_id = self->stream_id.empty() ? GST_OBJECT_NAME(self) : self->stream_id;
  GST_OBJECT_UNLOCK(self);
  return impl(trans).start(options, stream_id);
}

gboolean stop(GstBaseTransform* trans) {
  impl(trans).stop();
  return TRUE;
}

gboolean set_caps(GstBaseTransform* trans, GstCaps* incaps, GstCaps*) {
  return impl(trans).set_caps(incaps);
}

GstFlowReturn transform_ip(GstBaseTransform* trans, GstBuffer* buffer) {
  return impl(trans).process(buffer);
}

gboolean propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* q) {
  return yolo::gst::propose_with_frame_metas(
      GST_BASE_TRANSFORM_CLASS(gst_yolo_publish_parent_class), trans, decide_query, q);
}

void string_prop(GObjectClass* c, guint id, const char* name, const char* blurb,
                 const char* default_value) {
  g_object_class_install_property(
      c, id,
      g_param_spec_string(name, name, blurb, default_value,
                          static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                   GST_PARAM_MUTABLE_READY)));
}

void install_properties(GObjectClass* c) {
  const auto ready = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                              GST_PARAM_MUTABLE_READY);
  string_prop(c, PROP_URL, "url",
              "Broker: mqtt://host[:port] (TCP, 1883) or mqtts://host[:port] (TLS, 8883); no "
              "credentials here (username, password-file)",
              nullptr);
  string_prop(c, PROP_TOPIC, "topic",
              "Topic prefix: messages go to <topic>/<device-id>/<stream>/events and "
              ".../detections",
              "yolo-edge");
  g_object_class_install_property(
      c, PROP_QOS,
      g_param_spec_int("mqtt-qos", "mqtt-qos",
                       "1: at least once (kept until the broker acknowledges; may repeat after a "
                       "reconnect); 0: at most once",
                       0, 1, 1, ready));
  string_prop(c, PROP_DEVICE_ID, "device-id",
              "This box's name in topics and messages (default: the host name)", nullptr);
  string_prop(c, PROP_STREAM_ID, "stream-id",
              "The stream's name when the frames carry no analytics meta naming it (default: the "
              "element's name)",
              nullptr);
  string_prop(c, PROP_CLIENT_ID, "client-id", "MQTT client id (default: yolo-edge-<host>-<pid>)",
              nullptr);
  string_prop(c, PROP_USERNAME, "username", "User name at the broker", nullptr);
  string_prop(c, PROP_PASSWORD_FILE, "password-file",
              "File holding the password or token (one line); never logged", nullptr);
  string_prop(c, PROP_TLS_CA, "tls-ca", "PEM file of the CA that signed the broker's certificate",
              nullptr);
  string_prop(c, PROP_TLS_CERT, "tls-cert", "Client certificate (PEM), with tls-key", nullptr);
  string_prop(c, PROP_TLS_KEY, "tls-key", "Client private key (PEM)", nullptr);
  g_object_class_install_property(
      c, PROP_DETECTIONS_EVERY,
      g_param_spec_uint("detections-every", "detections-every",
                        "Also publish every Nth inferred frame's detections (0: none)", 0, 1000000,
                        0, ready));
  g_object_class_install_property(
      c, PROP_DETECTIONS_ON_CHANGE,
      g_param_spec_boolean("detections-on-change", "detections-on-change",
                           "Also publish a frame's detections when its set of track ids (or box "
                           "count) changed",
                           FALSE, ready));
  g_object_class_install_property(
      c, PROP_BUFFER_MAX_MESSAGES,
      g_param_spec_uint("buffer-max-messages", "buffer-max-messages",
                        "Messages held while the broker is away; when full the oldest is dropped "
                        "and counted",
                        1, 10000000, 10000, ready));
  g_object_class_install_property(
      c, PROP_STATS,
      g_param_spec_boxed("stats", "Statistics",
                         "broker, state, connected, last-error, queued, delivered, dropped, "
                         "reconnects",
                         GST_TYPE_STRUCTURE,
                         static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

}  // namespace

static void gst_yolo_publish_class_init(GstYoloPublishClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  object_class->set_property = set_property;
  object_class->get_property = get_property;
  object_class->finalize = finalize;
  install_properties(object_class);
  gst_element_class_set_static_metadata(
      element_class, "YOLO MQTT publisher", "Filter/Video",
      "Publishes the frames' analytics events and detections to an MQTT broker; frames pass "
      "unchanged and never wait for the broker",
      "yolo-edge developers");
  gst_element_class_add_static_pad_template(element_class, &publish_sink_template);
  gst_element_class_add_static_pad_template(element_class, &publish_src_template);
  trans_class->start = start;
  trans_class->stop = stop;
  trans_class->set_caps = set_caps;
  trans_class->transform_ip = transform_ip;
  trans_class->propose_allocation = propose_allocation;
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
}

static void gst_yolo_publish_init(GstYoloPublish* self) {
  new (&self->options) yolo::MqttOutputOptions();
  new (&self->stream_id) std::string();
  new (&self->impl) std::unique_ptr<YoloPublishLogic>(
      std::make_unique<YoloPublishLogic>(GST_BASE_TRANSFORM(self)));
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
