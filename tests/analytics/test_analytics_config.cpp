// Analytics settings: the documented example reads as written; every kind of bad input is an
// std::invalid_argument that names where, the key and what is allowed.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>

#include "yolo/analytics/analytics_config.h"

using yolo::analytics::AnalyticsConfig;
using yolo::analytics::Anchor;
using yolo::analytics::for_frame;
using yolo::analytics::parse_analytics;
using yolo::analytics::Units;

namespace {

AnalyticsConfig parse(const std::string& yaml) {
  return parse_analytics(YAML::Load(yaml), "test.yaml: stream 'cam1'");
}

void expect_error(const std::string& yaml, const std::string& needle) {
  try {
    parse(yaml);
    ADD_FAILURE() << "no error for:\n" << yaml;
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_NE(what.find("test.yaml: stream 'cam1'"), std::string::npos) << what;
  }
}

}  // namespace

TEST(AnalyticsConfig, ReadsTheDocumentedExample) {
  const AnalyticsConfig c = parse(R"(
units: pixels
anchor: bottom_center
track_timeout: 3.5
lines:
  - name: door
    points: [[320, 0], [320, 480]]
  - name: ramp
    points: [[0, 100], [640, 300]]
    in: [0, -1]
zones:
  - name: bay
    points: [[100, 100], [300, 100], [300, 300], [100, 300]]
    dwell: 360
  - points: [[400, 100], [500, 100], [450, 200]]
)");
  EXPECT_EQ(c.units, Units::kPixels);
  EXPECT_EQ(c.anchor, Anchor::kBottomCenter);
  EXPECT_DOUBLE_EQ(c.track_timeout_s, 3.5);
  ASSERT_EQ(c.lines.size(), 2u);
  EXPECT_EQ(c.lines[0].name, "door");
  EXPECT_FALSE(c.lines[0].in_direction.has_value());  // auto
  EXPECT_DOUBLE_EQ(c.lines[0].b.y, 480);
  ASSERT_TRUE(c.lines[1].in_direction.has_value());
  EXPECT_DOUBLE_EQ(c.lines[1].in_direction->y, -1);
  ASSERT_EQ(c.zones.size(), 2u);
  EXPECT_EQ(c.zones[0].name, "bay");
  EXPECT_EQ(c.zones[0].points.size(), 4u);
  EXPECT_DOUBLE_EQ(c.zones[0].dwell_seconds.value(), 360);
  EXPECT_EQ(c.zones[1].name, "zone2");  // unnamed: by position
  EXPECT_FALSE(c.zones[1].dwell_seconds.has_value());
}

TEST(AnalyticsConfig, DefaultsAreInheritedAndEmptyIsEmpty) {
  AnalyticsConfig defaults;
  defaults.units = Units::kNormalized;
  defaults.track_timeout_s = 9;
  const AnalyticsConfig c =
      parse_analytics(YAML::Load("lines: [{points: [[0.5, 0], [0.5, 1]]}]"), "x", defaults);
  EXPECT_EQ(c.units, Units::kNormalized);
  EXPECT_DOUBLE_EQ(c.track_timeout_s, 9);
  EXPECT_EQ(c.lines.size(), 1u);
  EXPECT_TRUE(parse_analytics(YAML::Load("uri: rtsp://x"), "x").empty());
  EXPECT_TRUE(parse_analytics(YAML::Node(), "x").empty());
}

TEST(AnalyticsConfig, BadInputNamesTheKeyAndWhatIsAllowed) {
  expect_error("zones: [{name: z, points: [[0, 0], [10, 10]]}]", "at least 3 points");
  expect_error("zones: [{name: z, points: [[0, 0], [10, 10], [10, 0], [0, 10]]}]",
               "crosses itself");
  expect_error("zones: [{name: z, points: [[0, 0], [10, 0], [20, 0]]}]", "no area");
  expect_error("zones: [{name: z, points: [[0, 0], [10, 0], [10, 10]], dwell: 0}]", "dwell");
  expect_error("zones: [{name: z, points: [[0, 0], [10, 0], [10, 10]], dwel: 5}]",
               "did you mean dwell");
  expect_error("lines: [{name: l, points: [[0, 0], [10, 0], [10, 10]]}]", "a line has 2 points");
  expect_error("lines: [{name: l, points: [[5, 5], [5, 5]]}]", "the same point");
  expect_error("lines: [{name: l, points: [[0, 0], [10, 0]], in: [1, 0]}]", "along the line");
  expect_error("lines: [{name: l, points: [[0, 0], [10, 0]], in: sideways}]",
               "auto or a direction");
  expect_error("lines: [{name: l, points: [[0, 0], [ten, 0]]}]", "must be a number");
  expect_error("lines: [{name: l, points: [[0, 0]]}]", "a line has 2 points");
  expect_error("lines: [{name: l, points: [0, 0]}]", "must be a pair");
  expect_error("lines: [{name: 'a b', points: [[0, 0], [10, 0]]}]", "letters, digits");
  expect_error(
      "lines: [{name: a, points: [[0, 0], [10, 0]]}]\nzones: [{name: a, points: [[0, 0], [10, "
      "0], [10, 10]]}]",
      "two lines or zones are named 'a'");
  expect_error("units: normalized\nlines: [{name: l, points: [[0, 0], [640, 0]]}]", "outside 0..1");
  expect_error("units: metres", "units must be pixels or normalized");
  expect_error("anchor: top", "anchor must be center or bottom_center");
  expect_error("track_timeout: -1", "track_timeout");
  expect_error("lines: {points: [[0, 0], [1, 1]]}", "lines must be a list");
  expect_error("lines: [{name: l, points: [[0, 0], [10, 0]], colour: red}]",
               "unknown key 'colour'");
}

TEST(AnalyticsConfig, ForFrameScalesNormalizedAndRefusesPointsOutsideTheFrame) {
  const AnalyticsConfig n = parse(R"(
units: normalized
lines: [{name: mid, points: [[0.5, 0], [0.5, 1]], in: [1, 0]}]
zones: [{name: left, points: [[0, 0], [0.25, 0], [0.25, 1], [0, 1]]}]
)");
  const AnalyticsConfig px = for_frame(n, 640, 360, "cam1");
  EXPECT_EQ(px.units, Units::kPixels);
  EXPECT_DOUBLE_EQ(px.lines[0].a.x, 320);
  EXPECT_DOUBLE_EQ(px.lines[0].b.y, 360);
  EXPECT_DOUBLE_EQ(px.zones[0].points[1].x, 160);

  const AnalyticsConfig p = parse("lines: [{name: far, points: [[0, 0], [1000, 0]]}]");
  try {
    for_frame(p, 640, 360, "stream 'cam1'");
    ADD_FAILURE() << "a line outside the frame was taken";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("line 'far'"), std::string::npos) << what;
    EXPECT_NE(what.find("outside the 640x360 frame"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(for_frame(p, 1280, 720, "cam1"));
}
