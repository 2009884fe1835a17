#include "yolo/monitor/inference_elements.h"

#include <chrono>
#include <cstdint>
#include <limits>

namespace yolo::monitor {
namespace {

// A count of microseconds as the element's guint property takes it; a longer wait than guint
// holds saturates, and the element refuses it naming its range.
unsigned saturated_us(std::chrono::microseconds d) {
  const std::int64_t us = d.count();
  if (us <= 0) return 0;
  constexpr auto kMax = std::numeric_limits<unsigned>::max();
  return us >= static_cast<std::int64_t>(kMax) ? kMax : static_cast<unsigned>(us);
}

}  // namespace

std::string model_instance_id(const InferenceSettings& settings) {
  // Streams share a model instance only when they run it alike.
  return "monitor:" + settings.model + "@" + (settings.device.empty() ? "auto" : settings.device) +
         (settings.bf16 ? (*settings.bf16 ? ":bf16" : ":fp32") : "");
}

std::vector<ElementSpec> inference_elements(const StreamConfig& stream,
                                            const InferenceSettings& settings,
                                            const BatchingConfig& batching) {
  // The element's classes property is a string: comma-separated ids (or names).
  std::string classes;
  for (int c : settings.classes) classes += (classes.empty() ? "" : ",") + std::to_string(c);
  const std::string bf16 = settings.bf16 ? (*settings.bf16 ? "true" : "false") : "auto";
  const auto timeout =
      std::chrono::duration_cast<std::chrono::microseconds>(batching.batch_timeout);
  std::vector<ElementSpec> elements = {
      {"yolo",
       "yolo",
       {{"model", settings.model},
        {"device", settings.device},
        {"conf-threshold", settings.conf},
        {"iou-threshold", settings.iou},
        {"classes", classes},
        {"inference-interval", static_cast<unsigned>(settings.inference_interval)},
        {"model-instance-id", model_instance_id(settings)},
        {"batch-size", static_cast<unsigned>(batching.batch_size)},
        {"batch-timeout", saturated_us(timeout)},
        {"stream-id", stream.id},
        {"http-port", 0},
        {"snapshot-interval", 0u},
        {"bf16", bf16},
        {"rect", settings.rect}}}};
  // One tracker per stream: each stream's pipeline has its own element (ids from 1 per stream,
  // and from 1 again when a supervisor rebuilds the pipeline after a camera drop).
  if (!settings.tracker.empty())
    elements.push_back({"yolotracker", "tracker", {{"tracker", settings.tracker}}});
  return elements;
}

}  // namespace yolo::monitor
