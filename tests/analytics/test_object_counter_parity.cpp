// Line counts against Ultralytics' own ObjectCounter (label parity): the same tracks, made by our
// tracker from simulated detector output (crossings, occlusions, objects leaving and coming
// back) and from a real detector's output on a video, go through ObjectCounter.process() (one
// counter per line, tools/parity/ultralytics_object_counter.py) and through StreamAnalytics. On
// every frame the same tracks must be counted, in the same direction; the totals per class must
// match. A changed rule (the anchor point) must make them differ: the comparison has power.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "run_command.h"
#include "test_files.h"
#include "track_scenario.h"
#include "yolo/analytics/stream_analytics.h"
#include "yolo/tracking/tracker.h"
#include "yolo/tracking/tracker_config.h"

namespace fs = std::filesystem;
using namespace yolo::analytics;
using nlohmann::json;

namespace {

bool oracle_available() {
  const std::string cmd =
      std::string(YOLO_TEST_PYTHON) + " -c 'import ultralytics.solutions, shapely' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

#define REQUIRE_COUNTER_ORACLE()                                                         \
  do {                                                                                   \
    if (!oracle_available())                                                             \
      GTEST_SKIP() << YOLO_TEST_PYTHON                                                   \
                   << " has no ultralytics or shapely (tools/install-deps.sh --oracle)"; \
  } while (0)

const std::vector<std::string> kNames = {"circle", "ellipse", "triangle"};

struct TrackFrames {
  int width = 0, height = 0;
  std::vector<std::vector<TrackedObject>> objects;  // per frame
  std::vector<std::vector<int64_t>> ended;
};

// Our tracker's confirmed tracks over the scene, as the analytics and the counter get them.
TrackFrames track(const yolo::testing::TrackScenario& s) {
  yolo::tracking::Tracker tracker(yolo::tracking::load_tracker_config("bytetrack.yaml"));
  TrackFrames t;
  t.width = s.width;
  t.height = s.height;
  for (const auto& dets : s.detections) {
    std::vector<TrackedObject> objects;
    for (const auto& tr : tracker.update(dets)) {
      const int cls = tr.class_id;
      objects.push_back({tr.id, cls, kNames.at(static_cast<size_t>(cls) % kNames.size()), tr.x1,
                         tr.y1, tr.x2, tr.y2});
    }
    t.objects.push_back(std::move(objects));
    t.ended.push_back(tracker.ended_ids());
  }
  return t;
}

using Line = std::pair<Point, Point>;

// Per line: frame -> (counted ids, in, out); and the totals.
struct LineResult {
  std::map<int, std::tuple<std::vector<int64_t>, int, int>> frames;
  int in = 0, out = 0;
  std::map<std::string, std::pair<int, int>> classwise;
};

std::vector<LineResult> run_oracle(const TrackFrames& t, const std::vector<Line>& lines,
                                   const fs::path& dir) {
  json input = {{"width", t.width}, {"height", t.height}};
  for (size_t i = 0; i < kNames.size(); ++i) input["names"][std::to_string(i)] = kNames[i];
  input["lines"] = json::array();
  for (const auto& [a, b] : lines) input["lines"].push_back({{a.x, a.y}, {b.x, b.y}});
  input["frames"] = json::array();
  for (size_t f = 0; f < t.objects.size(); ++f) {
    json objects = json::array();
    for (const auto& o : t.objects[f])
      objects.push_back({o.track_id, o.class_id, o.x1, o.y1, o.x2, o.y2});
    input["frames"].push_back({{"objects", objects}, {"ended", t.ended[f]}});
  }
  const fs::path in = dir / "tracks.json", out = dir / "counts.json";
  std::ofstream(in) << input.dump();
  const auto r =
      yolo::testing::run_command(std::string(YOLO_TEST_PYTHON) + " " + YOLO_SOURCE_DIR +
                                 "/tools/parity/ultralytics_object_counter.py --tracks " +
                                 in.string() + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<LineResult> results;
  if (r.exit_code != 0) return results;
  const json got = json::parse(std::ifstream(out));
  for (const auto& l : got["lines"]) {
    LineResult res;
    res.in = l["in"];
    res.out = l["out"];
    for (const auto& [name, c] : l["classwise"].items())
      res.classwise[name] = {c["IN"].get<int>(), c["OUT"].get<int>()};
    for (const auto& f : l["frames"])
      res.frames[f[0].get<int>()] = {f[1].get<std::vector<int64_t>>(), f[2].get<int>(),
                                     f[3].get<int>()};
    results.push_back(std::move(res));
  }
  return results;
}

std::vector<LineResult> run_ours(const TrackFrames& t, const std::vector<Line>& lines,
                                 Anchor anchor = Anchor::kCenter) {
  AnalyticsConfig c;
  c.anchor = anchor;
  c.track_timeout_s = 1e9;  // only the tracker ends tracks, as ObjectCounter forgets them
  for (size_t i = 0; i < lines.size(); ++i)
    c.lines.push_back({"line" + std::to_string(i), lines[i].first, lines[i].second, {}});
  StreamAnalytics analytics("parity", c);
  std::vector<LineResult> results(lines.size());
  for (size_t f = 0; f < t.objects.size(); ++f) {
    AnalyticsFrame frame;
    frame.frame = static_cast<int64_t>(f);
    frame.pts_ns = static_cast<int64_t>(f) * 33'333'333;
    frame.width = t.width;
    frame.height = t.height;
    frame.objects = t.objects[f];
    frame.ended_track_ids = t.ended[f];
    for (const AnalyticsEvent& e : analytics.update(frame)) {
      if (e.type != EventType::kLineCrossed) continue;
      const size_t l = std::stoul(e.region.substr(4));
      auto& [ids, in, out] = results[l].frames[static_cast<int>(f)];
      ids.push_back(e.track_id);
      std::sort(ids.begin(), ids.end());
      (e.direction == "in" ? in : out) += 1;
    }
  }
  const AnalyticsCounts counts = analytics.counts();
  for (size_t l = 0; l < lines.size(); ++l) {
    results[l].in = static_cast<int>(counts.lines[l].total.in);
    results[l].out = static_cast<int>(counts.lines[l].total.out);
    for (const auto& [name, d] : counts.lines[l].per_class)
      if (d.in + d.out > 0)
        results[l].classwise[name] = {static_cast<int>(d.in), static_cast<int>(d.out)};
  }
  return results;
}

// Frames where the two counted differently, over every line.
int differing_frames(const std::vector<LineResult>& ours, const std::vector<LineResult>& theirs,
                     std::string* first) {
  int n = 0;
  for (size_t l = 0; l < ours.size() && l < theirs.size(); ++l) {
    std::set<int> frames;
    for (const auto& kv : ours[l].frames) frames.insert(kv.first);
    for (const auto& kv : theirs[l].frames) frames.insert(kv.first);
    for (int f : frames) {
      const auto a = ours[l].frames.count(f) ? ours[l].frames.at(f)
                                             : std::tuple<std::vector<int64_t>, int, int>{};
      const auto b = theirs[l].frames.count(f) ? theirs[l].frames.at(f)
                                               : std::tuple<std::vector<int64_t>, int, int>{};
      if (a != b) {
        if (n++ == 0 && first)
          *first = "line " + std::to_string(l) + " frame " + std::to_string(f) + ": ours " +
                   json(std::get<0>(a)).dump() + " in " + std::to_string(std::get<1>(a)) + " out " +
                   std::to_string(std::get<2>(a)) + ", Ultralytics' " +
                   json(std::get<0>(b)).dump() + " in " + std::to_string(std::get<1>(b)) + " out " +
                   std::to_string(std::get<2>(b));
      }
    }
  }
  return n;
}

void expect_parity(const TrackFrames& t, const std::vector<Line>& lines, const std::string& what) {
  yolo::testing::TempDir dir("counter_parity");
  const std::vector<LineResult> theirs = run_oracle(t, lines, dir.path);
  ASSERT_EQ(theirs.size(), lines.size());
  const std::vector<LineResult> ours = run_ours(t, lines);
  std::string first;
  EXPECT_EQ(differing_frames(ours, theirs, &first), 0) << what << ": " << first;
  int crossings = 0;
  for (size_t l = 0; l < lines.size(); ++l) {
    EXPECT_EQ(ours[l].in, theirs[l].in) << what << " line " << l;
    EXPECT_EQ(ours[l].out, theirs[l].out) << what << " line " << l;
    EXPECT_EQ(ours[l].classwise, theirs[l].classwise) << what << " line " << l;
    crossings += theirs[l].in + theirs[l].out;
    std::printf("%s line %zu: in %d out %d (Ultralytics %d / %d)\n", what.c_str(), l, ours[l].in,
                ours[l].out, theirs[l].in, theirs[l].out);
  }
  EXPECT_GE(crossings, 20) << what << ": too few crossings to mean anything";
}

std::vector<Line> lines_for(int w, int h) {
  const double W = w, H = h;
  return {{{W / 2, 0}, {W / 2, H}},                    // vertical, the full height
          {{0, H / 2}, {W, H / 2}},                    // horizontal
          {{0, 0}, {W, H}},                            // diagonal, closer to horizontal
          {{W * 0.3, H * 0.2}, {W * 0.35, H * 0.7}},   // a short, slanted door
          {{W * 0.1, H * 0.8}, {W * 0.9, H * 0.78}}};  // nearly horizontal
}

}  // namespace

TEST(ObjectCounterParity, LinesOnSimulatedScenes) {
  REQUIRE_COUNTER_ORACLE();
  for (unsigned seed : {3u, 11u, 29u}) {
    yolo::testing::ScenarioOptions o;
    o.seed = seed;
    const TrackFrames t = track(yolo::testing::make_track_scenario(o));
    expect_parity(t, lines_for(t.width, t.height), "seed " + std::to_string(seed));
  }
}

TEST(ObjectCounterParity, LinesOnARealDetectorsTracks) {
  REQUIRE_COUNTER_ORACLE();
  const TrackFrames t = track(yolo::testing::read_scenario_detections(
      fs::path(YOLO_SOURCE_DIR) / "tests" / "tracking" / "data" / "synthetic_video_detections.txt",
      256, 144));
  ASSERT_GE(t.objects.size(), 500u);
  expect_parity(t, lines_for(t.width, t.height), "real detector");
}

TEST(ObjectCounterParity, AChangedRuleIsSeen) {
  REQUIRE_COUNTER_ORACLE();
  yolo::testing::ScenarioOptions o;
  o.seed = 3;
  const TrackFrames t = track(yolo::testing::make_track_scenario(o));
  const auto lines = lines_for(t.width, t.height);
  yolo::testing::TempDir dir("counter_parity_power");
  const auto theirs = run_oracle(t, lines, dir.path);
  EXPECT_EQ(differing_frames(run_ours(t, lines), theirs, nullptr), 0);
  EXPECT_GT(differing_frames(run_ours(t, lines, Anchor::kBottomCenter), theirs, nullptr), 0);
}
