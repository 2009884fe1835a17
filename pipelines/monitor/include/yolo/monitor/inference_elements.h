// The inference part of a stream's pipeline (between the BGR converter and the appsink): the
// `yolo` element with the stream's resolved settings as typed properties and, with a tracker, a
// `yolotracker` after it. Streams with the same model and device share one model instance
// (model-instance-id), so their frames are batched together.
#pragma once

#include <string>
#include <vector>

#include "yolo/monitor/element_spec.h"
#include "yolo/monitor/monitor_config.h"

namespace yolo::monitor {

// {yolo name=yolo model=... device=... conf-threshold=... model-instance-id=... ...}, each value
// in the type of its property. The element's own HTTP endpoint and snapshots stay off: the
// service serves results through its own server. With a tracker, {yolotracker name=tracker
// tracker=...} follows, so the appsink's ROI metas carry track ids.
std::vector<ElementSpec> inference_elements(const StreamConfig& stream,
                                            const StreamSettings& settings,
                                            const BatchingConfig& batching);

// The model-instance-id shared by every stream running `settings.model` on `settings.device`.
std::string model_instance_id(const StreamSettings& settings);

}  // namespace yolo::monitor
