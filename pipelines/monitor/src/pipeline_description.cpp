#include "yolo/monitor/pipeline_description.h"

#include <fmt/format.h>

namespace yolo::monitor {

SourceOptions source_options(const RtspConfig& rtsp) {
  SourceOptions o;
  o.rtsp_tcp = rtsp.tcp;
  o.rtsp_latency = rtsp.latency;
  return o;
}

std::string pipeline_description(const StreamConfig& stream, const SourceOptions& options,
                                 const std::string& inference_fragment) {
  return fmt::format(
      "{}{} ! queue name={} leaky=downstream max-size-buffers=1 max-size-bytes=0 max-size-time=0 "
      "! videoconvert ! video/x-raw,format={{ I420, NV12, BGR, BGRx, BGRA, RGB, RGBx, RGBA }} ! "
      "{}appsink name={} sync=false max-buffers=1 drop=true",
      media::source_description(stream.kind, stream.uri, options),
      stream.kind == SourceKind::kFile ? " ! clocksync" : "", kLeakyQueueName,
      inference_fragment.empty() ? std::string() : inference_fragment + " ! ", kAppSinkName);
}

StreamPipeline::StreamPipeline(std::string launch_text)
    : launch(std::move(launch_text)), description(launch) {}

bool StreamPipeline::operator==(const StreamPipeline& other) const {
  return launch == other.launch && inference == other.inference;
}

StreamPipeline stream_pipeline(const StreamConfig& stream, const SourceOptions& options,
                               std::vector<ElementSpec> inference) {
  StreamPipeline p(pipeline_description(stream, options, ""));
  p.description = pipeline_description(stream, options, to_launch_text(inference));
  p.inference = std::move(inference);
  p.source_uri = stream.uri;
  return p;
}

}  // namespace yolo::monitor
