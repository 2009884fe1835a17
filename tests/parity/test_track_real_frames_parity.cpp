// Tracking on real frames, side by side with Ultralytics (#53; label `parity`, skipped without the
// ultralytics package or the test assets that tools/install-deps.sh --oracle brings). Real
// footage made from real photos with camera motion: a window that pans and zooms across
// bus.jpg (people, a bus) and zidane.jpg (two people), written as PNG image sequences so that both
// tools read identical pixels. Ultralytics' COCO yolo11n.pt tracks them with model.track(persist=
// True) (tools/parity/ultralytics_track_frames.py) and `yolo-trainer track` with the folder as
// one sequence, both in FP32 with their defaults otherwise. Every Ultralytics row must be matched
// by one of ours (IoU >= 0.9, at least 99.5 %) with one-to-one ids: no id of either side maps to
// two of the other's. ByteTrack and BoT-SORT (whose motion compensation runs on OpenCV).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "oracle.h"
#include "run_command.h"
#include "test_files.h"
#include "yolo/tracking/mot_format.h"

namespace fs = std::filesystem;
using yolo::tracking::MotRow;

namespace {

fs::path asset(const std::string& name) {
  return fs::path(YOLO_TEST_ASSETS) / name;
}

// `frames` frames of `size` cut from `photo` by a window that moves from `from` to `to` (x, y,
// width; the height keeps the output's aspect), as a camera that pans and zooms; written as
// seq/img1/000001.png ...
void write_camera_motion(const fs::path& photo, const fs::path& seq, int frames, cv::Size size,
                         cv::Vec3d from, cv::Vec3d to) {
  const cv::Mat image = cv::imread(photo.string());
  ASSERT_FALSE(image.empty()) << photo;
  fs::create_directories(seq / "img1");
  const double aspect = static_cast<double>(size.height) / size.width;
  for (int k = 0; k < frames; ++k) {
    const double t = frames > 1 ? static_cast<double>(k) / (frames - 1) : 0.0;
    const cv::Vec3d w = from * (1.0 - t) + to * t;
    cv::Rect window(static_cast<int>(w[0]), static_cast<int>(w[1]), static_cast<int>(w[2]),
                    static_cast<int>(w[2] * aspect));
    window &= cv::Rect(0, 0, image.cols, image.rows);
    cv::Mat frame;
    cv::resize(image(window), frame, size, 0, 0, cv::INTER_AREA);
    char name[32];
    std::snprintf(name, sizeof name, "%06d.png", k + 1);
    ASSERT_TRUE(cv::imwrite((seq / "img1" / name).string(), frame));
  }
}

double iou(const MotRow& a, const MotRow& b) {
  const double iw = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
  const double ih = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
  if (iw <= 0 || ih <= 0) return 0;
  return iw * ih / (a.w * a.h + b.w * b.h - iw * ih);
}

struct Comparison {
  size_t theirs = 0, ours = 0, matched = 0;
  int conflicts = 0;  // ids of either side matched to more than one id of the other
  double min_iou = 1.0;
};

// Per frame, pairs of highest IoU first (>= 0.9), then how the matched ids map.
Comparison compare(const std::vector<MotRow>& theirs, const std::vector<MotRow>& ours) {
  Comparison c;
  c.theirs = theirs.size();
  c.ours = ours.size();
  std::map<int, std::vector<const MotRow*>> t_by_frame, o_by_frame;
  for (const MotRow& r : theirs) t_by_frame[r.frame].push_back(&r);
  for (const MotRow& r : ours) o_by_frame[r.frame].push_back(&r);
  std::map<int, std::set<int>> t_to_o, o_to_t;
  for (const auto& [frame, t_rows] : t_by_frame) {
    const auto& o_rows = o_by_frame[frame];
    std::vector<std::tuple<double, size_t, size_t>> pairs;
    for (size_t i = 0; i < t_rows.size(); ++i)
      for (size_t j = 0; j < o_rows.size(); ++j)
        if (const double v = iou(*t_rows[i], *o_rows[j]); v >= 0.9) pairs.emplace_back(v, i, j);
    std::sort(pairs.rbegin(), pairs.rend());
    std::vector<bool> t_used(t_rows.size()), o_used(o_rows.size());
    for (const auto& [v, i, j] : pairs) {
      if (t_used[i] || o_used[j]) continue;
      t_used[i] = o_used[j] = true;
      ++c.matched;
      c.min_iou = std::min(c.min_iou, v);
      t_to_o[t_rows[i]->id].insert(o_rows[j]->id);
      o_to_t[o_rows[j]->id].insert(t_rows[i]->id);
    }
  }
  for (const auto& [id, mapped] : t_to_o) c.conflicts += mapped.size() > 1;
  for (const auto& [id, mapped] : o_to_t) c.conflicts += mapped.size() > 1;
  return c;
}

class TrackRealFrames : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(TrackRealFrames, IdsAndBoxesAreUltralyticsOnTheSameFrames) {
  YOLO_REQUIRE_ORACLE();
  if (!fs::exists(asset("yolo11n.pt")) || !fs::exists(asset("bus.jpg")) ||
      !fs::exists(asset("zidane.jpg")))
    GTEST_SKIP() << "the test assets are not in " << YOLO_TEST_ASSETS
                 << " (tools/install-deps.sh --oracle brings them)";
  const std::string tracker = GetParam();
  yolo::testing::TempDir tmp("track_real_frames");
  struct Sequence {
    std::string name;
    fs::path photo;
    cv::Size size;
    cv::Vec3d from, to;
  };
  // bus.jpg is 810x1080, zidane.jpg 1280x720.
  const std::vector<Sequence> sequences = {
      {"bus-pan", asset("bus.jpg"), {480, 640}, {0, 0, 700}, {100, 120, 560}},
      {"zidane-pan", asset("zidane.jpg"), {640, 360}, {0, 40, 1100}, {260, 120, 880}}};
  size_t theirs = 0, matched = 0;
  int conflicts = 0;
  for (const Sequence& s : sequences) {
    const fs::path seq = tmp.path / s.name;
    write_camera_motion(s.photo, seq, 40, s.size, s.from, s.to);
    const auto r = yolo::testing::run_command(
        std::string(YOLO_TRAINER_BIN) + " track model=" + asset("yolo11n.pt").string() +
        " source=" + seq.string() + " tracker=" + tracker + " bf16=False save=False project=" +
        (tmp.path / "runs").string() + " name=" + s.name + " verbose=False");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const fs::path ours_file = tmp.path / "runs" / s.name / "mot" / (s.name + ".txt");
    const fs::path theirs_file = tmp.path / (s.name + "_ultralytics.txt");
    const nlohmann::json oracle = yolo::parity::oracle_json(
        "ultralytics_track_frames.py --model " + asset("yolo11n.pt").string() + " --source " +
        (seq / "img1").string() + " --tracker " + tracker + " --out " + theirs_file.string());
    ASSERT_TRUE(oracle.is_object()) << "the oracle printed no JSON";
    EXPECT_EQ(oracle["frames"].get<int>(), 40);
    const auto t = yolo::tracking::read_mot_file(theirs_file).rows;
    const auto o = yolo::tracking::read_mot_file(ours_file).rows;
    ASSERT_GT(t.size(), 40u) << "too few tracked boxes to compare";
    const Comparison c = compare(t, o);
    std::cout << tracker << " " << s.name << ": Ultralytics " << c.theirs << " rows, ours "
              << c.ours << ", matched " << c.matched << " (IoU >= 0.9, lowest " << c.min_iou
              << "), id conflicts " << c.conflicts << "\n";
    theirs += c.theirs;
    matched += c.matched;
    conflicts += c.conflicts;
  }
  const double share = static_cast<double>(matched) / static_cast<double>(theirs);
  std::cout << tracker << ": " << matched << " of " << theirs << " Ultralytics rows matched ("
            << 100.0 * share << " %)\n";
  EXPECT_GE(share, 0.995);
  EXPECT_EQ(conflicts, 0);
}

INSTANTIATE_TEST_SUITE_P(Trackers, TrackRealFrames,
                         ::testing::Values("bytetrack.yaml", "botsort.yaml"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param == "bytetrack.yaml" ? std::string("ByteTrack")
                                                                  : std::string("BotSort");
                         });
