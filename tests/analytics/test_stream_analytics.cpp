// Lines, zones and events over frames: every event kind, the edges (a track jittering on a line
// counts once, a track leaving and re-entering a zone, a track hidden for a moment keeps its
// place, a lost one leaves its zones, a reset stream), and the JSON.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "yolo/analytics/analytics_json.h"
#include "yolo/analytics/stream_analytics.h"

using namespace yolo::analytics;

namespace {

constexpr int64_t kFrameNs = 100'000'000;  // 10 fps

AnalyticsConfig config(const std::string& yaml) {
  return parse_analytics(YAML::Load(yaml), "test");
}

TrackedObject at(int64_t id, double cx, double cy, const std::string& cls = "person") {
  TrackedObject o;
  o.track_id = id;
  o.class_id = cls == "person" ? 0 : 1;
  o.class_name = cls;
  o.x1 = static_cast<float>(cx - 5);
  o.x2 = static_cast<float>(cx + 5);
  o.y1 = static_cast<float>(cy - 5);
  o.y2 = static_cast<float>(cy + 5);
  return o;
}

// Feeds frames with PTS 100 ms apart; returns every event.
struct Feeder {
  StreamAnalytics analytics;
  int64_t frame = 0;
  std::vector<AnalyticsEvent> events;

  explicit Feeder(const std::string& yaml) : analytics("cam1", config(yaml)) {}

  std::vector<AnalyticsEvent> step(std::vector<TrackedObject> objects,
                                   std::vector<int64_t> ended = {}) {
    AnalyticsFrame f;
    f.frame = frame;
    f.pts_ns = frame * kFrameNs;
    f.width = 640;
    f.height = 480;
    f.objects = std::move(objects);
    f.ended_track_ids = std::move(ended);
    ++frame;
    auto e = analytics.update(f);
    events.insert(events.end(), e.begin(), e.end());
    return e;
  }
};

const char* kDoor = "lines: [{name: door, points: [[320, 0], [320, 480]]}]";
const char* kBay =
    "zones: [{name: bay, points: [[100, 100], [300, 100], [300, 300], [100, 300]], dwell: 1}]";

}  // namespace

TEST(StreamAnalytics, ACrossingCountsOncePerTrackAndDirection) {
  Feeder f(kDoor);
  EXPECT_TRUE(f.step({at(1, 300, 200), at(2, 400, 200, "car")}).empty());  // first sight
  auto e = f.step({at(1, 330, 200), at(2, 310, 200, "car")});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].type, EventType::kLineCrossed);
  EXPECT_EQ(e[0].region, "door");
  EXPECT_EQ(e[0].track_id, 1);
  EXPECT_EQ(e[0].direction, "in");  // a vertical line: to the right is in
  EXPECT_EQ(e[1].direction, "out");
  EXPECT_EQ(e[1].class_name, "car");
  EXPECT_EQ(e[0].pts_ns, kFrameNs);
  // Jitter back and forth over the line: counted already, never again.
  for (int i = 0; i < 6; ++i) f.step({at(1, i % 2 ? 330 : 310, 200)});
  const AnalyticsCounts c = f.analytics.counts();
  ASSERT_EQ(c.lines.size(), 1u);
  EXPECT_EQ(c.lines[0].total.in, 1u);
  EXPECT_EQ(c.lines[0].total.out, 1u);
  EXPECT_EQ(c.lines[0].per_class.at("person").in, 1u);
  EXPECT_EQ(c.lines[0].per_class.at("car").out, 1u);
  EXPECT_EQ(f.events.size(), 2u);
}

TEST(StreamAnalytics, DirectionsOfHorizontalAndExplicitLines) {
  Feeder f(R"(lines:
  - {name: floor, points: [[0, 240], [640, 240]]}
  - {name: slant, points: [[0, 0], [640, 480]], in: [-1, 1]})");
  f.step({at(1, 100, 230), at(2, 500, 250)});
  auto e = f.step({at(1, 100, 250), at(2, 500, 230)});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].direction, "in");   // a horizontal line: down is in
  EXPECT_EQ(e[1].direction, "out");  // up is out
  // The slanted line y = 0.75 x, "in" towards the lower left.
  f.step({at(3, 300, 200)});      // above the line (y < 225)
  e = f.step({at(3, 280, 235)});  // below it, moving left and down: in
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].region, "slant");
  EXPECT_EQ(e[0].direction, "in");
  f.step({at(4, 200, 170)});  // below (y > 150)
  e = f.step({at(4, 220, 140)});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].direction, "out");
}

TEST(StreamAnalytics, TouchingTheLineCountsAndAGapUsesWhereTheTrackWasLastSeen) {
  Feeder f(kDoor);
  f.step({at(1, 300, 200)});
  auto e = f.step({at(1, 320, 200)});  // the centre lands on the line: it intersects
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].direction, "in");
  // Track 2 is seen left of the line, hidden for 5 frames (< track_timeout), seen right of it.
  f.step({at(2, 250, 100)});
  for (int i = 0; i < 5; ++i) f.step({});
  e = f.step({at(2, 400, 100)});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].track_id, 2);
}

TEST(StreamAnalytics, ZoneEntriesExitsDwellAndReEntry) {
  Feeder f(kBay);
  EXPECT_TRUE(f.step({at(1, 50, 50)}).empty());
  auto e = f.step({at(1, 150, 150)});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].type, EventType::kZoneEntered);
  EXPECT_EQ(f.analytics.counts().zones[0].occupancy, 1u);
  // 1 s (10 frames) inside: one dwell_exceeded, not one per frame.
  int dwell_events = 0;
  for (int i = 0; i < 15; ++i) {
    for (const auto& ev : f.step({at(1, 150 + i, 150)})) {
      EXPECT_EQ(ev.type, EventType::kDwellExceeded);
      EXPECT_NEAR(ev.dwell_s, 1.0, 1e-9);
      ++dwell_events;
    }
  }
  EXPECT_EQ(dwell_events, 1);
  e = f.step({at(1, 350, 150)});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].type, EventType::kZoneExited);
  EXPECT_EQ(e[0].reason, "left");
  EXPECT_NEAR(e[0].dwell_s, 1.6, 1e-9);
  EXPECT_EQ(f.analytics.counts().zones[0].occupancy, 0u);
  // Back in, and out again: a second visit with its own dwell clock.
  e = f.step({at(1, 200, 200)});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].type, EventType::kZoneEntered);
  e = f.step({at(1, 200, 350)});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NEAR(e[0].dwell_s, 0.1, 1e-9);
  const ZoneCounts z = f.analytics.counts().zones[0];
  EXPECT_EQ(z.entries, 2u);
  EXPECT_EQ(z.exits, 2u);
  EXPECT_EQ(z.entries_per_class.at("person"), 2u);
  // A track first seen inside has entered too.
  e = f.step({at(5, 120, 120, "car")});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].type, EventType::kZoneEntered);
  EXPECT_EQ(f.analytics.counts().zones[0].occupancy_per_class.at("car"), 1u);
}

TEST(StreamAnalytics, HiddenTracksStayLostOnesLeave) {
  Feeder f(std::string(kBay) + "\ntrack_timeout: 1.0");
  f.step({at(1, 150, 150), at(2, 160, 160)});
  // Both unseen; track 1 is ended by the tracker, track 2 only times out after 1 s.
  auto e = f.step({}, {1});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].type, EventType::kZoneExited);
  EXPECT_EQ(e[0].track_id, 1);
  EXPECT_EQ(e[0].reason, "lost");
  EXPECT_EQ(f.analytics.counts().zones[0].occupancy, 1u);
  for (int i = 0; i < 9; ++i) EXPECT_TRUE(f.step({}).empty()) << i;  // 1.0 s unseen: kept
  e = f.step({});                                                    // 1.1 s: lost
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].track_id, 2);
  EXPECT_EQ(e[0].reason, "lost");
  EXPECT_NEAR(e[0].dwell_s, 0.0, 1e-9);  // the visit ends where it was last seen
  EXPECT_EQ(f.analytics.counts().zones[0].occupancy, 0u);
  EXPECT_EQ(f.analytics.counts().zones[0].exits, 2u);
}

// A track that times out but comes back under its id (the tracker kept it longer than
// track_timeout) is not counted twice, and moves on from where it was last seen, as
// Ultralytics' counter keeps a track's history and counted id until the tracker removes it.
TEST(StreamAnalytics, ATimedOutTrackThatComesBackIsNotCountedTwice) {
  Feeder f(std::string(kDoor) + "\ntrack_timeout: 0.5");
  f.step({at(1, 300, 200), at(2, 250, 100)});
  f.step({at(1, 340, 200), at(2, 300, 100)});  // 1 in; 2 not yet across
  for (int i = 0; i < 6; ++i) f.step({});      // both time out
  EXPECT_TRUE(f.step({at(1, 300, 200)}).empty()) << "track 1 was counted before its gap";
  auto e = f.step({at(2, 340, 100)});  // 2 goes on from x = 300: across
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].track_id, 2);
  EXPECT_EQ(e[0].direction, "in");
  // Once the tracker says it ended a track, or the stream resets, an id is new again.
  f.step({}, {1});
  f.step({at(1, 360, 200)});
  e = f.step({at(1, 300, 200)});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].direction, "out");
}

// A new frame size (the camera changed resolution) starts the tracks again: their points were in
// the old pixels. A frame without PTS on a PTS clock keeps the last time (no track times out).
TEST(StreamAnalytics, ANewFrameSizeResetsAndAMissingPtsKeepsTheClock) {
  StreamAnalytics a("cam1",
                    config("units: normalized\n"
                           "zones: [{name: all, points: [[0, 0], [1, 0], [1, 1], [0, 1]]}]"));
  AnalyticsFrame f;
  f.width = 640;
  f.height = 480;
  f.pts_ns = 0;
  f.objects = {at(1, 100, 100)};
  ASSERT_EQ(a.update(f).size(), 1u);  // entered
  f.pts_ns = -1;                      // no PTS: the clock stays, the track is not lost
  f.objects = {};
  f.wall_time = std::chrono::system_clock::now();
  EXPECT_TRUE(a.update(f).empty());
  f.pts_ns = 100'000'000;
  f.width = 1280;
  f.height = 720;
  f.objects = {at(1, 200, 200)};
  const auto e = a.update(f);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].type, EventType::kZoneExited);
  EXPECT_EQ(e[0].reason, "reset");
  EXPECT_EQ(e[1].type, EventType::kZoneEntered);
  EXPECT_DOUBLE_EQ(a.placed()->zones[0].points[2].x, 1280);
}

TEST(StreamAnalytics, ResetEmptiesTheZonesAndKeepsTheTotals) {
  Feeder f(std::string(kBay) + "\n" + kDoor);
  f.step({at(1, 150, 150)});
  f.step({at(1, 150, 160), at(2, 310, 400)});
  f.step({at(1, 150, 170), at(2, 330, 400)});  // 2 crosses the door
  AnalyticsFrame at_restart;
  at_restart.frame = 3;
  auto e = f.analytics.reset(at_restart);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].reason, "reset");
  EXPECT_NEAR(e[0].dwell_s, 0.2, 1e-9);
  const AnalyticsCounts c = f.analytics.counts();
  EXPECT_EQ(c.zones[0].occupancy, 0u);
  EXPECT_EQ(c.zones[0].entries, 1u);
  EXPECT_EQ(c.lines[0].total.in, 1u);
  // Id 2 again after the reset is a new object: its first sight does not count.
  f.frame = 0;
  EXPECT_TRUE(f.step({at(2, 400, 400)}).empty());
}

TEST(StreamAnalytics, BrokenInputIsSkippedAndAMisfitFrameThrowsWithoutHarm) {
  Feeder f(std::string(kDoor) + "\n" + kBay);
  TrackedObject nan = at(1, 150, 150);
  nan.x1 = std::numeric_limits<float>::quiet_NaN();
  TrackedObject untracked = at(0, 150, 150);
  EXPECT_TRUE(f.step({nan, untracked}).empty());
  EXPECT_EQ(f.analytics.counts().zones[0].occupancy, 0u);
  // A frame the door does not fit in (its line runs to y = 480).
  AnalyticsFrame small;
  small.width = 320;
  small.height = 240;
  small.objects = {at(3, 10, 10)};
  EXPECT_THROW(f.analytics.update(small), std::invalid_argument);
  f.step({at(3, 150, 150)});
  EXPECT_EQ(f.analytics.counts().zones[0].occupancy, 1u);
  // Thousands of tracks in one frame.
  std::vector<TrackedObject> many;
  for (int i = 0; i < 5000; ++i) many.push_back(at(100 + i, 50 + i % 500, 50 + i / 500 * 40));
  EXPECT_NO_THROW(f.step(many));
}

TEST(StreamAnalytics, EventsAndCountsAsJson) {
  Feeder f(std::string(kDoor) + "\n" + kBay);
  f.step({at(7, 305, 200)});  // right of the bay, left of the door
  auto e = f.step({at(7, 330, 200)});
  ASSERT_EQ(e.size(), 1u);
  const nlohmann::json j = to_json(e[0]);
  EXPECT_EQ(j["type"], "line_crossed");
  EXPECT_EQ(j["stream_id"], "cam1");
  EXPECT_EQ(j["line"], "door");
  EXPECT_EQ(j["track_id"], 7);
  EXPECT_EQ(j["direction"], "in");
  EXPECT_EQ(j["pts_ns"], kFrameNs);
  EXPECT_EQ(j["frame"], 1);
  EXPECT_DOUBLE_EQ(j["x"].get<double>(), 330);
  EXPECT_TRUE(j.contains("timestamp"));
  EXPECT_FALSE(j.contains("zone"));
  f.step({at(8, 150, 150)});
  e = f.step({at(8, 400, 150)});
  const nlohmann::json exit = to_json(e.at(1));
  EXPECT_EQ(exit["type"], "zone_exited");
  EXPECT_EQ(exit["zone"], "bay");
  EXPECT_EQ(exit["reason"], "left");
  EXPECT_NEAR(exit["dwell_s"].get<double>(), 0.1, 1e-9);
  const nlohmann::json counts = to_json(f.analytics.counts());
  EXPECT_EQ(counts["lines"][0]["name"], "door");
  EXPECT_EQ(counts["lines"][0]["in"], 2);
  EXPECT_EQ(counts["lines"][0]["classes"]["person"]["in"], 2);
  EXPECT_EQ(counts["zones"][0]["entries"], 1);
  EXPECT_EQ(counts["zones"][0]["occupancy"], 0);
}
