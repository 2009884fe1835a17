// Ultralytics' own .pt files read by us (label `parity`; skipped without the ultralytics package
// in the test Python). Ultralytics trains yolov8n, yolo11n and yolo26n for one epoch on a
// synthetic set and writes best.pt and last.pt as every run does (FP16, the model under
// "model"), and a copy of last.pt taken mid-run (the model under "ema", optimizer state kept);
// best.pt is also saved again in FP32.
// From each file, with no Python on our side:
//   - the network's decoded output on the same input equals Ultralytics' (boxes and scores);
//   - `yolo-trainer predict` gives Ultralytics' predictions (same boxes at IoU >= 0.99,
//     confidence within 1e-3, same classes);
//   - `yolo-trainer val` gives Ultralytics' mAP50 and mAP50-95 within 0.002 (the digits it
//     prints), both sides with their default rect.
// A one-epoch model detects little, so the same is checked on a detector that works: the shapes
// detector the pipeline tests train, whose weights Ultralytics saves as its own .pt (its
// DetectionModel, strip_optimizer).
#include <gtest/gtest.h>
#include <torch/serialize.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../pipelines/trained_shapes_model.h"
#include "as_ultralytics.h"
#include "label_boxes.h"
#include "oracle.h"
#include "run_command.h"
#include "test_files.h"
#include "yolo/models/checkpoint.h"

namespace fs = std::filesystem;

namespace {

constexpr int kImgsz = 64;

struct UltralyticsRun {
  fs::path best, last, resumable, best_fp32;
};

class UltralyticsPtParity : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<yolo::testing::TempDir>("ultralytics_pt");
    data_ = yolo::parity::shapes_dataset(dir_->path / "data", 32, 8);
  }
  static void TearDownTestSuite() { dir_.reset(); }

  // Ultralytics' training run for `arch`, once per suite.
  static const UltralyticsRun& run(const std::string& arch) {
    auto it = runs_.find(arch);
    if (it != runs_.end()) return it->second;
    const nlohmann::json r = yolo::parity::oracle_json(
        "ultralytics_pt.py train " + arch + " '" + data_.string() + "' " + std::to_string(kImgsz) +
            " 1 '" + (dir_->path / "runs").string() + "'",
        dir_->path);
    UltralyticsRun out;
    if (r.is_object()) {
      out = {r["best"].get<std::string>(), r["last"].get<std::string>(),
             r["resumable"].get<std::string>(), fs::path()};
      // The same weights in FP32, as a user's own torch.save of the model may hold them.
      const fs::path fp32 = out.best.parent_path() / "best_fp32.pt";
      if (yolo::parity::oracle_json(
              "ultralytics_pt.py float32 '" + out.best.string() + "' '" + fp32.string() + "'",
              dir_->path)
              .is_object())
        out.best_fp32 = fp32;
    }
    return runs_.emplace(arch, out).first->second;
  }

  static const fs::path& dir() { return dir_->path; }
  static const fs::path& data() { return data_; }

 private:
  static std::unique_ptr<yolo::testing::TempDir> dir_;
  static fs::path data_;
  static std::map<std::string, UltralyticsRun> runs_;
};

std::unique_ptr<yolo::testing::TempDir> UltralyticsPtParity::dir_;
fs::path UltralyticsPtParity::data_;
std::map<std::string, UltralyticsRun> UltralyticsPtParity::runs_;

std::string trainer(const std::string& args) {
  const auto r = yolo::testing::run_command(std::string(YOLO_TRAINER_BIN) + " " + args + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << args << "\n"
                            << r.output.substr(r.output.size() > 3000 ? r.output.size() - 3000 : 0);
  return r.output;
}

using yolo::parity::LabelBox;

// mAP50 and mAP50-95 of the val table's "all" row.
std::pair<double, double> val_maps(const std::string& output) {
  const yolo::parity::ValRow row = yolo::parity::val_row(output);
  return {row.map50, row.map};
}

TEST_P(UltralyticsPtParity, NetworkOutputEqualsUltralyticsFromEveryFileItWrites) {
  YOLO_REQUIRE_ORACLE();
  const UltralyticsRun& r = run(GetParam());
  for (const fs::path& pt : {r.best, r.last, r.resumable, r.best_fp32}) {
    SCOPED_TRACE(pt.string());
    ASSERT_TRUE(fs::exists(pt)) << "Ultralytics wrote no " << pt;
    const fs::path dump = dir() / (GetParam() + "_" + pt.stem().string() + "_forward.pt");
    const nlohmann::json ok =
        yolo::parity::oracle_json("ultralytics_pt.py forward '" + pt.string() + "' " +
                                      std::to_string(kImgsz) + " '" + dump.string() + "'",
                                  dir());
    ASSERT_TRUE(ok.is_object()) << "the oracle's forward failed";
    std::ifstream in(dump, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    const c10::Dict<c10::IValue, c10::IValue> expected = torch::pickle_load(bytes).toGenericDict();
    const torch::Tensor x = expected.at("input").toTensor();
    const torch::Tensor want = expected.at("output").toTensor();

    yolo::LoadedModel ours = yolo::load_torchscript(pt.string(), torch::kCPU);
    EXPECT_EQ(ours.metadata.names.size(), 3u);
    EXPECT_EQ(ours.metadata.imgsz, (std::vector<int64_t>{kImgsz, kImgsz}));
    torch::NoGradGuard no_grad;
    const torch::Tensor got = ours.module.forward({x}).toTensor();
    ASSERT_EQ(got.sizes(), want.sizes());
    // Boxes in input pixels (0..64) and class scores (0..1); FP32 rounding only.
    const torch::Tensor boxes = (got.slice(1, 0, 4) - want.slice(1, 0, 4)).abs();
    const torch::Tensor scores = (got.slice(1, 4) - want.slice(1, 4)).abs();
    EXPECT_LT(boxes.max().item<double>(), 1e-2) << "boxes differ";
    EXPECT_LT(scores.max().item<double>(), 1e-4) << "scores differ";
    // Not a trivially equal output: the boxes spread over the image.
    EXPECT_GT(want.slice(1, 0, 1).std().item<double>(), 1.0);
  }
}

// Ultralytics' predict and ours (save_txt) on `images` from `pt`: every box of theirs has one
// of ours of the same class at IoU >= 0.99 with a confidence within 1e-3. Returns the boxes
// compared.
int compare_predictions(const fs::path& pt, const fs::path& images, int imgsz,
                        const std::string& conf, const fs::path& out) {
  fs::create_directories(out.parent_path());
  const nlohmann::json theirs = yolo::parity::oracle_json(
      "ultralytics_pt.py predict '" + pt.string() + "' '" + images.string() + "' " +
          std::to_string(imgsz) + " " + conf + " 1",  // Ultralytics' default for a .pt: rect
      out.parent_path());
  EXPECT_TRUE(theirs.is_object()) << "the oracle's predict failed";
  if (!theirs.is_object()) return 0;
  // FP32 as Ultralytics runs on a CPU (bf16 accuracy is tested on its own).
  trainer("predict model=" + pt.string() + " source=" + images.string() + " conf=" + conf +
          " imgsz=" + std::to_string(imgsz) + yolo::testing::kAsUltralyticsInference +
          " save=False save_txt=True save_conf=True project=" + out.parent_path().string() +
          " name=" + out.filename().string() + " exist_ok=True");
  int compared = 0;
  for (const auto& [stem, rows] : theirs["images"].items()) {
    SCOPED_TRACE(stem);
    const std::vector<LabelBox> ours =
        yolo::parity::read_label_boxes(out / "labels" / (stem + ".txt"));
    const std::vector<LabelBox> want = yolo::parity::label_boxes(rows);
    EXPECT_EQ(ours.size(), want.size());
    EXPECT_EQ(yolo::parity::count_matched(want, ours, 0.99, 1e-3), static_cast<int>(want.size()))
        << "boxes of Ultralytics' without a match of ours";
    compared += static_cast<int>(want.size());
  }
  return compared;
}

TEST_P(UltralyticsPtParity, PredictionsEqualUltralyticsPredictFromTheSameFile) {
  YOLO_REQUIRE_ORACLE();
  const UltralyticsRun& r = run(GetParam());
  ASSERT_TRUE(fs::exists(r.best));
  // A one-epoch model's confidences are low: a low threshold keeps boxes to compare.
  const int compared = compare_predictions(r.best, data().parent_path() / "images" / "val", kImgsz,
                                           "0.001", dir() / "predict" / GetParam());
  EXPECT_GT(compared, 10) << "too few predictions to compare";
}

TEST_P(UltralyticsPtParity, ValEqualsUltralyticsValOfTheSameFile) {
  YOLO_REQUIRE_ORACLE();
  const UltralyticsRun& r = run(GetParam());
  ASSERT_TRUE(fs::exists(r.best));
  const auto [map50, map] =
      val_maps(trainer("val model=" + r.best.string() + " data=" + data().string() +
                       " batch=8 plots=False project=" + (dir() / "val").string() +
                       yolo::testing::kAsUltralyticsInference));
  const nlohmann::json theirs =
      yolo::parity::oracle_json("ultralytics_val.py '" + r.best.string() + "' '" + data().string() +
                                    "' " + std::to_string(kImgsz) + " 1",  // its default: rect
                                dir());
  ASSERT_TRUE(theirs.is_object()) << "the oracle's val failed";
  EXPECT_NEAR(map50, theirs["map50"].get<double>(), 0.002);  // #52: printed digits
  EXPECT_NEAR(map, theirs["map"].get<double>(), 0.002);
}

// `export model=x.pt` writes TorchScript at the size the .pt was trained at (Ultralytics' export
// default) that computes what the .pt computes; `train model=ARCH.yaml pretrained=x.pt` transfers
// every tensor (same architecture, same classes), as Ultralytics' pretrained= does.
TEST_P(UltralyticsPtParity, ExportAndPretrainedTakeItsWeights) {
  YOLO_REQUIRE_ORACLE();
  const UltralyticsRun& r = run(GetParam());
  ASSERT_TRUE(fs::exists(r.best));
  const std::string log = trainer("export model=" + r.best.string());
  const fs::path written = r.best.parent_path() / "best.torchscript";
  ASSERT_TRUE(fs::exists(written)) << log;
  yolo::LoadedModel pt = yolo::load_torchscript(r.best.string(), torch::kCPU);
  yolo::LoadedModel ts = yolo::load_torchscript(written.string(), torch::kCPU);
  EXPECT_EQ(ts.metadata.imgsz, (std::vector<int64_t>{kImgsz, kImgsz}));
  EXPECT_EQ(ts.metadata.names, pt.metadata.names);
  torch::NoGradGuard no_grad;
  const torch::Tensor x = torch::rand({1, 3, kImgsz, kImgsz});
  EXPECT_TRUE(torch::allclose(ts.module.forward({x}).toTensor(), pt.module.forward({x}).toTensor(),
                              1e-4, 1e-3));

  const std::string train =
      trainer("train model=" + GetParam() + ".yaml pretrained=" + r.best.string() + " data=" +
              data().string() + " epochs=1 imgsz=64 batch=8 plots=False exist_ok=True project=" +
              (dir() / "pretrained").string() + " name=" + GetParam());
  static const std::regex transferred(R"(Transferred (\d+)/(\d+) items from pretrained weights)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(train, m, transferred)) << train;
  EXPECT_EQ(m[1].str(), m[2].str()) << "every tensor of the same architecture transfers";
}

// The shapes detector's weights in an Ultralytics .pt: val and predictions as Ultralytics gives
// them from that file, on a model that finds its objects (mAP50 above 0.8).
TEST(UltralyticsPtParityTrained, ValAndPredictionsOfAWorkingDetector) {
  YOLO_REQUIRE_ORACLE();
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  const fs::path root = shapes.model.parent_path().parent_path().parent_path().parent_path();
  const fs::path yaml = root / "data" / "data.yaml";
  yolo::testing::TempDir tmp("ultralytics_pt_trained");
  const fs::path pt = tmp.path / "shapes.pt";
  const nlohmann::json wrapped = yolo::parity::oracle_json(
      "ultralytics_pt.py wrap '" + shapes.model.string() + "' '" + pt.string() + "'", tmp.path);
  ASSERT_TRUE(wrapped.is_object() && fs::exists(pt)) << "the oracle wrote no .pt";

  const auto [map50, map] =
      val_maps(trainer("val model=" + pt.string() + " data=" + yaml.string() +
                       " batch=8 plots=False project=" + (tmp.path / "val").string() +
                       yolo::testing::kAsUltralyticsInference));
  const nlohmann::json theirs =
      yolo::parity::oracle_json("ultralytics_val.py '" + pt.string() + "' '" + yaml.string() +
                                    "' " + std::to_string(yolo::testing::kShapesImgsz) + " 1",
                                tmp.path);
  ASSERT_TRUE(theirs.is_object()) << "the oracle's val failed";
  EXPECT_GT(theirs["map50"].get<double>(), 0.8) << "the detector must work for this to compare";
  EXPECT_NEAR(map50, theirs["map50"].get<double>(), 0.002);  // #52: printed digits
  EXPECT_NEAR(map, theirs["map"].get<double>(), 0.002);

  const int compared =
      compare_predictions(pt, root / "data" / "images" / "val", yolo::testing::kShapesImgsz, "0.25",
                          tmp.path / "predict" / "shapes");
  EXPECT_GE(compared, 16) << "the detector found too few objects to compare";
  // At another size than it was trained at: Ultralytics runs a .pt at any imgsz, and so do we
  // (it is traced at the size asked for).
  EXPECT_GE(compare_predictions(pt, root / "data" / "images" / "val", 160, "0.25",
                                tmp.path / "predict" / "shapes_160"),
            12);
}

// Fine-tuning from an Ultralytics .pt (the shapes detector above, one class at 192 px) on
// another set (three classes at 128 px, held-out val split): `yolo-trainer train model=x.pt`
// and Ultralytics' own training from the same file end within noise of each other, and far
// above the same epochs from scratch. Two seeds, paired.
TEST(UltralyticsPtParityTrained, FineTuningFromItMatchesUltralyticsAndBeatsScratch) {
  YOLO_REQUIRE_ORACLE();
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  yolo::testing::TempDir tmp("ultralytics_pt_finetune");
  const fs::path pt = tmp.path / "shapes.pt";
  ASSERT_TRUE(
      yolo::parity::oracle_json(
          "ultralytics_pt.py wrap '" + shapes.model.string() + "' '" + pt.string() + "'", tmp.path)
          .is_object());
  yolo::synth::SynthOptions o;
  o.dir = tmp.path / "data";
  o.train_images = 80;
  o.val_images = 20;
  o.imgsz = 128;
  o.num_classes = 3;
  o.seed = 5;
  o.threads = 1;
  const fs::path data = yolo::synth::generate_synthetic_dataset(o).yaml;
  static const std::regex finished(R"(best\.pt mAP50 ([0-9.]+), mAP50-95 ([0-9.]+))");
  auto ours = [&](const std::string& model, int seed, const std::string& name) {
    const std::string out = trainer(
        "train model=" + model + " data=" + data.string() +
        " epochs=10 imgsz=128 batch=16 plots=False exist_ok=True seed=" + std::to_string(seed) +
        " project=" + (tmp.path / "runs").string() + " name=" + name +
        yolo::testing::kAsUltralyticsTraining);
    std::smatch m;
    return std::regex_search(out, m, finished) ? std::stod(m[2]) : -1.0;
  };
  std::vector<double> from_pt, theirs, scratch;
  for (int seed : {0, 1}) {
    from_pt.push_back(ours(pt.string(), seed, "pt_" + std::to_string(seed)));
    scratch.push_back(ours("yolov8n.yaml", seed, "scratch_" + std::to_string(seed)));
    const nlohmann::json u = yolo::parity::oracle_json(
        "ultralytics_pt.py finetune '" + pt.string() + "' '" + data.string() + "' 128 10 '" +
            (tmp.path / "ultralytics").string() + "' " + std::to_string(seed),
        tmp.path);
    ASSERT_TRUE(u.is_object()) << "the oracle's fine-tuning failed";
    theirs.push_back(u["map"].get<double>());
    std::printf(
        "seed %d: held-out mAP50-95 ours from .pt %.4f, Ultralytics from .pt %.4f, ours "
        "from scratch %.4f\n",
        seed, from_pt.back(), theirs.back(), scratch.back());
  }
  auto mean = [](const std::vector<double>& v) { return (v[0] + v[1]) / 2; };
  // Paired over seeds: the 95 % interval of the mean difference (t with 1 degree of freedom,
  // 12.71) must hold 0, or the means be within 0.02 of each other.
  const double d0 = from_pt[0] - theirs[0], d1 = from_pt[1] - theirs[1];
  const double half_width = 12.71 * std::abs(d0 - d1) / 2;
  EXPECT_TRUE(std::abs(mean(from_pt) - mean(theirs)) <= std::max(half_width, 0.02))
      << "ours " << mean(from_pt) << " vs Ultralytics " << mean(theirs);
  EXPECT_GT(mean(from_pt), 3 * mean(scratch) + 0.02)
      << "fine-tuning from the .pt must beat training from scratch";
  EXPECT_GT(mean(theirs), 3 * mean(scratch) + 0.02);
}

INSTANTIATE_TEST_SUITE_P(Architectures, UltralyticsPtParity,
                         ::testing::Values("yolov8n", "yolo11n", "yolo26n"));

}  // namespace
