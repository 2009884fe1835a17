// Same augmentation statistics as Ultralytics (label `parity`; needs the ultralytics package in
// the test Python: tools/install-deps.sh --oracle; skipped without). Both tools augment the same
// synthetic training set for several epochs: our DataLoader, and Ultralytics' own training
// dataset (tools/parity/ultralytics_augment_stats.py). The RNGs differ, so the images cannot be
// compared one by one; their statistics can. Per augmented image: boxes, mean box width and
// height, RGB means, pixel spread and the grey (border / mosaic fill) share. Each mean must agree
// within kSigmas standard errors of the difference (images are the independent samples). The same
// comparison must catch a loader that differs from the recipe on purpose, or it proves nothing.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "oracle.h"
#include "test_files.h"
#include "yolo/synth/synthetic_data.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/data/dataset.h"

namespace fs = std::filesystem;

namespace {

constexpr int kImgsz = 128;
constexpr int kEpochs = 24;  // 64 images x 24 = 1536 augmented images per tool
constexpr double kSigmas = 4.5;

// Per-image quantities by name; mean_w / mean_h only for images that keep a box.
using Columns = std::map<std::string, std::vector<double>>;

void add_image(Columns& c, const std::vector<std::pair<double, double>>& wh,
               const std::array<double, 3>& mean, double spread, double grey) {
  c["boxes"].push_back(static_cast<double>(wh.size()));
  if (!wh.empty()) {
    double w = 0, h = 0;
    for (const auto& [bw, bh] : wh) w += bw, h += bh;
    c["mean_w"].push_back(w / wh.size());
    c["mean_h"].push_back(h / wh.size());
  }
  c["empty"].push_back(wh.empty() ? 1.0 : 0.0);
  c["R"].push_back(mean[0]);
  c["G"].push_back(mean[1]);
  c["B"].push_back(mean[2]);
  c["pixel_std"].push_back(spread);
  c["grey_share"].push_back(grey);
}

Columns ultralytics_columns(const fs::path& yaml, const fs::path& cwd,
                            const std::string& overrides) {
  const nlohmann::json images = yolo::parity::oracle_json(
      "ultralytics_augment_stats.py '" + yaml.string() + "' " + std::to_string(kImgsz) + " " +
          std::to_string(kEpochs) + " 0 " + overrides,
      cwd);
  Columns c;
  if (!images.is_array()) return c;
  for (const auto& im : images) {
    std::vector<std::pair<double, double>> wh;
    for (const auto& b : im["wh"]) wh.emplace_back(b[0].get<double>(), b[1].get<double>());
    add_image(c, wh, im["mean"].get<std::array<double, 3>>(), im["std"].get<double>(),
              im["grey"].get<double>());
  }
  return c;
}

Columns our_columns(const std::vector<yolo::ImageRecord>& records, const yolo::AugmentParams& hyp,
                    bool mosaic) {
  yolo::LoaderOptions o;
  o.imgsz = kImgsz;
  o.batch = 16;
  o.workers = 2;
  o.hyp = hyp;
  yolo::DataLoader loader(records, o);
  loader.set_mosaic(mosaic);  // what close_mosaic does (mixup and cutmix close with it)
  Columns c;
  for (int epoch = 0; epoch < kEpochs; ++epoch) {
    loader.start_epoch(epoch);
    while (auto batch = loader.next()) {
      const torch::Tensor targets = batch->targets;
      for (int64_t i = 0; i < batch->images.size(0); ++i) {
        const torch::Tensor img = batch->images[i].to(torch::kFloat64);  // (3, H, W) RGB in [0, 1]
        const torch::Tensor mine = targets.index({targets.select(1, 0) == i});
        std::vector<std::pair<double, double>> wh;
        for (int64_t k = 0; k < mine.size(0); ++k)
          wh.emplace_back(mine[k][4].item<double>(), mine[k][5].item<double>());
        const torch::Tensor grey = (img[0] == img[1]).logical_and(img[1] == img[2]);
        const torch::Tensor means = img.reshape({3, -1}).mean(1);
        add_image(c, wh,
                  {means[0].item<double>(), means[1].item<double>(), means[2].item<double>()},
                  img.std(/*unbiased=*/false).item<double>(),
                  grey.to(torch::kFloat64).mean().item<double>());
      }
    }
  }
  return c;
}

struct Difference {
  std::string name;
  double ours = 0, theirs = 0, sigmas = 0;
};

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

double variance_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / (v.size() - 1);
}

// Every statistic's means and their difference in standard errors, printed as a table.
std::vector<Difference> compare(const Columns& ours, const Columns& theirs,
                                const std::string& what) {
  std::vector<Difference> out;
  std::string table = fmt::format("{}\n{:<12}{:>10}{:>13}{:>9}\n", what, "per image", "ours",
                                  "Ultralytics", "sigmas");
  for (const auto& [name, ov] : ours) {
    const auto it = theirs.find(name);
    if (it == theirs.end() || ov.size() < 2 || it->second.size() < 2) continue;
    const auto& tv = it->second;
    const double se = std::sqrt(variance_of(ov) / ov.size() + variance_of(tv) / tv.size());
    const double diff = std::abs(mean_of(ov) - mean_of(tv));
    Difference d{name, mean_of(ov), mean_of(tv), se > 0 ? diff / se : (diff > 0 ? 1e9 : 0)};
    table += fmt::format("{:<12}{:>10.4f}{:>13.4f}{:>9.2f}\n", name, d.ours, d.theirs, d.sigmas);
    out.push_back(d);
  }
  std::printf("%s\n", table.c_str());
  return out;
}

class AugmentationParity : public ::testing::Test {
 protected:
  void SetUp() override {
    YOLO_REQUIRE_ORACLE();
    yolo::synth::SynthOptions o;
    o.dir = tmp_.path / "data";
    o.train_images = 64;
    o.val_images = 4;
    o.imgsz = kImgsz;
    o.threads = 1;
    yaml_ = yolo::synth::generate_synthetic_dataset(o).yaml;
    const yolo::DatasetConfig cfg = yolo::load_dataset_config(yaml_, tmp_.path / "datasets");
    records_ = yolo::scan_dataset(yolo::list_images(cfg.splits.at("train")), cfg.nc, 1).images;
    fs::create_directories(tmp_.path / "elsewhere");
  }

  Columns theirs(const std::string& overrides) {
    Columns c = ultralytics_columns(yaml_, tmp_.path / "elsewhere", overrides);
    EXPECT_EQ(c["boxes"].size(), records_.size() * kEpochs) << "Ultralytics' augmented images";
    return c;
  }

  void expect_same(const Columns& ours, const Columns& ultralytics, const std::string& what) {
    ASSERT_EQ(ours.at("boxes").size(), records_.size() * kEpochs);
    for (const Difference& d : compare(ours, ultralytics, what))
      EXPECT_LE(d.sigmas, kSigmas)
          << what << ": " << d.name << " ours " << d.ours << " vs Ultralytics " << d.theirs;
  }

  // True when some statistic differs by more than kSigmas.
  bool caught(const Columns& ours, const Columns& ultralytics, const std::string& what) {
    for (const Difference& d : compare(ours, ultralytics, what))
      if (d.sigmas > kSigmas) return true;
    return false;
  }

  yolo::testing::TempDir tmp_{"augmentation_parity"};
  fs::path yaml_;
  std::vector<yolo::ImageRecord> records_;
};

}  // namespace

TEST_F(AugmentationParity, DefaultRecipeWithMosaic) {
  const Columns ultralytics = theirs("");
  expect_same(our_columns(records_, {}, true), ultralytics, "default recipe, mosaic on");

  // The comparison has the power to see a loader that is off the recipe: a narrower scale range
  // (0.75-1.25 instead of 0.5-1.5), a wider translation, no mosaic.
  yolo::AugmentParams narrow;
  narrow.scale = 0.25;
  EXPECT_TRUE(caught(our_columns(records_, narrow, true), ultralytics, "ours with scale=0.25"));
  yolo::AugmentParams wide;
  wide.translate = 0.3;
  EXPECT_TRUE(caught(our_columns(records_, wide, true), ultralytics, "ours with translate=0.3"));
  EXPECT_TRUE(caught(our_columns(records_, {}, false), ultralytics, "ours with mosaic off"));
}

TEST_F(AugmentationParity, AfterCloseMosaic) {
  expect_same(our_columns(records_, {}, false), theirs("mosaic=0"), "mosaic closed");
}

TEST_F(AugmentationParity, MixupAndCutmix) {
  yolo::AugmentParams hyp;
  hyp.mixup = 0.5;
  hyp.cutmix = 0.5;
  expect_same(our_columns(records_, hyp, true), theirs("mixup=0.5 cutmix=0.5"),
              "mixup=0.5 cutmix=0.5");
}

TEST_F(AugmentationParity, StrongerColourAndFlips) {
  yolo::AugmentParams hyp;
  hyp.hsv_h = 0.1;
  hyp.hsv_v = 0.8;
  hyp.flipud = 0.5;
  hyp.degrees = 10;
  expect_same(our_columns(records_, hyp, true), theirs("hsv_h=0.1 hsv_v=0.8 flipud=0.5 degrees=10"),
              "hsv_h=0.1 hsv_v=0.8 flipud=0.5 degrees=10");
}
