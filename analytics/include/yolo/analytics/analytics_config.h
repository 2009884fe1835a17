// What a stream counts: lines (two points and which way is "in") and zones (polygons, with an
// optional dwell threshold), read from YAML with the keys of docs/analytics.md:
//
//   units: pixels            # or normalized: 0..1 of the frame's width and height
//   anchor: center           # the point of a box that crosses and occupies: center, bottom_center
//   track_timeout: 2.0       # seconds unseen before a track is forgotten (and leaves its zones)
//   lines:
//     - name: door
//       points: [[320, 0], [320, 480]]
//       in: auto             # or a direction [dx, dy]: motion that way counts as "in"
//   zones:
//     - name: bay
//       points: [[100, 100], [300, 100], [300, 300], [100, 300]]
//       dwell: 360           # seconds inside before a dwell_exceeded event; absent: none
//
// Bad input is std::invalid_argument naming where (the file and stream), the key and what is
// allowed. Geometry that needs the frame size (pixel coordinates outside the frame) is checked
// by for_frame() when the stream's size is known.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "yolo/analytics/geometry.h"

namespace YAML {
class Node;
}

namespace yolo::analytics {

enum class Units { kPixels, kNormalized };
enum class Anchor { kCenter, kBottomCenter };
const char* to_string(Units units);
const char* to_string(Anchor anchor);

struct LineSpec {
  std::string name;
  Point a, b;
  // nullopt ("auto", Ultralytics' ObjectCounter): across a line closer to vertical, motion to the
  // right is "in"; across one closer to horizontal, motion down is "in". Otherwise motion whose
  // component along this direction (across the line) is positive is "in".
  std::optional<Point> in_direction;
};

struct ZoneSpec {
  std::string name;
  std::vector<Point> points;
  std::optional<double> dwell_seconds;
};

struct AnalyticsConfig {
  Units units = Units::kPixels;
  Anchor anchor = Anchor::kCenter;
  double track_timeout_s = 2.0;
  std::vector<LineSpec> lines;
  std::vector<ZoneSpec> zones;

  bool empty() const { return lines.empty() && zones.empty(); }
};

// The keys parse_analytics reads from a stream's node, for callers that check the other keys.
const std::vector<std::string>& analytics_keys();

// Reads the analytics keys of `node` (a map; other keys are the caller's), starting from
// `defaults` (units, anchor and track_timeout inherited; lines and zones replaced when given).
// `where` prefixes every error ("monitor.yaml: stream 'cam1'").
AnalyticsConfig parse_analytics(const YAML::Node& node, const std::string& where,
                                const AnalyticsConfig& defaults = {});

// The config in pixels of a width x height frame. Throws std::invalid_argument naming the line
// or zone when a point lies outside the frame.
AnalyticsConfig for_frame(const AnalyticsConfig& config, int width, int height,
                          const std::string& where);

}  // namespace yolo::analytics
