#include "yolo/monitor/inference_fragment.h"

#include <fmt/format.h>

#include <chrono>

#include "yolo/monitor/pipeline_description.h"

namespace yolo::monitor {

std::string model_instance_id(const InferenceSettings& settings) {
  // Streams share a model instance only when they run it alike.
  return "monitor:" + settings.model + "@" + (settings.device.empty() ? "auto" : settings.device) +
         (settings.bf16 ? (*settings.bf16 ? ":bf16" : ":fp32") : "");
}

std::string yolo_fragment(const StreamConfig& stream, const InferenceSettings& settings,
                          const BatchingConfig& batching) {
  std::string classes;
  for (int c : settings.classes) classes += (classes.empty() ? "" : ",") + std::to_string(c);
  const auto timeout_us =
      std::chrono::duration_cast<std::chrono::microseconds>(batching.batch_timeout).count();
  std::string fragment = fmt::format(
      "yolo name=yolo model={} device={} conf-threshold={} iou-threshold={} classes={} "
      "inference-interval={} model-instance-id={} batch-size={} batch-timeout={} stream-id={} "
      "http-port=0 snapshot-interval=0 bf16={}",
      quote_gst_value(settings.model), quote_gst_value(settings.device), settings.conf,
      settings.iou, quote_gst_value(classes), settings.inference_interval,
      quote_gst_value(model_instance_id(settings)), batching.batch_size, timeout_us,
      quote_gst_value(stream.id), settings.bf16 ? (*settings.bf16 ? "true" : "false") : "auto");
  // One tracker per stream: each stream's pipeline has its own element (ids from 1 per stream,
  // and from 1 again when a supervisor rebuilds the pipeline after a camera drop).
  if (!settings.tracker.empty()) {
    fragment +=
        fmt::format(" ! yolotracker name=tracker tracker={}", quote_gst_value(settings.tracker));
  }
  return fragment;
}

}  // namespace yolo::monitor
