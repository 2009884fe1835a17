// A tracker's settings as a GstStructure named "yolo-tracker-settings", one typed field per key of
// Ultralytics' tracker YAML (tracker_type, track_high_thresh, ..., gmc_method, with_reid, model)
// plus source. A process that has read the settings already (yolo-monitor checks a stream's
// tracker file when it reads its configuration) hands them to its yolotracker element as this
// value through the element's `settings` property, so the file is read once, and the element runs
// exactly what was checked even if the file changes afterwards.
#pragma once

#include <gst/gst.h>

#include "yolo/tracking/tracker_config.h"

namespace yolo::gst {

// A new structure; the caller owns it.
GstStructure* tracker_settings_structure(const tracking::TrackerConfig& config);

// The settings a structure holds. Throws yolo::UsageError naming the field for a structure that is
// not one (another name, a missing or mistyped field, an unknown tracker_type or gmc_method) and
// for values parse_tracker_config would refuse (check_tracker_config).
tracking::TrackerConfig tracker_config_from_structure(const GstStructure* structure);

}  // namespace yolo::gst
