// The JSON of events and counts (docs/detections-json.md, "Events" and "Counts"): what the HTTP
// API serves, the JSON lines hold and the broker receives. Field names are stable; new fields
// may be added, none renamed.
#pragma once

#include <nlohmann/json.hpp>

#include "yolo/analytics/stream_analytics.h"

namespace yolo::analytics {

nlohmann::json to_json(const AnalyticsEvent& e);
nlohmann::json to_json(const AnalyticsCounts& c);

}  // namespace yolo::analytics
