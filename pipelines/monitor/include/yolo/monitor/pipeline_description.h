// gst-launch description of a stream's pipeline: the media library's source for the stream's
// uri (yolo/media/media_source.h: rtspsrc, filesrc, v4l2src or souphttpsrc, then decodebin),
// followed by the monitor's tail
//
//   ! queue name=leaky leaky=downstream max-size-buffers=1 ... ! videoconvert
//   ! video/x-raw,format=BGR
//   ! <inference fragment> ! appsink name=sink ...
//
// The one-buffer leaky queue sits right after the decoder: the decoder never waits for the
// model, so a slow model drops frames instead of building up delay, and frames that are dropped
// are never converted. The inference fragment is the owner's (the `yolo` element with its
// properties; `identity` in tests; empty for none).
#pragma once

#include <string>

#include "yolo/media/media_source.h"
#include "yolo/monitor/monitor_config.h"

namespace yolo::monitor {

// Name of the appsink that ends every description; the supervisor looks it up by this name.
inline constexpr char kAppSinkName[] = "sink";
// Name of the leaky queue after the decoder. Optional for the supervisor: when a description
// has it, frames entering it are counted as source frames, which tells a stalled source from a
// blocked inference.
inline constexpr char kLeakyQueueName[] = "leaky";

using media::quote_gst_value;
using media::SourceOptions;

SourceOptions source_options(const RtspConfig& rtsp);

// The whole pipeline. A file gets `clocksync` before the leaky queue: it is played at its own
// frame rate like a camera (without it the file would be decoded in a blink and the queue would
// drop nearly all of it), and a slow model still drops frames instead of falling behind.
std::string pipeline_description(const StreamConfig& stream, const SourceOptions& options,
                                 const std::string& inference_fragment);

}  // namespace yolo::monitor
