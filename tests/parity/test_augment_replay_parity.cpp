// Same augmentation as Ultralytics given the same random draws (label `parity`; needs the
// ultralytics package in the test Python: tools/install-deps.sh --oracle; skipped without).
//
// test_augmentation_parity compares distributions, which cannot see a box half a pixel off or an
// image centred one pixel over. Here Ultralytics runs its own training transforms on a small set
// of non-square images of several sizes (tools/parity/ultralytics_augment_replay.py) and records
// every draw: mosaic tiles and centre, the random perspective's eight numbers, the HSV gains and
// both flips. Our transforms then replay exactly those draws on the same files through our own
// loading, and every case must give the same boxes (to float32 rounding) and the same pixels (to
// the rounding of OpenCV's fixed-point resize and warp between its builds).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "oracle.h"
#include "test_files.h"
#include "yolo/trainer/data/augment.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/data/dataset.h"

namespace fs = std::filesystem;

namespace {

constexpr int kImgsz = 96;
constexpr int kCases = 40;
// Ultralytics moves boxes in float32 through a float32 matrix; ours in double.
constexpr float kBoxTolerance = 0.02f;  // pixels
// OpenCV's warps interpolate in fixed point (1/32 pixel); a float32 against a double matrix can
// land a few output pixels on the neighbouring sub-pixel step.
constexpr double kMeanPixelTolerance = 0.5;  // levels, over the whole image
constexpr double kOffPixelShare = 0.02;      // share of values more than 2 levels apart
// HSV and flips start from Ultralytics' own geometry output and use the same lookup-table formula
// and OpenCV conversions: identical (OpenCV 4.6 here against the wheel's 5.0).
constexpr int kColourTolerance = 0;

// Images of several shapes, smaller and larger than kImgsz (both resize directions, odd margins),
// each a gradient with 1-3 filled rectangles as its labelled objects, plus noise so that a shift
// of one pixel changes many values.
void write_dataset(const fs::path& root) {
  const std::vector<cv::Size> sizes = {{160, 120}, {90, 140}, {200, 200}, {75, 60},
                                       {131, 97},  {64, 180}, {111, 111}, {150, 89},
                                       {57, 93},   {240, 70}, {99, 161},  {120, 120}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const cv::Size sz = sizes[i];
    cv::Mat img(sz, CV_8UC3);
    for (int y = 0; y < sz.height; ++y) {
      for (int x = 0; x < sz.width; ++x) {
        img.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<uint8_t>(255.0 * x / sz.width),
                                            static_cast<uint8_t>(255.0 * y / sz.height),
                                            static_cast<uint8_t>(40 + 150 * u(rng)));
      }
    }
    std::string labels;
    const int objects = 1 + static_cast<int>(i % 3);
    for (int k = 0; k < objects; ++k) {
      const int w = 8 + static_cast<int>(u(rng) * sz.width * 0.5);
      const int h = 8 + static_cast<int>(u(rng) * sz.height * 0.5);
      const int x = static_cast<int>(u(rng) * (sz.width - w)),
                y = static_cast<int>(u(rng) * (sz.height - h));
      const cv::Scalar colour(255 * u(rng), 255 * u(rng), 255 * u(rng));
      cv::rectangle(img, cv::Rect(x, y, w, h), colour, cv::FILLED);
      labels += fmt::format("{} {:.6f} {:.6f} {:.6f} {:.6f}\n", k % 3, (x + w / 2.0) / sz.width,
                            (y + h / 2.0) / sz.height, static_cast<double>(w) / sz.width,
                            static_cast<double>(h) / sz.height);
    }
    const std::string stem = fmt::format("im{:02d}", i);
    fs::create_directories(root / "images/train");
    cv::imwrite((root / "images/train" / (stem + ".png")).string(), img);
    yolo::testing::write_file(root / "labels/train" / (stem + ".txt"), labels);
  }
  yolo::testing::write_file(root / "data.yaml",
                            fmt::format("path: {}\ntrain: images/train\nval: images/train\n"
                                        "names:\n  0: a\n  1: b\n  2: c\n",
                                        root.string()));
}

class AugmentReplayParity : public ::testing::Test {
 protected:
  void SetUp() override {
    YOLO_REQUIRE_ORACLE();
    write_dataset(tmp_.path / "data");
    const yolo::DatasetConfig cfg =
        yolo::load_dataset_config(tmp_.path / "data/data.yaml", tmp_.path / "datasets");
    records_ = yolo::scan_dataset(yolo::list_images(cfg.splits.at("train")), cfg.nc, 1).images;
    for (size_t i = 0; i < records_.size(); ++i)
      by_file_[fs::weakly_canonical(records_[i].image).string()] = i;
    fs::create_directories(tmp_.path / "elsewhere");
  }

  const std::vector<yolo::ImageRecord>& records() const { return records_; }
  // Every output (w, h) of expect_same's cases so far.
  const std::set<std::vector<int>>& output_sizes() const { return output_sizes_; }

  // Ultralytics' cases for these recipe overrides, with the images it wrote under `out`.
  nlohmann::json oracle_cases(const std::string& overrides, const fs::path& out) {
    const nlohmann::json cases =
        yolo::parity::oracle_json(fmt::format("ultralytics_augment_replay.py '{}' {} {} 0 '{}' {}",
                                              (tmp_.path / "data/data.yaml").string(), kImgsz,
                                              kCases, out.string(), overrides),
                                  tmp_.path / "elsewhere");
    EXPECT_TRUE(cases.is_array()) << "the oracle printed no cases for '" << overrides << "'";
    EXPECT_EQ(cases.size(), static_cast<size_t>(kCases));
    return cases.is_array() ? cases : nlohmann::json::array();
  }

  // Every case of Ultralytics' for these recipe overrides replayed by ours (`hyp` must be the
  // same recipe) must give the same boxes and pixels.
  void expect_same(const std::string& overrides, const yolo::AugmentParams& hyp) {
    const fs::path out = tmp_.path / ("cases_" + std::to_string(++runs_));
    const nlohmann::json cases = oracle_cases(overrides, out);
    const yolo::DataLoader loader(records_, loader_options(hyp));
    size_t boxes = 0, mosaics = 0;
    PixelStats geometry_worst, colour_worst;
    for (size_t k = 0; k < cases.size(); ++k) {
      const nlohmann::json& c = cases[k];
      SCOPED_TRACE(fmt::format("{} case {}: {}", overrides, k, c.dump()));
      mosaics += c["mosaic"].get<bool>();
      // Geometry: mosaic and random perspective from our own loading of the same files.
      const yolo::Sample ours = geometry(loader, c, hyp);
      const cv::Mat their_geometry = cv::imread(geometry_png(out, k));
      const PixelStats g = compare_pixels(ours.image, their_geometry);
      EXPECT_LE(g.mean, kMeanPixelTolerance) << "geometry: mean absolute pixel difference";
      EXPECT_LE(g.off_share, kOffPixelShare) << "geometry: share of values more than 2 apart";
      geometry_worst = worst(geometry_worst, g);
      // Colour and flips, from Ultralytics' own geometry output so that only they are compared.
      yolo::Sample coloured{their_geometry.clone(), ours.boxes};
      colour_and_flips(coloured, c);
      const PixelStats f = compare_pixels(
          coloured.image, cv::imread((out / fmt::format("case_{}.png", k)).string()));
      EXPECT_LE(f.max, kColourTolerance) << "HSV and flips: largest pixel difference";
      colour_worst = worst(colour_worst, f);
      EXPECT_EQ(box_difference(coloured.boxes, c["boxes"]), "");
      boxes += c["boxes"].size();
      output_sizes_.insert(c["size"].get<std::vector<int>>());
    }
    std::printf(
        "%s: %zu cases, %zu boxes; worst geometry pixels: mean %.3f, max %d, %.4f > 2 "
        "apart; worst HSV+flip pixels: max %d\n",
        overrides.empty() ? "default recipe" : overrides.c_str(), cases.size(), boxes,
        geometry_worst.mean, geometry_worst.max, geometry_worst.off_share, colour_worst.max);
    // The cases must exercise what they claim to: boxes survive, and the mosaic runs when on.
    EXPECT_GT(boxes, cases.size());
    EXPECT_EQ(mosaics > 0, hyp.mosaic > 0);
  }

  // How many of Ultralytics' closed-mosaic cases a pipeline that letterboxes the image before
  // the random perspective (ours before this test existed) gets visibly wrong.
  size_t letterbox_first_differences() {
    const fs::path out = tmp_.path / ("cases_" + std::to_string(++runs_));
    const nlohmann::json cases = oracle_cases("mosaic=0", out);
    yolo::AugmentParams hyp;
    hyp.mosaic = 0;
    const yolo::DataLoader loader(records_, loader_options(hyp));
    size_t wrong = 0;
    for (size_t k = 0; k < cases.size(); ++k) {
      yolo::LetterboxOptions lb;
      lb.height = lb.width = kImgsz;
      lb.scaleup = false;
      const yolo::Sample boxed = yolo::letterbox_sample(loader.load(record(cases[k]["image"])), lb);
      const yolo::Sample ours =
          yolo::random_perspective(boxed, perspective_draw(cases[k], hyp), kImgsz, kImgsz);
      const PixelStats g = compare_pixels(ours.image, cv::imread(geometry_png(out, k)));
      yolo::Sample flipped = ours;
      yolo::random_flips(flipped, flip_draw(cases[k]));
      wrong +=
          g.mean > kMeanPixelTolerance || !box_difference(flipped.boxes, cases[k]["boxes"]).empty();
    }
    return wrong;
  }

 private:
  size_t record(const nlohmann::json& file) const {
    const auto it = by_file_.find(fs::weakly_canonical(file.get<std::string>()).string());
    if (it == by_file_.end()) throw std::runtime_error("unknown image " + file.dump());
    return it->second;
  }

  static yolo::LoaderOptions loader_options(const yolo::AugmentParams& hyp) {
    yolo::LoaderOptions o;
    o.imgsz = kImgsz;
    o.workers = 0;
    o.buffer = 0;
    o.hyp = hyp;
    return o;
  }

  static std::string geometry_png(const fs::path& out, size_t k) {
    return (out / fmt::format("case_{}_geometry.png", k)).string();
  }

  static yolo::PerspectiveDraw perspective_draw(const nlohmann::json& c,
                                                const yolo::AugmentParams& hyp) {
    const auto p = c["perspective"].get<std::vector<double>>();
    yolo::PerspectiveDraw d;
    d.perspective_x = p.at(0), d.perspective_y = p.at(1), d.degrees = p.at(2), d.scale = p.at(3);
    d.shear_x = p.at(4), d.shear_y = p.at(5), d.translate_x = p.at(6), d.translate_y = p.at(7);
    d.projective = hyp.perspective != 0;
    return d;
  }

  static yolo::FlipDraw flip_draw(const nlohmann::json& c) {
    return {c["flipud"].get<bool>(), c["fliplr"].get<bool>()};
  }

  yolo::Sample geometry(const yolo::DataLoader& loader, const nlohmann::json& c,
                        const yolo::AugmentParams& hyp) const {
    yolo::Sample in;
    if (c["mosaic"].get<bool>()) {
      std::vector<yolo::Sample> tiles;
      for (const auto& f : c["tiles"]) tiles.push_back(loader.load(record(f)));
      in = yolo::mosaic4(tiles, kImgsz, yolo::MosaicDraw{c["xc"].get<int>(), c["yc"].get<int>()});
    } else {
      in = loader.load(record(c["image"]));
    }
    const auto size = c["size"].get<std::vector<int>>();  // the batch shape in rect training
    return yolo::random_perspective(in, perspective_draw(c, hyp), size.at(0), size.at(1));
  }

  static void colour_and_flips(yolo::Sample& s, const nlohmann::json& c) {
    if (!c["hsv"].is_null()) {
      const auto g = c["hsv"].get<std::vector<double>>();
      yolo::random_hsv(s.image, yolo::HsvDraw{g.at(0), g.at(1), g.at(2), true});
    }
    yolo::random_flips(s, flip_draw(c));
  }

  // Empty when ours are Ultralytics' boxes (same order and classes, within kBoxTolerance);
  // otherwise both lists.
  static std::string box_difference(const std::vector<yolo::PixelBox>& ours,
                                    const nlohmann::json& theirs) {
    bool same = ours.size() == theirs.size();
    for (size_t i = 0; same && i < ours.size(); ++i) {
      const auto& t = theirs[i];
      const yolo::PixelBox& m = ours[i];
      same = m.cls == t[0].get<int>() && std::abs(m.x1 - t[1].get<float>()) <= kBoxTolerance &&
             std::abs(m.y1 - t[2].get<float>()) <= kBoxTolerance &&
             std::abs(m.x2 - t[3].get<float>()) <= kBoxTolerance &&
             std::abs(m.y2 - t[4].get<float>()) <= kBoxTolerance;
    }
    return same ? "" : "ours " + describe(ours) + "vs Ultralytics' " + theirs.dump();
  }

  static std::string describe(const std::vector<yolo::PixelBox>& boxes) {
    std::string out;
    for (const auto& b : boxes)
      out += fmt::format("[{}, {}, {}, {}, {}] ", b.cls, b.x1, b.y1, b.x2, b.y2);
    return out;
  }

  struct PixelStats {
    double mean = 0, off_share = 0;
    int max = 0;
  };

  static PixelStats worst(const PixelStats& a, const PixelStats& b) {
    return {std::max(a.mean, b.mean), std::max(a.off_share, b.off_share), std::max(a.max, b.max)};
  }

  static PixelStats compare_pixels(const cv::Mat& ours, const cv::Mat& theirs) {
    EXPECT_FALSE(theirs.empty()) << "Ultralytics' image";
    EXPECT_EQ(ours.size(), theirs.size());
    if (theirs.empty() || ours.size() != theirs.size()) return {1e9, 1, 255};
    cv::Mat diff;
    cv::absdiff(ours, theirs, diff);
    const cv::Mat values = diff.reshape(1);
    double max = 0;
    cv::minMaxLoc(values, nullptr, &max);
    return {cv::mean(values)[0],
            static_cast<double>(cv::countNonZero(values > 2)) / static_cast<double>(values.total()),
            static_cast<int>(max)};
  }

  std::set<std::vector<int>> output_sizes_;  // output (w, h) of expect_same's last case
  yolo::testing::TempDir tmp_{"augment_replay_parity"};
  std::vector<yolo::ImageRecord> records_;
  std::map<std::string, size_t> by_file_;
  int runs_ = 0;
};

}  // namespace

TEST_F(AugmentReplayParity, DefaultRecipe) {
  expect_same("", {});
}

// Rotation, shear and perspective move every corner; a wide scale range and translation push boxes
// out of the frame, so the clipping and the box-candidate rule decide which survive.
TEST_F(AugmentReplayParity, EveryGeometricTransform) {
  yolo::AugmentParams hyp;
  hyp.degrees = 20;
  hyp.shear = 8;
  hyp.perspective = 0.0008;
  hyp.scale = 0.9;
  hyp.translate = 0.25;
  hyp.flipud = 0.5;
  hyp.hsv_h = 0.2;
  expect_same("degrees=20 shear=8 perspective=0.0008 scale=0.9 translate=0.25 flipud=0.5 hsv_h=0.2",
              hyp);
}

// Rect training: no mosaic; each image centred on its batch's shape (Ultralytics' rect training
// pad 0; batches of 4 sorted by aspect ratio, so shapes from wide to tall, which our
// DataLoader's batch_shape must give too).
TEST_F(AugmentReplayParity, RectTraining) {
  yolo::AugmentParams hyp;
  hyp.mosaic = 0;
  expect_same("rect=True batch=4", hyp);
  yolo::LoaderOptions o;
  o.imgsz = kImgsz;
  o.batch = 4;
  o.rect = true;
  o.rect_pad = 0.0;
  o.workers = 0;
  const yolo::DataLoader loader(records(), o);
  std::set<std::vector<int>> ours;
  for (size_t k = 0; k < loader.batches_per_epoch(); ++k) {
    const auto [h, w] = loader.batch_shape(k);
    ours.insert({w, h});
  }
  EXPECT_EQ(ours, output_sizes());
  EXPECT_GE(ours.size(), 2u) << "batches of more than one shape";
}

// After close_mosaic: a single image, smaller than the output on one side, centred by the random
// perspective itself.
TEST_F(AugmentReplayParity, ClosedMosaic) {
  yolo::AugmentParams hyp;
  hyp.mosaic = 0;
  expect_same("mosaic=0", hyp);
  // The comparison sees half a pixel: letterboxing first puts an image with an odd margin half a
  // pixel off Ultralytics' centring (about half the shapes here).
  const size_t wrong = letterbox_first_differences();
  std::printf("letterbox first: %zu of %d closed-mosaic cases differ\n", wrong, kCases);
  EXPECT_GE(wrong, static_cast<size_t>(kCases) / 4);
}
