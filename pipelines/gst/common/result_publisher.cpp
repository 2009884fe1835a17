#include "result_publisher.h"

#include <utility>

#include "debug.h"
#include "http_service.h"
#include "video_frames.h"
#include "yolo/gst/detection_meta.h"

namespace yolo::gst {
namespace {

constexpr const char* kHandoffQuery = "yolo-results-handoff";

}  // namespace

ResultPublisher::ResultPublisher(GstElement* element, std::string stream_id,
                                 std::shared_ptr<HttpService> http)
    : element_(element), stream_id_(std::move(stream_id)), http_(std::move(http)) {}

void ResultPublisher::publish(GstBuffer* buffer, const GstVideoInfo& info, PixelFormat format,
                              guint64 frame, const std::vector<Detection>& detections,
                              const PublishOptions& options) {
  const int width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
  const GstClockTime pts = GST_BUFFER_PTS(buffer);
  if (http_) {
    FrameResult r;
    r.stream_id = stream_id_;
    r.frame = static_cast<int64_t>(frame);
    r.pts_ns = GST_CLOCK_TIME_IS_VALID(pts) ? static_cast<int64_t>(pts) : -1;
    r.wall_time = std::chrono::system_clock::now();
    r.width = width;
    r.height = height;
    r.detections = detections;
    const auto now = std::chrono::steady_clock::now();
    if (options.snapshot_interval_ms > 0 &&
        now - last_snapshot_ >= std::chrono::milliseconds(options.snapshot_interval_ms)) {
      MappedFrame mapped(&info, buffer, GST_MAP_READ);
      if (mapped.mapped) {
        try {
          http_->snapshots().put(r, frame_to_bgr(mapped.frame, format));
          last_snapshot_ = now;
        } catch (const std::exception& e) {
          GST_WARNING_OBJECT(element_, "snapshot of '%s' not kept: %s", stream_id_.c_str(),
                             e.what());
        }
      }
    }
    try {
      http_->results().publish(std::move(r));
      if (!served_) {  // the stream's first result: /health says it is ready
        http_->readiness().set(stream_id_, Readiness::kReady);
        served_ = true;
      }
    } catch (const std::exception& e) {  // the store is full of other streams
      GST_WARNING_OBJECT(element_, "results of '%s' not published: %s", stream_id_.c_str(),
                         e.what());
    }
  }
  if (options.post_messages) {
    GstStructure* msg = detections_structure(stream_id_, frame, pts, width, height, detections);
    gst_element_post_message(element_, gst_message_new_element(GST_OBJECT(element_), msg));
  }
}

GstQuery* new_handoff_query(const PublishHandoff& h) {
  GstStructure* s = gst_structure_new(
      kHandoffQuery, "stream-id", G_TYPE_STRING, h.stream_id.c_str(), "http-address", G_TYPE_STRING,
      h.http_address.c_str(), "http-port", G_TYPE_INT, h.http_port, "snapshot-interval",
      G_TYPE_UINT, h.options.snapshot_interval_ms, "post-messages", G_TYPE_BOOLEAN,
      h.options.post_messages ? TRUE : FALSE, nullptr);
  return gst_query_new_custom(GST_QUERY_CUSTOM, s);
}

bool is_handoff_query(GstQuery* query) {
  if (GST_QUERY_TYPE(query) != GST_QUERY_CUSTOM) return false;
  const GstStructure* s = gst_query_get_structure(query);
  return s && gst_structure_has_name(s, kHandoffQuery);
}

void take_handoff(GstQuery* query) {
  gst_structure_set(gst_query_writable_structure(query), "taken", G_TYPE_BOOLEAN, TRUE, nullptr);
}

bool handoff_taken(GstQuery* query) {
  gboolean taken = FALSE;
  const GstStructure* s = gst_query_get_structure(query);
  return s && gst_structure_get_boolean(s, "taken", &taken) && taken;
}

std::optional<PublishHandoff> parse_handoff(GstQuery* query) {
  const GstStructure* s = gst_query_get_structure(query);
  const char* stream_id = s ? gst_structure_get_string(s, "stream-id") : nullptr;
  if (!stream_id) return std::nullopt;
  PublishHandoff h;
  h.stream_id = stream_id;
  if (const char* address = gst_structure_get_string(s, "http-address")) h.http_address = address;
  gst_structure_get_int(s, "http-port", &h.http_port);
  gst_structure_get_uint(s, "snapshot-interval", &h.options.snapshot_interval_ms);
  gboolean post = FALSE;
  gst_structure_get_boolean(s, "post-messages", &post);
  h.options.post_messages = post != FALSE;
  return h;
}

}  // namespace yolo::gst
