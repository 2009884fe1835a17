// What tracking costs per frame: ByteTrack, BoT-SORT without and with motion compensation, at
// 10, 100 and 500 objects per frame (scenes of tests/tracking/track_scenario.h: moving, crossing,
// missed and false detections), against Ultralytics' own trackers on the same detections in the
// same run when its Python is given (--python). Prints a table; asserts nothing.
//
//   bench_tracker [--frames 300] [--python /opt/yolo-edge/venv/bin/python]
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "track_scenario.h"
#include "yolo/core/main_guard.h"
#include "yolo/tracking/tracker.h"
#include "yolo/tracking/tracker_config.h"

namespace fs = std::filesystem;
using namespace yolo::tracking;

namespace {

struct Arm {
  std::string name;
  std::string yaml;  // built-in name
  bool frames;       // motion compensation sees the frames
};

struct Timing {
  double mean, p50, p99;  // milliseconds per update()
};

Timing time_ours(const yolo::testing::TrackScenario& s, const Arm& arm) {
  TrackerConfig config = load_tracker_config(arm.yaml);
  if (!arm.frames) config.gmc_method = GmcMethod::kNone;
  Tracker tracker(config);
  std::vector<double> ms;
  for (size_t f = 0; f < s.detections.size(); ++f) {
    const cv::Mat* frame = arm.frames ? &s.frames[f] : nullptr;
    const auto start = yolo::bench::Clock::now();
    tracker.update(s.detections[f], frame);
    ms.push_back(1000.0 * yolo::bench::seconds_since(start));
  }
  std::sort(ms.begin(), ms.end());
  double total = 0;
  for (double v : ms) total += v;
  return {total / ms.size(), ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)]};
}

// Ultralytics' mean milliseconds per update on the same detections (and frames), or -1.
double time_ultralytics(const yolo::testing::TrackScenario& s, const Arm& arm,
                        const std::string& python, const fs::path& dir) {
  if (python.empty()) return -1;
  fs::create_directories(dir);
  yolo::testing::write_scenario_detections(s, dir / "detections.txt");
  std::string frames_arg;
  if (arm.frames) {
    yolo::testing::write_scenario_frames(s, dir / "frames");
    frames_arg = " --frames " + (dir / "frames").string();
  }
  // Without frames Ultralytics' BoT-SORT is given no image, so its GMC is skipped as ours is.
  const std::string cmd = fmt::format(
      "{} {}/tools/parity/ultralytics_track_replay.py --detections {} --frames-count {} "
      "--tracker {}/config/trackers/{} --width {} --height {}{}{} --out {} 2>/dev/null | tail -n 1",
      python, YOLO_SOURCE_DIR, (dir / "detections.txt").string(), s.detections.size(),
      YOLO_SOURCE_DIR, arm.yaml, s.width, s.height, frames_arg, arm.frames ? "" : " --no-image",
      (dir / "tracks.txt").string());
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return -1;
  std::string text;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) text.append(buf, n);
  pclose(pipe);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  return j.is_object() && j.contains("update_ms_mean") ? j["update_ms_mean"].get<double>() : -1;
}

int run(int argc, char** argv) {
  CLI::App app("Tracker cost per frame, ours and Ultralytics' on the same detections");
  int frames = 300;
  std::string python;
  app.add_option("--frames", frames, "frames per scene")->check(CLI::Range(10, 100000));
  app.add_option("--python", python, "a Python with ultralytics and lap: adds its timings");
  CLI11_PARSE(app, argc, argv);

  const fs::path tmp = fs::temp_directory_path() / "bench_tracker";
  const std::vector<Arm> arms = {{"ByteTrack", "bytetrack.yaml", false},
                                 {"BoT-SORT, no GMC", "botsort.yaml", false},
                                 {"BoT-SORT + sparseOptFlow", "botsort.yaml", true}};
  fmt::print("{:<26} {:>7} {:>10} {:>10} {:>10} {:>16} {:>12}\n", "tracker", "objects", "ours mean",
             "ours p50", "ours p99", "Ultralytics mean", "ours/theirs");
  for (int objects : {10, 100, 500}) {
    yolo::testing::ScenarioOptions o;
    o.seed = 100 + objects;
    o.frames = frames;
    o.objects = objects;
    o.width = 1280;
    o.height = 720;
    const yolo::testing::TrackScenario plain = yolo::testing::make_track_scenario(o);
    o.pan = true;
    o.width = 640;
    o.height = 480;
    const yolo::testing::TrackScenario panned = yolo::testing::make_track_scenario(o);
    for (const Arm& arm : arms) {
      const yolo::testing::TrackScenario& s = arm.frames ? panned : plain;
      const Timing ours = time_ours(s, arm);
      const double theirs =
          time_ultralytics(s, arm, python, tmp / fmt::format("{}_{}", objects, arm.frames));
      fmt::print("{:<26} {:>7} {:>8.3f}ms {:>8.3f}ms {:>8.3f}ms {:>16} {:>12}\n", arm.name, objects,
                 ours.mean, ours.p50, ours.p99,
                 theirs < 0 ? std::string("-") : fmt::format("{:.3f}ms", theirs),
                 theirs < 0 ? std::string("-") : fmt::format("{:.3f}x", ours.mean / theirs));
    }
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
