// gst-launch description of a stream's pipeline: the media library's source for the stream's
// uri (yolo/media/media_source.h: rtspsrc, filesrc, v4l2src or souphttpsrc, then decodebin),
// followed by the monitor's tail
//
//   ! queue name=leaky leaky=downstream max-size-buffers=1 ... ! videoconvert
//   ! video/x-raw,format={ I420, NV12, BGR, ... the `yolo` element's formats }
//   ! <inference fragment> ! appsink name=sink ...
//
// The one-buffer leaky queue sits right after the decoder: the decoder never waits for the
// model, so a slow model drops frames instead of building up delay, and frames that are dropped
// are never converted. The inference fragment is the owner's (the `yolo` element with its
// properties; `identity` in tests; empty for none). It gets the decoder's own 4:2:0 frames (the
// videoconvert passes them through and converts only formats the element does not take), so
// the element converts them with the stream's colorimetry: videoconvert's own YUV -> BGR is
// several levels off (media/frame_colours.h), and the model would see other colours than
// `yolo-trainer predict` and Ultralytics do on the same video. The appsink takes the frames as
// they are: no frame is converted to BGR unless a snapshot needs it (with_bgr_frame), and a
// conversion after the element would drop its detection metas (videoconvert keeps only metas
// without size or orientation tags).
//
// The supervisor does not parse the inference as text: a StreamPipeline is the description
// without it, and the inference elements with their typed settings (element_spec.h), which the
// supervisor makes and links in front of the appsink. The text with the inference in place is
// kept for logs and for running the pipeline by hand.
#pragma once

#include <string>
#include <vector>

#include "yolo/media/media_source.h"
#include "yolo/monitor/element_spec.h"
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

// A stream's pipeline as the StreamSupervisor builds it.
struct StreamPipeline {
  // A pipeline that is all text (tests, tools): `launch` and `description` alike.
  StreamPipeline(std::string launch_text = {});  // implicit: a description is a pipeline

  // gst-launch text ending in an appsink named kAppSinkName: the source and the monitor's fixed
  // elements, where text is the natural form (the parser links decodebin's pads as they come).
  std::string launch;
  // Made from their typed settings (make_element) and linked, in this order, in front of the
  // appsink; none: the appsink stays where `launch` puts it.
  std::vector<ElementSpec> inference;
  // The whole pipeline as one gst-launch description, `inference` in place, for logs and for
  // running it by hand (gst-launch-1.0 '<description>'). Not what is built.
  std::string description;
  // The stream's uri, for what is read from the source itself (an MP4 file's colour box:
  // media::repair_container_range); empty for an all-text pipeline.
  std::string source_uri;

  // Whether both build the same pipeline (launch and inference).
  bool operator==(const StreamPipeline& other) const;
  bool operator!=(const StreamPipeline& other) const { return !(*this == other); }
};

// `stream`'s pipeline with `inference` (the owner's elements; empty for none).
StreamPipeline stream_pipeline(const StreamConfig& stream, const SourceOptions& options,
                               std::vector<ElementSpec> inference);

}  // namespace yolo::monitor
