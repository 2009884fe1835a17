// Where video comes from, and the one function that turns it into a GStreamer source:
//
//   rtsp  rtspsrc location="URI" protocols=tcp latency=MS ! decodebin
//   file  filesrc location="PATH" ! decodebin            (file:///x is turned into /x)
//   v4l2  v4l2src device=/dev/videoN ! decodebin         (raw or MJPEG cameras)
//   http  souphttpsrc location="URI" ! decodebin         (MJPEG multipart, video files)
//   rtmp  rtmpsrc location="URI" ! decodebin             (RTMP servers)
//   tcp   tcpclientsrc host=H port=P ! decodebin         (raw MPEG-TS or MJPEG over TCP)
//
// predict's decoder, the monitor's pipelines and their tests all build their sources here, so a
// camera is opened the same way (transport, latency, decoder) by `yolo-trainer predict` and by
// `yolo-monitor`. Values are quoted and escaped for gst_parse_launch, so uris with spaces or '!'
// stay one property value.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "yolo/core/error.h"

namespace yolo::media {

// A source that cannot be opened or read: the message names it and what to do.
class SourceError : public FailureError {
 public:
  using FailureError::FailureError;
};

// What a uri points at; decides the GStreamer source element.
enum class SourceKind {
  kRtsp,  // rtsp:// or rtsps://
  kFile,  // a file path (absolute or relative to the working directory) or file:///abs/path
  kV4l2,  // /dev/videoN
  kHttp,  // http:// or https:// (MJPEG cameras, video files on a web server)
  kRtmp,  // rtmp:// or rtmps://
  kTcp,   // tcp://host:port
};
const char* to_string(SourceKind kind);

// Classifies a uri; nullopt with a message naming what to use when it is not supported.
std::optional<SourceKind> classify_uri(const std::string& uri, std::string* why = nullptr);

// The local path of a file source: file:///a%20b -> /a b (escapes decoded); a plain path stays as
// written. Throws std::invalid_argument for a file:// uri that is not a valid file URI.
std::string local_file_path(const std::string& uri);

struct SourceOptions {
  bool rtsp_tcp = true;                         // protocols=tcp; false leaves rtspsrc's default
  std::chrono::milliseconds rtsp_latency{200};  // rtspsrc latency (jitterbuffer)
};

// The source part, ending in decoded raw video (an unlinked decodebin src pad). Throws
// std::invalid_argument for a file:// uri that is not a valid file URI.
std::string source_description(SourceKind kind, const std::string& uri,
                               const SourceOptions& options);

// What to check when a source of this kind fails to open or stops, for messages that name the
// source (predict, the monitor's last_error): "check that the file exists ...".
std::string source_failure_hint(SourceKind kind);

// "value" with backslashes and double quotes escaped, for a gst-launch property value.
std::string quote_gst_value(const std::string& value);

}  // namespace yolo::media
