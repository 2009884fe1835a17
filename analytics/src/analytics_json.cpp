#include "yolo/analytics/analytics_json.h"

#include "yolo/core/utc_time.h"

namespace yolo::analytics {

nlohmann::json to_json(const AnalyticsEvent& e) {
  const bool line = e.type == EventType::kLineCrossed;
  nlohmann::json j = {{"type", to_string(e.type)},        {"stream_id", e.stream_id},
                      {line ? "line" : "zone", e.region}, {"track_id", e.track_id},
                      {"class_id", e.class_id},           {"class_name", e.class_name}};
  if (line) j["direction"] = e.direction;
  if (e.type == EventType::kZoneExited) j["reason"] = e.reason;
  if (e.type == EventType::kZoneExited || e.type == EventType::kDwellExceeded)
    j["dwell_s"] = e.dwell_s;
  j["x"] = e.position.x;
  j["y"] = e.position.y;
  j["frame"] = e.frame;
  j["pts_ns"] = e.pts_ns;
  j["timestamp"] = format_utc(e.wall_time);
  return j;
}

nlohmann::json to_json(const AnalyticsCounts& c) {
  nlohmann::json lines = nlohmann::json::array();
  for (const LineCounts& l : c.lines) {
    nlohmann::json per_class = nlohmann::json::object();
    for (const auto& [name, d] : l.per_class) per_class[name] = {{"in", d.in}, {"out", d.out}};
    lines.push_back(
        {{"name", l.name}, {"in", l.total.in}, {"out", l.total.out}, {"classes", per_class}});
  }
  nlohmann::json zones = nlohmann::json::array();
  for (const ZoneCounts& z : c.zones) {
    nlohmann::json per_class = nlohmann::json::object();
    for (const auto& [name, n] : z.occupancy_per_class) per_class[name]["occupancy"] = n;
    for (const auto& [name, n] : z.entries_per_class) per_class[name]["entries"] = n;
    zones.push_back({{"name", z.name},
                     {"occupancy", z.occupancy},
                     {"entries", z.entries},
                     {"exits", z.exits},
                     {"classes", per_class}});
  }
  return {{"lines", lines}, {"zones", zones}};
}

nlohmann::json geometry_json(const AnalyticsConfig& c) {
  nlohmann::json lines = nlohmann::json::array(), zones = nlohmann::json::array();
  for (const auto& l : c.lines)
    lines.push_back({{"name", l.name}, {"points", {{l.a.x, l.a.y}, {l.b.x, l.b.y}}}});
  for (const auto& z : c.zones) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : z.points) points.push_back({p.x, p.y});
    zones.push_back({{"name", z.name}, {"points", points}});
  }
  return {{"lines", lines}, {"zones", zones}};
}

nlohmann::json counts_json(const StreamAnalytics& a) {
  nlohmann::json j = to_json(a.counts());
  if (const auto placed = a.placed()) {
    j["width"] = a.frame_width();
    j["height"] = a.frame_height();
    j["geometry"] = geometry_json(*placed);
  }
  return j;
}

}  // namespace yolo::analytics
