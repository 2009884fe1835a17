// Where a stream's results go besides downstream: the HTTP endpoint's stores (http-port) and
// "yolo-detections" element messages (post-messages).
//
// The `yolo` element publishes its own results, unless a `yolotracker` after it takes that over
// so that what HTTP serves and what the bus carries has the track ids. Before pushing its first
// frame, a `yolo` element that publishes anything offers the handoff: a custom query sent
// downstream with where it publishes (stream id, HTTP address and port, snapshot interval,
// messages on or off). The first `yolotracker` it reaches takes it (answers the query) and from
// then on publishes each inferred frame after tracking, to the same shared HTTP service (elements
// naming one port share one server); the `yolo` element stops publishing results and messages.
// The offer is made before any frame leaves, so no result is published twice or without ids, and
// it travels through elements that forward queries (queue, videoconvert, yolooverlay). The
// settings travel once per start: snapshot-interval and post-messages changed while playing
// apply to the yolo element's own publishing only.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "yolo/runtime/detection.h"
#include "yolo/runtime/frame_view.h"

namespace yolo::gst {

class HttpService;

// What publishing needs beyond the frame; read per frame, since both may change while playing.
struct PublishOptions {
  unsigned snapshot_interval_ms = 0;  // keep a snapshot at most this often; 0 none
  bool post_messages = false;         // a "yolo-detections" element message per frame
};

class ResultPublisher {
 public:
  // `element` posts the messages and names the warnings; `http` may be null (no endpoint).
  ResultPublisher(GstElement* element, std::string stream_id, std::shared_ptr<HttpService> http);
  ResultPublisher(const ResultPublisher&) = delete;
  ResultPublisher& operator=(const ResultPublisher&) = delete;

  // One inferred frame's results (buffer readable, `info` its caps).
  void publish(GstBuffer* buffer, const GstVideoInfo& info, PixelFormat format, guint64 frame,
               const std::vector<Detection>& detections, const PublishOptions& options);

  const std::string& stream_id() const { return stream_id_; }
  const std::shared_ptr<HttpService>& http() const { return http_; }

 private:
  GstElement* element_;
  std::string stream_id_;
  std::shared_ptr<HttpService> http_;
  std::chrono::steady_clock::time_point last_snapshot_{};
  bool served_ = false;  // a result has been published to the HTTP service
};

// The handoff offer: where the `yolo` element publishes.
struct PublishHandoff {
  std::string stream_id;
  std::string http_address;  // empty with http_port 0: no endpoint
  int http_port = 0;         // the bound port
  PublishOptions options;
};

// A handoff query carrying the offer (custom, sent downstream); the caller owns it.
GstQuery* new_handoff_query(const PublishHandoff& offer);
bool is_handoff_query(GstQuery* query);
// The offer a handoff query carries; nullopt when it is malformed.
std::optional<PublishHandoff> parse_handoff(GstQuery* query);
// The taker's answer, and whether a query that came back was taken.
void take_handoff(GstQuery* query);
bool handoff_taken(GstQuery* query);

}  // namespace yolo::gst
