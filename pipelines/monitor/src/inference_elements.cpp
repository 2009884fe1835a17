#include "yolo/monitor/inference_elements.h"

#include <chrono>
#include <cstdint>
#include <limits>

#include "yolo/gst/tracker_settings.h"

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

std::string model_instance_id(const StreamSettings& settings) {
  // Streams share a model instance only when they run it alike.
  const std::optional<bool> bf16 = settings.bf16_choice();
  return "monitor:" + settings.model + "@" + (settings.device.empty() ? "auto" : settings.device) +
         (bf16 ? (*bf16 ? ":bf16" : ":fp32") : "");
}

std::vector<ElementSpec> inference_elements(const StreamConfig& stream,
                                            const StreamSettings& settings,
                                            const BatchingConfig& batching) {
  // The shared settings go under their element names (kInferenceNames): the monitor and the
  // element agree on them through the one table.
  const InferenceNames& n = kInferenceNames;
  const auto timeout =
      std::chrono::duration_cast<std::chrono::microseconds>(batching.batch_timeout);
  std::vector<ElementSpec> elements = {
      {"yolo",
       "yolo",
       {{"model", settings.model},
        {n.device.element, settings.device},
        {n.conf.element, settings.conf},
        {n.iou.element, settings.iou},
        {n.classes.element, settings.classes},
        {"inference-interval", static_cast<unsigned>(settings.inference_interval)},
        {"model-instance-id", model_instance_id(settings)},
        {"batch-size", static_cast<unsigned>(batching.batch_size)},
        {"batch-timeout", saturated_us(timeout)},
        {"stream-id", stream.id},
        {"http-port", 0},
        {"snapshot-interval", 0u},
        {n.bf16.element, settings.bf16},
        {n.rect.element, settings.rect}}}};
  // One tracker per stream: each stream's pipeline has its own element (ids from 1 per stream,
  // and from 1 again when a supervisor rebuilds the pipeline after a camera drop).
  // The tracker's settings, read with the configuration, go to it as a value: the file is not
  // read again, and what runs is what was checked.
  if (!settings.tracker.empty()) {
    ElementSpec tracker{"yolotracker", "tracker", {{"tracker", settings.tracker}}};
    if (settings.tracker_config)
      tracker.properties.emplace_back(
          "settings", StructureValue(gst::tracker_settings_structure(*settings.tracker_config)));
    elements.push_back(std::move(tracker));
  }
  return elements;
}

}  // namespace yolo::monitor
