// Logic of the `yolopublish` element, plain C++; the GObject glue is in gst_yolo_publish.cpp.
#include "yolo_publish_logic.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <exception>

#include "debug.h"
#include "yolo/gst/analytics_meta.h"
#include "yolo/gst/detection_meta.h"
#include "yolo/runtime/detection.h"

namespace yolo::gst {

MqttOutputOptions PublishSettings::output_options() const {
  MqttOutputOptions o;
  o.url = url;
  o.topic = topic;
  o.qos = qos;
  o.device_id = device_id;
  o.client_id = client_id;
  o.username = username;
  o.password_file = password_file;
  o.tls_ca = tls_ca;
  o.tls_cert = tls_cert;
  o.tls_key = tls_key;
  o.detections_every = static_cast<int>(detections_every);
  o.detections_on_change = detections_on_change;
  o.buffer_max_messages = buffer_max_messages;
  return o;
}

bool YoloPublishLogic::start(const MqttOutputOptions& options, const std::string& stream_id) {
  if (options.url.empty()) {
    GST_ELEMENT_ERROR(element_, RESOURCE, SETTINGS, ("No broker to publish to"),
                      ("set url=mqtt://host[:port] (or mqtts://)"));
    return false;
  }
  try {
    auto output = std::make_unique<MqttOutput>(options, nullptr);
    std::lock_guard<std::mutex> lock(mutex_);
    output_ = std::move(output);
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(element_, RESOURCE, SETTINGS, ("%s", e.what()),
                      ("check url, topic, device-id, password-file and the tls-* files"));
    return false;
  }
  stream_id_ = stream_id;
  have_caps_ = false;
  results_ = frames_ = 0;
  publishes_detections_ = options.detections_every > 0 || options.detections_on_change;
  warned_nothing_ = false;
  return true;
}

void YoloPublishLogic::stop() {
  std::unique_ptr<MqttOutput> output;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    output = std::move(output_);
  }
  if (output && !output->flush(std::chrono::seconds(2)))
    GST_WARNING_OBJECT(element_, "messages still buffered at stop are dropped");
}

bool YoloPublishLogic::set_caps(GstCaps* caps) {
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, caps)) return false;
  info_ = info;
  have_caps_ = true;
  return true;
}

GstFlowReturn YoloPublishLogic::process(GstBuffer* buffer) {
  if (!have_caps_) return GST_FLOW_NOT_NEGOTIATED;
  MqttOutput* output = output_.get();  // set before streaming starts, reset after it stops
  if (!output) return GST_FLOW_OK;
  std::string stream_id = stream_id_;
  const auto analytics = read_analytics_meta(buffer);
  if (analytics) {
    if (!analytics->stream_id.empty()) stream_id = analytics->stream_id;
    const nlohmann::json events = nlohmann::json::parse(analytics->events, nullptr, false);
    if (events.is_array() && !events.empty()) output->publish_events(stream_id, events);
  } else if (!publishes_detections_ && !warned_nothing_) {
    // yoloanalytics marks every frame it saw: a frame without its meta means none is upstream,
    // and with detections off there is nothing this element will ever send.
    warned_nothing_ = true;
    GST_ELEMENT_WARNING(element_, STREAM, FAILED, ("yolopublish has nothing to publish"),
                        ("no yoloanalytics upstream (its frames carry no events) and "
                         "detections-every=0: put yoloanalytics before yolopublish, or set "
                         "detections-every=N (or detections-on-change=true) to publish "
                         "detections"));
  }
  const std::optional<bool> inferred = inference_mark(buffer);
  if (inferred && !*inferred) return GST_FLOW_OK;
  FrameResult r;
  r.stream_id = stream_id;
  r.seq = ++results_;
  r.frame = static_cast<int64_t>(inference_frame(buffer).value_or(frames_++));
  const GstClockTime pts = GST_BUFFER_PTS(buffer);
  r.pts_ns = GST_CLOCK_TIME_IS_VALID(pts) ? static_cast<int64_t>(pts) : -1;
  r.wall_time = std::chrono::system_clock::now();
  r.width = info_.width;
  r.height = info_.height;
  r.detections = read_roi_metas(buffer, RoiRegions::kDetections, info_.width, info_.height);
  output->publish_detections(r);
  return GST_FLOW_OK;
}

GstStructure* YoloPublishLogic::stats_structure() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!output_)
    return gst_structure_new("yolopublish-stats", "state", G_TYPE_STRING, "stopped", "connected",
                             G_TYPE_BOOLEAN, FALSE, nullptr);
  const nlohmann::json h = output_->health();
  const std::string last_error =
      h["last_error"].is_null() ? "" : h["last_error"].get<std::string>();
  return gst_structure_new(
      "yolopublish-stats", "broker", G_TYPE_STRING, h["broker"].get<std::string>().c_str(), "state",
      G_TYPE_STRING, h["state"].get<std::string>().c_str(), "connected", G_TYPE_BOOLEAN,
      h["connected"].get<bool>() ? TRUE : FALSE, "last-error", G_TYPE_STRING, last_error.c_str(),
      "queued", G_TYPE_UINT64, h["queued"].get<uint64_t>(), "delivered", G_TYPE_UINT64,
      h["delivered"].get<uint64_t>(), "dropped", G_TYPE_UINT64, h["dropped"].get<uint64_t>(),
      "reconnects", G_TYPE_UINT64, h["reconnects"].get<uint64_t>(), nullptr);
}

}  // namespace yolo::gst
