// Rectangular inputs (#52, Ultralytics' rect): a training checkpoint, which carries its network,
// runs at any stride-multiple size, each size traced on first use and equal to the eager model
// there; a fixed-shape export runs its traced size only and says so; prepared sizes are bounded.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <opencv2/imgproc.hpp>
#include <string>

#include "yolo/runtime/engine.h"
#include "yolo/runtime/image_detect.h"

namespace fs = std::filesystem;

namespace {

struct Saved {
  std::shared_ptr<yolo::DetectionModelImpl> model;
  fs::path path;
};

// A checkpoint as the trainer writes it (with_weights: yolo/weights.pkl) or as `export` does.
Saved save_model(const std::string& yaml, int size, bool with_weights, bool nms_free = false) {
  torch::manual_seed(7);
  Saved s;
  s.model = yolo::build_model(yaml, 3);
  s.model->detect().use_one2one = nms_free;
  s.model->names = {{0, "a"}, {1, "b"}, {2, "c"}};
  s.path = fs::temp_directory_path() / "yolo_engine_rect" /
           (yaml + (with_weights ? ".pt" : ".torchscript"));
  yolo::ExportOptions o;
  o.height = o.width = size;
  o.include_weights = with_weights;
  yolo::export_torchscript(*s.model, o, s.path);
  return s;
}

torch::Tensor eager_fused(const yolo::DetectionModelImpl& model, const torch::Tensor& x) {
  auto fused = yolo::clone_model(model);
  fused->eval();
  fused->fuse();
  torch::NoGradGuard g;
  return fused->forward(x);
}

yolo::EngineOptions fp32() {
  yolo::EngineOptions o;
  o.bf16 = false;  // compared with the FP32 eager model
  return o;
}

}  // namespace

TEST(EngineRect, ATrainingCheckpointRunsEveryStrideMultipleSize) {
  for (const bool nms_free : {false, true}) {
    const Saved s = save_model(nms_free ? "yolo26n.yaml" : "yolov8n.yaml", 64, true, nms_free);
    yolo::Engine engine(s.path.string(), fp32());
    ASSERT_TRUE(engine.rect());
    EXPECT_EQ(engine.end2end(), nms_free);
    for (const auto& [h, w] : {std::pair{64, 64}, std::pair{32, 96}, std::pair{96, 64}}) {
      const torch::Tensor x = torch::rand({1, 3, h, w});
      const torch::Tensor want = eager_fused(*s.model, x);
      const torch::Tensor got = engine.forward(x);
      ASSERT_EQ(got.sizes(), want.sizes()) << h << "x" << w;
      EXPECT_LE((got - want).abs().max().item<double>(), 1e-3) << h << "x" << w;
    }
    const auto shapes = engine.prepared_shapes();
    ASSERT_EQ(shapes.size(), 3u);
    EXPECT_EQ(shapes.front(), (std::vector<int64_t>{64, 64})) << "the traced size first";
    // Not a stride multiple: named, with what to do.
    try {
      engine.forward(torch::rand({1, 3, 40, 64}));
      ADD_FAILURE() << "40x64 ran";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("multiples of its stride 32"), std::string::npos)
          << e.what();
    }
  }
}

// Bytes this process has read so far through read() and its kin (/proc/self/io's rchar).
uint64_t bytes_read() {
  std::ifstream io("/proc/self/io");
  std::string key;
  uint64_t value = 0;
  while (io >> key >> value)
    if (key == "rchar:") return value;
  return 0;
}

// Loading a model reads its file once (#56): the checks (layout, CRC-32 of every entry), LibTorch's
// loader and the tracer all work on the bytes read then. Before, a training checkpoint was read
// in full three times more and its directory twice more. Both file kinds the tracer takes and a
// fixed-shape export.
TEST(EngineRect, LoadingAModelReadsItsFileOnce) {
  for (const bool with_weights : {true, false}) {
    const Saved s = save_model("yolov8n.yaml", 64, with_weights);
    { yolo::Engine warm_up(s.path.string(), fp32()); }  // LibTorch's first-use reads
    const uint64_t size = fs::file_size(s.path);
    const uint64_t before = bytes_read();
    yolo::Engine engine(s.path.string(), fp32());
    const uint64_t read = bytes_read() - before;
    EXPECT_GE(read, size) << s.path;
    EXPECT_LT(read, size + size / 4)
        << s.path << ": " << read << " bytes read for a file of " << size;
    if (with_weights) {  // the tracer builds other sizes from the same bytes, not the file
      const uint64_t again = bytes_read();
      engine.forward(torch::rand({1, 3, 32, 96}));
      EXPECT_LT(bytes_read() - again, size / 4);
    }
  }
}

TEST(EngineRect, AFixedShapeExportRunsItsOwnSizeOnly) {
  const Saved s = save_model("yolov8n.yaml", 64, false);
  yolo::Engine engine(s.path.string(), fp32());
  EXPECT_FALSE(engine.rect());
  EXPECT_FALSE(engine.letterbox_options(/*rect=*/true).auto_stride);
  try {
    engine.forward(torch::rand({1, 3, 32, 96}));
    ADD_FAILURE() << "a fixed-shape export ran at 32x96";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("exported at imgsz 64x64"), std::string::npos) << e.what();
  }
  // rect=false keeps a checkpoint at its traced size too.
  const Saved ckpt = save_model("yolov8n.yaml", 64, true);
  yolo::EngineOptions square = fp32();
  square.rect = false;
  EXPECT_FALSE(yolo::Engine(ckpt.path.string(), square).rect());
}

TEST(EngineRect, TheLeastRecentlyUsedSizesAreDropped) {
  const Saved s = save_model("yolov8n.yaml", 64, true);
  yolo::EngineOptions o = fp32();
  o.warmup_runs = 0;
  yolo::Engine engine(s.path.string(), o);
  const int extra = static_cast<int>(yolo::Engine::kMaxExtraShapes) + 2;
  for (int i = 1; i <= extra; ++i) engine.forward(torch::rand({1, 3, 32, 32 * i}));
  engine.forward(torch::rand({1, 3, 32, 32 * extra}));
  const auto shapes = engine.prepared_shapes();
  EXPECT_EQ(shapes.size(), yolo::Engine::kMaxExtraShapes + 1);
  EXPECT_EQ(shapes.front(), (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(std::count(shapes.begin(), shapes.end(), std::vector<int64_t>{32, 32}), 0)
      << "the oldest size stays";
  EXPECT_EQ(std::count(shapes.begin(), shapes.end(), std::vector<int64_t>{32, 32 * extra}), 1);
}

// detect_images with rect: one size -> the minimal stride-multiple rectangle (Ultralytics'
// LetterBox(auto=True)); mixed sizes -> the square, as Ultralytics' predictor does.
TEST(EngineRect, DetectImagesLetterboxesToTheMinimalRectangle) {
  const Saved s = save_model("yolov8n.yaml", 128, true);
  yolo::Engine engine(s.path.string(), fp32());
  const cv::Mat wide(120, 200, CV_8UC3, cv::Scalar(40, 90, 200));
  const auto rect = yolo::detect_images(engine, {wide, wide}, {}, nullptr, /*rect=*/true);
  // 200x120 at 128: 128x77, the height padded to 96 (77 + 51 % 32).
  EXPECT_EQ(rect[0].transform.out_width, 128);
  EXPECT_EQ(rect[0].transform.out_height, 96);
  const cv::Mat tall(200, 120, CV_8UC3, cv::Scalar(40, 90, 200));
  const auto mixed = yolo::detect_images(engine, {wide, tall}, {}, nullptr, /*rect=*/true);
  for (const auto& d : mixed) {
    EXPECT_EQ(d.transform.out_width, 128);
    EXPECT_EQ(d.transform.out_height, 128);
  }
  const auto square = yolo::detect_images(engine, {wide}, {}, nullptr, /*rect=*/false);
  EXPECT_EQ(square[0].transform.out_height, 128);
}

// Preparing a new size is one-time work, reported apart from the inference (#66): the first
// image of a new rectangle says it prepared one size and how long that took; the next image of
// that size prepares nothing; the traced square needs no preparation at all.
TEST(EngineRect, PreparingANewSizeIsTimedApartFromTheInference) {
  const Saved s = save_model("yolov8n.yaml", 128, true);
  yolo::Engine engine(s.path.string(), fp32());
  const cv::Mat wide(120, 200, CV_8UC3, cv::Scalar(40, 90, 200));
  yolo::StageTimes first, again, square;
  yolo::detect_images(engine, {wide}, {}, &first, /*rect=*/true);
  EXPECT_TRUE(first.prepared_new_shape);
  EXPECT_GT(first.prepare_ms, 0);
  EXPECT_GT(first.inference_ms, 0);
  yolo::detect_images(engine, {wide}, {}, &again, /*rect=*/true);
  EXPECT_FALSE(again.prepared_new_shape);
  EXPECT_EQ(again.prepare_ms, 0);
  yolo::detect_images(engine, {wide}, {}, &square, /*rect=*/false);
  EXPECT_FALSE(square.prepared_new_shape);
  EXPECT_EQ(yolo::shape_preparation_line(1, 2400),
            "Prepared 1 new input size in 2.4 s (traced once per size, like Ultralytics' warm-up: "
            "not in the speed above)");
}
