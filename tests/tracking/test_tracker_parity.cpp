// Our ByteTrack and BoT-SORT against Ultralytics' own (8.4.190, run as the oracle by
// tools/parity/ultralytics_track_replay.py) on the same detections: on every frame the same
// confirmed tracks (matched through the detection each was updated with), the same ids up to
// one fixed renumbering for the whole run, boxes within 1e-3 px, the same scores and classes.
// Scenes from tests/tracking/track_scenario.h, several seeds each; one test pans a camera so
// that BoT-SORT's motion compensation works on real image motion.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "run_command.h"
#include "test_files.h"
#include "track_scenario.h"
#include "yolo/tracking/tracker.h"
#include "yolo/tracking/tracker_config.h"

namespace fs = std::filesystem;
using namespace yolo::tracking;
using yolo::testing::ScenarioOptions;
using yolo::testing::TrackScenario;

namespace {

bool oracle_available() {
  const std::string cmd =
      std::string(YOLO_TEST_PYTHON) + " -c 'import ultralytics.trackers, lap' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

struct Row {
  int64_t id;
  float x1, y1, x2, y2, score;
  int cls;
};
using FrameRows = std::map<int, Row>;  // by detection index

std::vector<FrameRows> read_oracle(const fs::path& path, size_t frames) {
  std::vector<FrameRows> rows(frames);
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    int frame = 0, idx = 0;
    Row r{};
    ls >> frame >> r.id >> r.x1 >> r.y1 >> r.x2 >> r.y2 >> r.score >> r.cls >> idx;
    rows.at(frame - 1)[idx] = r;
  }
  return rows;
}

std::vector<FrameRows> run_ours(const TrackScenario& s, const TrackerConfig& config) {
  Tracker tracker(config);
  std::vector<FrameRows> rows;
  for (size_t f = 0; f < s.detections.size(); ++f) {
    const cv::Mat* frame = s.frames.empty() ? nullptr : &s.frames[f];
    FrameRows frame_rows;
    for (const Track& t : tracker.update(s.detections[f], frame)) {
      frame_rows[t.detection_index] = {t.id, t.x1, t.y1, t.x2, t.y2, t.score, t.class_id};
    }
    rows.push_back(frame_rows);
  }
  return rows;
}

struct Comparison {
  int frames_differing = 0;
  int rows = 0;
  double worst_box = 0;
  std::string first_difference;
};

// Same tracks per frame, one fixed renumbering of ids for the whole run.
Comparison compare(const std::vector<FrameRows>& ours, const std::vector<FrameRows>& theirs) {
  Comparison c;
  std::map<int64_t, int64_t> ours_to_theirs, theirs_to_ours;
  auto note = [&c](size_t f, const std::string& what) {
    if (c.first_difference.empty())
      c.first_difference = "frame " + std::to_string(f + 1) + ": " + what;
  };
  for (size_t f = 0; f < ours.size(); ++f) {
    bool differs = ours[f].size() != theirs[f].size();
    if (differs) {
      note(f, std::to_string(ours[f].size()) + " tracks, Ultralytics " +
                  std::to_string(theirs[f].size()));
    }
    for (const auto& [idx, a] : ours[f]) {
      ++c.rows;
      auto it = theirs[f].find(idx);
      if (it == theirs[f].end()) {
        differs = true;
        note(f, "detection " + std::to_string(idx) + " tracked only by us");
        continue;
      }
      const Row& b = it->second;
      const auto [o2t, new_o] = ours_to_theirs.emplace(a.id, b.id);
      const auto [t2o, new_t] = theirs_to_ours.emplace(b.id, a.id);
      if (o2t->second != b.id || t2o->second != a.id) {
        differs = true;
        note(f, "id " + std::to_string(a.id) + " is Ultralytics' " + std::to_string(b.id) +
                    ", earlier " + std::to_string(o2t->second));
      }
      const double box = std::max({std::abs(a.x1 - b.x1), std::abs(a.y1 - b.y1),
                                   std::abs(a.x2 - b.x2), std::abs(a.y2 - b.y2)});
      c.worst_box = std::max(c.worst_box, box);
      if (box > 1e-3 || std::abs(a.score - b.score) > 2e-6 || a.cls != b.cls) {
        differs = true;
        note(f, "track " + std::to_string(a.id) + " box differs by " + std::to_string(box) +
                    " px or score/class differ");
      }
    }
    c.frames_differing += differs ? 1 : 0;
  }
  return c;
}

struct OracleRun {
  std::vector<FrameRows> rows;
  fs::path warps;
};

OracleRun run_oracle(const TrackScenario& s, const fs::path& dir, const std::string& tracker_yaml) {
  const fs::path dets = dir / "detections.txt", out = dir / "oracle_tracks.txt";
  yolo::testing::write_scenario_detections(s, dets);
  std::string frames_arg;
  if (!s.frames.empty()) {
    yolo::testing::write_scenario_frames(s, dir / "frames");
    frames_arg = " --frames " + (dir / "frames").string();
  }
  const std::string cmd = std::string(YOLO_TEST_PYTHON) + " " + YOLO_SOURCE_DIR +
                          "/tools/parity/ultralytics_track_replay.py --detections " +
                          dets.string() + " --frames-count " + std::to_string(s.detections.size()) +
                          " --tracker " + tracker_yaml + " --width " + std::to_string(s.width) +
                          " --height " + std::to_string(s.height) + frames_arg + " --out " +
                          out.string() + " --warps " + (dir / "warps.txt").string();
  const yolo::testing::CommandResult r = yolo::testing::run_command(cmd);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return {read_oracle(out, s.detections.size()), dir / "warps.txt"};
}

std::string builtin_yaml_path(const std::string& name) {
  return std::string(YOLO_SOURCE_DIR) + "/config/trackers/" + name;
}

#define REQUIRE_TRACKER_ORACLE()                                                     \
  do {                                                                               \
    if (!oracle_available()) {                                                       \
      GTEST_SKIP() << YOLO_TEST_PYTHON                                               \
                   << " has no ultralytics or lap (tools/install-deps.sh --oracle)"; \
    }                                                                                \
  } while (0)

void expect_parity_over_seeds(const std::string& yaml, std::initializer_list<unsigned> seeds) {
  for (unsigned seed : seeds) {
    yolo::testing::TempDir dir("tracker_parity_" + std::to_string(seed));
    ScenarioOptions o;
    o.seed = seed;
    const TrackScenario s = yolo::testing::make_track_scenario(o);
    const OracleRun oracle = run_oracle(s, dir.path, builtin_yaml_path(yaml));
    const Comparison c =
        compare(run_ours(s, load_tracker_config(builtin_yaml_path(yaml))), oracle.rows);
    EXPECT_GT(c.rows, 2000) << "seed " << seed << ": too few tracks to mean anything";
    EXPECT_EQ(c.frames_differing, 0) << yaml << " seed " << seed << ": " << c.first_difference;
    std::printf("%s seed %u: %d track rows over %zu frames, %d frames differ, worst box %.2e px\n",
                yaml.c_str(), seed, c.rows, s.detections.size(), c.frames_differing, c.worst_box);
  }
}

}  // namespace

TEST(TrackerParity, ByteTrackMatchesUltralytics) {
  REQUIRE_TRACKER_ORACLE();
  expect_parity_over_seeds("bytetrack.yaml", {1, 2, 3, 4});
}

TEST(TrackerParity, BotSortMatchesUltralyticsOnAStillCamera) {
  REQUIRE_TRACKER_ORACLE();
  expect_parity_over_seeds("botsort.yaml", {5, 6, 7, 8});
}

TEST(TrackerParity, BotSortWithMotionCompensationOnAPanningCamera) {
  REQUIRE_TRACKER_ORACLE();
  for (unsigned seed : {11u, 12u}) {
    yolo::testing::TempDir dir("tracker_parity_pan_" + std::to_string(seed));
    ScenarioOptions o;
    o.seed = seed;
    o.frames = 300;
    o.width = 480;
    o.height = 360;
    o.objects = 10;
    o.pan = true;
    const TrackScenario s = yolo::testing::make_track_scenario(o);
    const OracleRun oracle = run_oracle(s, dir.path, builtin_yaml_path("botsort.yaml"));
    const Comparison c = compare(run_ours(s, load_tracker_config("botsort.yaml")), oracle.rows);
    EXPECT_GT(c.rows, 1000);
    EXPECT_EQ(c.frames_differing, 0) << "seed " << seed << ": " << c.first_difference;
    std::printf("botsort+gmc seed %u: %d track rows, %d frames differ, worst box %.2e px\n", seed,
                c.rows, c.frames_differing, c.worst_box);
  }
}

// Detections a trained YOLO26n made on a real (synthetic) video: 600 frames of shapes that
// cross and hide each other and leave the frame for 12 to 73 frames before coming back (shorter
// and longer than track_buffer), every box down to conf 0.05 (tests/tracking/data/README.md says
// how the file was made). The camera is still, so BoT-SORT runs without frames here.
TEST(TrackerParity, BothTrackersOnARealDetectorsOutput) {
  REQUIRE_TRACKER_ORACLE();
  const TrackScenario s = yolo::testing::read_scenario_detections(
      fs::path(YOLO_SOURCE_DIR) / "tests" / "tracking" / "data" / "synthetic_video_detections.txt",
      256, 144);
  ASSERT_GE(s.detections.size(), 500u);
  for (const std::string yaml : {"bytetrack.yaml", "botsort.yaml"}) {
    yolo::testing::TempDir dir("tracker_parity_real_" + yaml);
    const OracleRun oracle = run_oracle(s, dir.path, builtin_yaml_path(yaml));
    const Comparison c = compare(run_ours(s, load_tracker_config(yaml)), oracle.rows);
    EXPECT_GT(c.rows, 2000) << yaml;
    EXPECT_EQ(c.frames_differing, 0) << yaml << ": " << c.first_difference;
    std::printf(
        "%s on a detector's output: %d track rows over %zu frames, %d frames differ, "
        "worst box %.2e px\n",
        yaml.c_str(), c.rows, s.detections.size(), c.frames_differing, c.worst_box);
  }
}

TEST(TrackerParity, ChangingOneDefaultBreaksParity) {
  // The comparison has the power to see a change: each of these alone makes frames differ.
  REQUIRE_TRACKER_ORACLE();
  yolo::testing::TempDir dir("tracker_parity_power");
  ScenarioOptions o;
  o.seed = 21;
  const TrackScenario s = yolo::testing::make_track_scenario(o);
  const OracleRun oracle = run_oracle(s, dir.path, builtin_yaml_path("bytetrack.yaml"));
  const TrackerConfig base = load_tracker_config("bytetrack.yaml");
  EXPECT_EQ(compare(run_ours(s, base), oracle.rows).frames_differing, 0);
  std::vector<std::pair<std::string, TrackerConfig>> changed(5, {"", base});
  changed[0].first = "track_buffer 25", changed[0].second.track_buffer = 25;
  changed[1].first = "match_thresh 0.7", changed[1].second.match_thresh = 0.7;
  changed[2].first = "new_track_thresh 0.3", changed[2].second.new_track_thresh = 0.3;
  changed[3].first = "fuse_score False", changed[3].second.fuse_score = false;
  changed[4].first = "track_low_thresh 0.15", changed[4].second.track_low_thresh = 0.15;
  for (const auto& [what, config] : changed) {
    const Comparison c = compare(run_ours(s, config), oracle.rows);
    EXPECT_GT(c.frames_differing, 0) << what << " went unnoticed";
    std::printf("with %s: %d frames differ\n", what.c_str(), c.frames_differing);
  }
}
