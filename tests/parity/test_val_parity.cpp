// Validation parity (label `parity`; skipped without the ultralytics package in the test Python):
// the same trained weights on the same images give the same P, R, mAP50 and mAP50-95 from
// `yolo-trainer val` and from Ultralytics' own `val`, which reads our TorchScript checkpoint
// itself. The model is the detector the pipeline tests use (yolov8n trained by yolo-trainer on
// the shapes set, cached per build folder; it must detect for the numbers to mean anything), on
// its own validation images.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "../pipelines/trained_shapes_model.h"
#include "as_ultralytics.h"
#include "label_boxes.h"
#include "oracle.h"
#include "run_command.h"
#include "test_files.h"

namespace fs = std::filesystem;

namespace {

std::string trainer(const std::string& args) {
  const auto r = yolo::testing::run_command(std::string(YOLO_TRAINER_BIN) + " " + args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n"
                            << r.output.substr(r.output.size() > 3000 ? r.output.size() - 3000 : 0);
  return r.output;
}

}  // namespace

TEST(ValParity, SameWeightsSameImagesSameMetrics) {
  YOLO_REQUIRE_ORACLE();
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  const fs::path yaml =
      shapes.model.parent_path().parent_path().parent_path().parent_path() / "data" / "data.yaml";
  ASSERT_TRUE(fs::exists(yaml)) << yaml;
  yolo::testing::TempDir tmp("val_parity");
  const fs::path model = tmp.path / "shapes.torchscript";  // Ultralytics loads by suffix
  fs::copy_file(shapes.model, model);

  // Both sides in FP32, as Ultralytics runs on a CPU: BF16 moves P and R at the max-F1 point.
  // Both square: Ultralytics validates a TorchScript file square, while ours, a training
  // checkpoint, would take rectangular batches by default.
  const yolo::parity::ValRow a = yolo::parity::val_row(
      trainer("val model=" + model.string() + " data=" + yaml.string() +
              " batch=8 rect=False plots=False project=" + (tmp.path / "val").string() +
              yolo::testing::kAsUltralyticsInference));
  const nlohmann::json b =
      yolo::parity::oracle_json("ultralytics_val.py '" + model.string() + "' '" + yaml.string() +
                                    "' " + std::to_string(yolo::testing::kShapesImgsz),
                                tmp.path);
  ASSERT_TRUE(b.is_object()) << "the oracle printed no result";
  EXPECT_EQ(a.instances, b["instances"].get<int>());
  EXPECT_GT(b["map50"].get<double>(), 0.3) << "the model must detect for this to compare";
  // Our table prints 3 significant digits (as Ultralytics' does).
  auto near = [](double x, double y) { return std::abs(x - y) <= std::max(0.0015, 0.01 * y); };
  EXPECT_TRUE(near(a.p, b["p"])) << a.p << " vs " << b["p"];
  EXPECT_TRUE(near(a.r, b["r"])) << a.r << " vs " << b["r"];
  EXPECT_TRUE(near(a.map50, b["map50"])) << a.map50 << " vs " << b["map50"];
  EXPECT_TRUE(near(a.map, b["map"])) << a.map << " vs " << b["map"];
}
