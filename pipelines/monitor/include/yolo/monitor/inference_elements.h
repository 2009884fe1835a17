// The `yolo` element as a stream's inference fragment (the part of the pipeline description
// between the converter and the appsink). Streams with the same model and device share one
// model instance (model-instance-id), so their frames are batched together.
#pragma once

#include <string>

#include "yolo/monitor/monitor_config.h"

namespace yolo::monitor {

// "yolo model=\"...\" device=\"...\" conf-threshold=... model-instance-id=\"...\" ...", the
// values quoted for gst_parse_launch. The element's own HTTP endpoint and snapshots stay off:
// the service serves results through its own server. With a tracker, "... ! yolotracker
// name=tracker tracker=\"...\"" follows, so the appsink's ROI metas carry track ids.
std::string yolo_fragment(const StreamConfig& stream, const InferenceSettings& settings,
                          const BatchingConfig& batching);

// The model-instance-id shared by every stream running `settings.model` on `settings.device`.
std::string model_instance_id(const InferenceSettings& settings);

}  // namespace yolo::monitor
