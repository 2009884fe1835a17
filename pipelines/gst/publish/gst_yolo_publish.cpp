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

#include <string>

#include "debug.h"
#include "element_glue.h"
#include "yolo_publish_logic.h"

using yolo::gst::Change;
using yolo::gst::EmptyText;
using yolo::gst::PropertyTable;
using yolo::gst::PublishSettings;
using yolo::gst::YoloPublishLogic;

G_DEFINE_TYPE(GstYoloPublish, gst_yolo_publish, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(yolopublish, "yolopublish", GST_RANK_NONE, GST_TYPE_YOLO_PUBLISH)

namespace {

// Every property shapes the connection made at start: all change only in NULL or READY.
const PropertyTable<PublishSettings>& properties() {
  using S = PublishSettings;
  constexpr Change ready = Change::kReady;
  constexpr EmptyText null = EmptyText::kNull;
  static const PropertyTable<S> table =
      PropertyTable<S>()
          .text("url", "url",
                "Broker: mqtt://host[:port] (TCP, 1883) or mqtts://host[:port] (TLS, 8883); no "
                "credentials here (username, password-file)",
                &S::url, ready, null)
          .text("topic", "topic",
                "Topic prefix: messages go to <topic>/<device-id>/<stream>/events and "
                ".../detections",
                &S::topic, ready, null)
          .integer("mqtt-qos", "mqtt-qos",
                   "1: at least once (kept until the broker acknowledges; may repeat after a "
                   "reconnect); 0: at most once",
                   &S::qos, 0, 1, ready)
          .text("device-id", "device-id",
                "This box's name in topics and messages (default: the host name)", &S::device_id,
                ready, null)
          .text("stream-id", "stream-id",
                "The stream's name when the frames carry no analytics meta naming it (default: "
                "the element's name)",
                &S::stream_id, ready, null)
          .text("client-id", "client-id", "MQTT client id (default: yolo-edge-<host>-<pid>)",
                &S::client_id, ready, null)
          .text("username", "username", "User name at the broker", &S::username, ready, null)
          .text("password-file", "password-file",
                "File holding the password or token (one line); never logged", &S::password_file,
                ready, null)
          .text("tls-ca", "tls-ca", "PEM file of the CA that signed the broker's certificate",
                &S::tls_ca, ready, null)
          .text("tls-cert", "tls-cert", "Client certificate (PEM), with tls-key", &S::tls_cert,
                ready, null)
          .text("tls-key", "tls-key", "Client private key (PEM)", &S::tls_key, ready, null)
          .count("detections-every", "detections-every",
                 "Also publish every Nth inferred frame's detections (0: none)",
                 &S::detections_every, 0, 1000000, ready)
          .flag("detections-on-change", "detections-on-change",
                "Also publish a frame's detections when its set of track ids (or box count) "
                "changed",
                &S::detections_on_change, ready)
          .count("buffer-max-messages", "buffer-max-messages",
                 "Messages held while the broker is away; when full the oldest is dropped and "
                 "counted",
                 &S::buffer_max_messages, 1, 10000000, ready);
  return table;
}

using Glue = yolo::gst::ElementGlue<GstYoloPublish, PublishSettings, properties>;

YoloPublishLogic& impl(gpointer object) {
  return Glue::impl(object);
}

gboolean start(GstBaseTransform* trans) {
  const PublishSettings s = Glue::settings(trans);
  if (!yolo::gst::settings_in_range(GST_ELEMENT(trans), properties().problems(s))) return FALSE;
  const std::string stream_id = s.stream_id.empty() ? GST_OBJECT_NAME(trans) : s.stream_id;
  return impl(trans).start(s.output_options(), stream_id);
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

}  // namespace

static void gst_yolo_publish_class_init(GstYoloPublishClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  Glue::init_class(object_class,
                   "broker, state, connected, last-error, queued, delivered, dropped, reconnects");
  gst_element_class_set_static_metadata(
      element_class, "YOLO MQTT publisher", "Filter/Video",
      "Publishes the frames' analytics events and detections to an MQTT broker; frames pass "
      "unchanged and never wait for the broker",
      "yolo-edge developers");
  yolo::gst::init_video_filter_class(element_class, trans_class);
  trans_class->start = start;
  trans_class->stop = stop;
  trans_class->set_caps = set_caps;
  trans_class->transform_ip = transform_ip;
}

static void gst_yolo_publish_init(GstYoloPublish* self) {
  Glue::init_instance(self);
}
