#include "yolo/analytics/analytics_config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <regex>
#include <set>
#include <stdexcept>

#include "yolo/core/strings.h"

namespace yolo::analytics {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument(where + ": " + what);
}

// "did you mean" for a mistyped key.
void check_keys(const YAML::Node& node, const std::vector<std::string>& allowed,
                const std::string& where) {
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const auto near = closest_matches(key, allowed, 1);
    fail(where, fmt::format("unknown key '{}'{} (allowed: {})", key,
                            near.empty() ? "" : fmt::format(", did you mean {}?", near[0]),
                            fmt::join(allowed, ", ")));
  }
}

double number(const YAML::Node& n, const std::string& where, const std::string& key) {
  try {
    const double v = n.as<double>();
    if (!std::isfinite(v)) fail(where, fmt::format("{} must be a finite number", key));
    return v;
  } catch (const YAML::Exception&) {
    fail(where, fmt::format("{} must be a number, not '{}'", key, YAML::Dump(n)));
  }
}

std::vector<Point> points_of(const YAML::Node& n, const std::string& where) {
  if (!n || !n.IsSequence())
    fail(where, "points must be a list of [x, y] pairs, e.g. points: [[0, 100], [640, 100]]");
  std::vector<Point> out;
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node p = n[i];
    if (!p.IsSequence() || p.size() != 2)
      fail(where, fmt::format("points[{}] must be a pair [x, y], not '{}'", i, YAML::Dump(p)));
    const std::string key = fmt::format("points[{}]", i);
    out.push_back({number(p[0], where, key), number(p[1], where, key)});
  }
  return out;
}

std::string name_of(const YAML::Node& item, const std::string& fallback, const std::string& where) {
  if (!item["name"]) return fallback;
  const std::string name = item["name"].as<std::string>();
  // Names appear in URLs, metric labels and MQTT topics: keep them plain.
  static const std::regex plain("[A-Za-z0-9_.-]{1,64}");
  if (!std::regex_match(name, plain))
    fail(where, fmt::format("name '{}' must be 1 to 64 letters, digits, '_', '.' or '-'", name));
  return name;
}

void check_normalized(const std::vector<Point>& points, const std::string& where) {
  for (size_t i = 0; i < points.size(); ++i) {
    const Point p = points[i];
    if (p.x < 0 || p.x > 1 || p.y < 0 || p.y > 1)
      fail(where, fmt::format("points[{}] = [{}, {}] is outside 0..1 (units: normalized; use "
                              "units: pixels for pixel coordinates)",
                              i, p.x, p.y));
  }
}

LineSpec parse_line(const YAML::Node& item, size_t index, Units units, const std::string& where) {
  const std::string at = fmt::format("{}: lines[{}]", where, index);
  if (!item.IsMap()) fail(at, "each line is a map with name, points and in");
  check_keys(item, {"name", "points", "in"}, at);
  LineSpec line;
  line.name = name_of(item, fmt::format("line{}", index + 1), at);
  const std::string named = fmt::format("{}: line '{}'", where, line.name);
  const std::vector<Point> points = points_of(item["points"], named);
  if (points.size() != 2)
    fail(named, fmt::format("a line has 2 points, not {} (a polygon is a zone)", points.size()));
  if (points[0] == points[1]) fail(named, "its 2 points are the same point");
  if (units == Units::kNormalized) check_normalized(points, named);
  line.a = points[0];
  line.b = points[1];
  if (const YAML::Node in = item["in"]) {
    if (in.IsScalar() && in.as<std::string>() == "auto") {
      // Ultralytics' rule (the default).
    } else if (in.IsSequence() && in.size() == 2) {
      const Point d{number(in[0], named, "in[0]"), number(in[1], named, "in[1]")};
      // Only the component across the line matters; one along it says nothing.
      const double across = (line.b.x - line.a.x) * d.y - (line.b.y - line.a.y) * d.x;
      if (across == 0)
        fail(named,
             "in runs along the line: give a direction across it, e.g. [1, 0] for a "
             "vertical line");
      line.in_direction = d;
    } else {
      fail(named, fmt::format("in must be auto or a direction [dx, dy], not '{}'", YAML::Dump(in)));
    }
  }
  return line;
}

ZoneSpec parse_zone(const YAML::Node& item, size_t index, Units units, const std::string& where) {
  const std::string at = fmt::format("{}: zones[{}]", where, index);
  if (!item.IsMap()) fail(at, "each zone is a map with name, points and dwell");
  check_keys(item, {"name", "points", "dwell"}, at);
  ZoneSpec zone;
  zone.name = name_of(item, fmt::format("zone{}", index + 1), at);
  const std::string named = fmt::format("{}: zone '{}'", where, zone.name);
  zone.points = points_of(item["points"], named);
  if (zone.points.size() < 3)
    fail(named, fmt::format("a zone is a polygon of at least 3 points, not {} (2 points make a "
                            "line: put it under lines)",
                            zone.points.size()));
  if (units == Units::kNormalized) check_normalized(zone.points, named);
  if (!is_simple(zone.points))
    fail(named,
         "the polygon crosses itself, repeats a point or has no area: list its corners "
         "in order around it");
  if (const YAML::Node dwell = item["dwell"]) {
    const double s = number(dwell, named, "dwell");
    if (s <= 0) fail(named, fmt::format("dwell is seconds > 0, not {}", s));
    zone.dwell_seconds = s;
  }
  return zone;
}

}  // namespace

const char* to_string(Units units) {
  return units == Units::kPixels ? "pixels" : "normalized";
}

const char* to_string(Anchor anchor) {
  return anchor == Anchor::kCenter ? "center" : "bottom_center";
}

const std::vector<std::string>& analytics_keys() {
  static const std::vector<std::string> keys = {"units", "anchor", "track_timeout", "lines",
                                                "zones"};
  return keys;
}

AnalyticsConfig parse_analytics(const YAML::Node& node, const std::string& where,
                                const AnalyticsConfig& defaults) {
  AnalyticsConfig c = defaults;
  if (!node || node.IsNull()) return c;
  if (!node.IsMap()) fail(where, "expected a map of analytics settings");
  try {
    if (const YAML::Node units = node["units"]) {
      const std::string u = units.as<std::string>();
      if (u == "pixels") {
        c.units = Units::kPixels;
      } else if (u == "normalized") {
        c.units = Units::kNormalized;
      } else {
        fail(where, fmt::format("units must be pixels or normalized, not '{}'", u));
      }
    }
    if (const YAML::Node anchor = node["anchor"]) {
      const std::string a = anchor.as<std::string>();
      if (a == "center") {
        c.anchor = Anchor::kCenter;
      } else if (a == "bottom_center") {
        c.anchor = Anchor::kBottomCenter;
      } else {
        fail(where, fmt::format("anchor must be center or bottom_center, not '{}'", a));
      }
    }
    if (const YAML::Node timeout = node["track_timeout"]) {
      c.track_timeout_s = number(timeout, where, "track_timeout");
      if (c.track_timeout_s <= 0 || c.track_timeout_s > 86400)
        fail(where, fmt::format("track_timeout is seconds, > 0 and at most 86400 (a day), not {}",
                                c.track_timeout_s));
    }
    std::set<std::string> names;
    auto unique = [&](const std::string& name) {
      if (!names.insert(name).second)
        fail(where, fmt::format("two lines or zones are named '{}': names must differ", name));
    };
    if (const YAML::Node lines = node["lines"]) {
      if (!lines.IsSequence() && !lines.IsNull()) fail(where, "lines must be a list");
      c.lines.clear();
      for (size_t i = 0; i < lines.size(); ++i) {
        c.lines.push_back(parse_line(lines[i], i, c.units, where));
        unique(c.lines.back().name);
      }
    } else {
      for (const auto& l : c.lines) unique(l.name);
    }
    if (const YAML::Node zones = node["zones"]) {
      if (!zones.IsSequence() && !zones.IsNull()) fail(where, "zones must be a list");
      c.zones.clear();
      for (size_t i = 0; i < zones.size(); ++i) {
        c.zones.push_back(parse_zone(zones[i], i, c.units, where));
        unique(c.zones.back().name);
      }
    } else {
      for (const auto& z : c.zones) unique(z.name);
    }
  } catch (const YAML::Exception& e) {
    fail(where, fmt::format("malformed analytics settings: {}", e.msg));
  }
  return c;
}

AnalyticsConfig for_frame(const AnalyticsConfig& config, int width, int height,
                          const std::string& where) {
  if (width <= 0 || height <= 0)
    fail(where, fmt::format("the frame size {}x{} is not a frame", width, height));
  AnalyticsConfig c = config;
  const double sx = c.units == Units::kNormalized ? width : 1.0;
  const double sy = c.units == Units::kNormalized ? height : 1.0;
  auto place = [&](Point& p, const std::string& what, size_t i) {
    p = {p.x * sx, p.y * sy};
    if (p.x < 0 || p.x > width || p.y < 0 || p.y > height)
      fail(where, fmt::format("{}: points[{}] = [{}, {}] is outside the {}x{} frame", what, i, p.x,
                              p.y, width, height));
  };
  for (auto& l : c.lines) {
    place(l.a, "line '" + l.name + "'", 0);
    place(l.b, "line '" + l.name + "'", 1);
    // Directions scale with the frame too, so "in" keeps its meaning on a non-square frame.
    if (l.in_direction) *l.in_direction = {l.in_direction->x * sx, l.in_direction->y * sy};
  }
  for (auto& z : c.zones) {
    for (size_t i = 0; i < z.points.size(); ++i) place(z.points[i], "zone '" + z.name + "'", i);
  }
  c.units = Units::kPixels;
  return c;
}

}  // namespace yolo::analytics
