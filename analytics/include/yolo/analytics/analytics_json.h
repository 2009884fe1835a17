// The JSON of events and counts (docs/detections-json.md, "Events" and "Counts"): what the HTTP
// API serves, the JSON lines hold and the broker receives. Field names are stable; new fields
// may be added, none renamed.
#pragma once

#include <nlohmann/json.hpp>

#include "yolo/analytics/stream_analytics.h"

namespace yolo::analytics {

nlohmann::json to_json(const AnalyticsEvent& e);
nlohmann::json to_json(const AnalyticsCounts& c);
// The lines and zones of a config (in pixels once placed for a frame):
// {"lines": [{"name", "points": [[x, y], [x, y]]}], "zones": [{"name", "points": [...]}]}.
nlohmann::json geometry_json(const AnalyticsConfig& c);
// The stream's counts (to_json) and, once it has seen a frame, the frame's "width", "height" and
// the "geometry" in its pixels: what the counts endpoint serves and the dashboard draws.
nlohmann::json counts_json(const StreamAnalytics& a);

}  // namespace yolo::analytics
