// Real weights on real photos (#52; label `parity`, skipped without the ultralytics package or
// the test assets, which tools/install-deps.sh --oracle brings): Ultralytics' official COCO
// yolo11n.pt on eight photos of several aspect ratios (portrait, square, 3:2, 16:9; one with no
// object), hand-labelled (tests/data/real_photos). From the same file, `yolo-trainer val` and
// `predict` give what Ultralytics' own give, at 320 and 640 px, both in FP32 (as Ultralytics runs
// on a CPU) and both with the square letterbox (rect=False on Ultralytics' side).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "as_ultralytics.h"
#include "label_boxes.h"
#include "oracle.h"
#include "run_command.h"
#include "test_files.h"
#include "yolo/models/checkpoint.h"

namespace fs = std::filesystem;
using yolo::parity::LabelBox;

namespace {

const std::vector<std::string> kPhotos = {
    "astronaut.png",       "bus.jpg",    "chelsea.png", "coffee.png", "grace_hopper.jpg",
    "motorcycle_left.png", "rocket.jpg", "zidane.jpg"};

fs::path asset(const std::string& name) {
  return fs::path(YOLO_TEST_ASSETS) / name;
}

bool assets_present() {
  if (!fs::exists(asset("yolo11n.pt"))) return false;
  for (const std::string& p : kPhotos) {
    if (!fs::exists(asset(p))) return false;
  }
  return true;
}

std::string trainer(const std::string& args) {
  const auto r = yolo::testing::run_command(std::string(YOLO_TRAINER_BIN) + " " + args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n"
                            << r.output.substr(r.output.size() > 3000 ? r.output.size() - 3000 : 0);
  return r.output;
}

// The photos and their labels as an Ultralytics dataset in `dir` (val split only, the model's
// 80 COCO names); returns its data.yaml.
fs::path real_photos_dataset(const fs::path& dir) {
  fs::create_directories(dir / "images" / "val");
  fs::create_directories(dir / "labels" / "val");
  const fs::path labels = fs::path(YOLO_SOURCE_DIR) / "tests" / "data" / "real_photos" / "labels";
  for (const std::string& photo : kPhotos) {
    fs::copy_file(asset(photo), dir / "images" / "val" / photo);
    const std::string stem = fs::path(photo).stem().string() + ".txt";
    fs::copy_file(labels / stem, dir / "labels" / "val" / stem);
  }
  const yolo::LoadedModel model = yolo::load_torchscript(asset("yolo11n.pt").string(), torch::kCPU);
  std::ofstream yaml(dir / "data.yaml");
  yaml << "path: " << dir.string() << "\ntrain: images/val\nval: images/val\nnames:\n";
  for (const auto& [id, name] : model.metadata.names) yaml << "  " << id << ": " << name << "\n";
  return dir / "data.yaml";
}

// imgsz, and whether both sides run their default rect=True (else rect=False on both).
using SizeAndRect = std::tuple<int, bool>;

// Our command line's rect setting: nothing for the default, rect=False for the square.
std::string our_rect(bool rect) {
  return rect ? "" : " rect=False";
}

class RealPhotos : public ::testing::TestWithParam<SizeAndRect> {
 protected:
  static void SetUpTestSuite() {
    if (!yolo::parity::oracle_available() || !assets_present()) return;
    dir_ = std::make_unique<yolo::testing::TempDir>("real_photos");
    data_ = real_photos_dataset(dir_->path / "data");
  }
  static void TearDownTestSuite() { dir_.reset(); }
  void SetUp() override {
    YOLO_REQUIRE_ORACLE();
    if (!assets_present())
      GTEST_SKIP() << "no yolo11n.pt or photos in " << YOLO_TEST_ASSETS
                   << " (tools/install-deps.sh --oracle fetches them)";
  }

  static std::unique_ptr<yolo::testing::TempDir> dir_;
  static fs::path data_;
};
std::unique_ptr<yolo::testing::TempDir> RealPhotos::dir_;
fs::path RealPhotos::data_;

// The same metrics from the same predictions: mAP50 and mAP50-95 within 0.002 (our table prints
// three significant digits, as Ultralytics' does), P and R as printed.
TEST_P(RealPhotos, ValEqualsUltralyticsVal) {
  const auto [imgsz, rect] = GetParam();
  const std::string run = "val" + std::to_string(imgsz) + (rect ? "_rect" : "");
  const yolo::parity::ValRow ours = yolo::parity::val_row(
      trainer("val model=" + asset("yolo11n.pt").string() + " data=" + data_.string() +
              " imgsz=" + std::to_string(imgsz) +
              " batch=8 plots=False exist_ok=True project=" + (dir_->path / "ours").string() +
              " name=" + run + our_rect(rect) + yolo::testing::kAsUltralyticsInference));
  const nlohmann::json theirs = yolo::parity::oracle_json(
      "ultralytics_val.py '" + asset("yolo11n.pt").string() + "' '" + data_.string() + "' " +
          std::to_string(imgsz) + (rect ? " 1" : " 0"),
      dir_->path);
  ASSERT_TRUE(theirs.is_object()) << "the oracle's val failed";
  std::printf(
      "imgsz %d rect=%d: mAP50 %.3f vs %.4f, mAP50-95 %.3f vs %.4f, P %.3f vs %.4f, R %.3f vs "
      "%.4f (ours vs Ultralytics)\n",
      imgsz, rect, ours.map50, theirs["map50"].get<double>(), ours.map, theirs["map"].get<double>(),
      ours.p, theirs["p"].get<double>(), ours.r, theirs["r"].get<double>());
  EXPECT_EQ(ours.instances, theirs["instances"].get<int>());
  EXPECT_GT(theirs["map50"].get<double>(), 0.5) << "the model must detect for this to compare";
  EXPECT_NEAR(ours.map50, theirs["map50"].get<double>(), 0.002);
  EXPECT_NEAR(ours.map, theirs["map"].get<double>(), 0.002);
  EXPECT_NEAR(ours.p, theirs["p"].get<double>(), 0.002);
  EXPECT_NEAR(ours.r, theirs["r"].get<double>(), 0.002);
}

// Every box both ways: at least 99 % of Ultralytics' boxes have one of ours (same class, IoU >=
// 0.95, confidence within 0.01) and of ours one of theirs, at validation's low threshold, where
// boxes are many and weak.
TEST_P(RealPhotos, PredictionsEqualUltralyticsBothWays) {
  const auto [imgsz, rect] = GetParam();
  const fs::path images = data_.parent_path() / "images" / "val";
  const std::string name = "predict" + std::to_string(imgsz) + (rect ? "_rect" : "");
  const nlohmann::json theirs = yolo::parity::oracle_json(
      "ultralytics_pt.py predict '" + asset("yolo11n.pt").string() + "' '" + images.string() +
          "' " + std::to_string(imgsz) + " 0.05 " + (rect ? "True" : "False"),
      dir_->path);
  ASSERT_TRUE(theirs.is_object()) << "the oracle's predict failed";
  const std::string ours =
      trainer("predict model=" + asset("yolo11n.pt").string() + " source=" + images.string() +
              " conf=0.05 imgsz=" + std::to_string(imgsz) + our_rect(rect) +
              yolo::testing::kAsUltralyticsInference +
              " save=False save_txt=True save_conf=True exist_ok=True project=" +
              (dir_->path / "ours").string() + " name=" + name);
  // The log shows each image's input shape, as Ultralytics' does: bus.jpg (810x1080) runs at
  // 640x480 with rect at 640, at 640x640 without.
  const std::string bus_shape =
      imgsz == 640 ? (rect ? "640x480" : "640x640") : (rect ? "320x256" : "320x320");
  EXPECT_NE(ours.find("bus.jpg: " + bus_shape + " "), std::string::npos) << ours;
  int their_boxes = 0, our_boxes = 0, theirs_found = 0, ours_found = 0;
  for (const auto& [stem, rows] : theirs["images"].items()) {
    const std::vector<LabelBox> want = yolo::parity::label_boxes(rows);
    const std::vector<LabelBox> have =
        yolo::parity::read_label_boxes(dir_->path / "ours" / name / "labels" / (stem + ".txt"));
    their_boxes += static_cast<int>(want.size());
    our_boxes += static_cast<int>(have.size());
    theirs_found += yolo::parity::count_matched(want, have, 0.95, 0.01);
    ours_found += yolo::parity::count_matched(have, want, 0.95, 0.01);
  }
  std::printf(
      "imgsz %d rect=%d: %d of Ultralytics' %d boxes found in ours, %d of our %d in theirs\n",
      imgsz, rect, theirs_found, their_boxes, ours_found, our_boxes);
  EXPECT_GE(their_boxes, 20) << "too few boxes to compare";
  EXPECT_GE(theirs_found * 100, their_boxes * 99);
  EXPECT_GE(ours_found * 100, our_boxes * 99);
}

INSTANTIATE_TEST_SUITE_P(SizesAndLetterboxes, RealPhotos,
                         ::testing::Combine(::testing::Values(320, 640), ::testing::Bool()));

}  // namespace
