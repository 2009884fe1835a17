// gst-launch descriptions of a stream's pipeline, one per uri kind:
//
//   rtsp  rtspsrc location="URI" protocols=tcp latency=MS ! decodebin
//   file  filesrc location="PATH" ! decodebin            (file:///x is turned into /x)
//   v4l2  v4l2src device=/dev/videoN ! decodebin         (raw or MJPEG cameras)
//   http  souphttpsrc location="URI" ! decodebin         (MJPEG multipart, video files)
//
// followed by the common tail
//
//   ! queue name=leaky leaky=downstream max-size-buffers=1 ... ! videoconvert
//   ! video/x-raw,format=BGR
//   ! <inference fragment> ! appsink name=sink ...
//
// The one-buffer leaky queue sits right after the decoder: the decoder never waits for the
// model, so a slow model drops frames instead of building up delay, and frames that are dropped
// are never converted. The inference fragment is the owner's (the `yolo` element with its
// properties; `identity` in tests; empty for none). Values are quoted and escaped for
// gst_parse_launch, so uris with spaces or '!' stay one property value.
#pragma once

#include <chrono>
#include <string>

#include "yolo/monitor/monitor_config.h"

namespace yolo::monitor {

// Name of the appsink that ends every description; the supervisor looks it up by this name.
inline constexpr char kAppSinkName[] = "sink";
// Name of the leaky queue after the decoder. Optional for the supervisor: when a description
// has it, frames entering it are counted as source frames, which tells a stalled source from a
// blocked inference.
inline constexpr char kLeakyQueueName[] = "leaky";

struct SourceOptions {
  bool rtsp_tcp = true;                         // protocols=tcp; false leaves rtspsrc's default
  std::chrono::milliseconds rtsp_latency{200};  // rtspsrc latency (jitterbuffer)
};

SourceOptions source_options(const RtspConfig& rtsp);

// The source part, ending in decoded raw video (an unlinked decodebin src pad).
std::string source_description(const StreamConfig& stream, const SourceOptions& options);

// The whole pipeline. A file gets `clocksync` before the leaky queue: it is played at its own
// frame rate like a camera (without it the file would be decoded in a blink and the queue would
// drop nearly all of it), and a slow model still drops frames instead of falling behind.
std::string pipeline_description(const StreamConfig& stream, const SourceOptions& options,
                                 const std::string& inference_fragment);

// "value" with backslashes and double quotes escaped, for a gst-launch property value.
std::string quote_gst_value(const std::string& value);

}  // namespace yolo::monitor
