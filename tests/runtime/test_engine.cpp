// The engine on real exported checkpoints: outputs equal to the eager fused model, detection on
// frames of any size (boxes inside the source frame), shape errors, concurrent callers.
#include <gtest/gtest.h>

#include <torch/torch.h>
#include <memory>

#include <filesystem>
#include <opencv2/imgproc.hpp>
#include <thread>

#include "yolo/core/device.h"
#include "yolo/runtime/engine.h"
#include "yolo/runtime/image_detect.h"

namespace fs = std::filesystem;

namespace {

struct Exported {
  std::shared_ptr<yolo::DetectionModelImpl> model;
  fs::path path;
};

// nms_free: trace an end-to-end model's one-to-one head (Ultralytics' nms=False).
Exported export_model(const std::string& yaml, int h, int w, bool nms_free = false,
                      int64_t batch = 1) {
  torch::manual_seed(5);
  Exported e;
  e.model = yolo::build_model(yaml, 3);
  e.model->detect().use_one2one = nms_free;
  e.model->names = {{0, "a"}, {1, "b"}, {2, "c"}};
  e.path = fs::temp_directory_path() / "yolo_engine" / (yaml + ".torchscript");
  yolo::ExportOptions o;
  o.height = h;
  o.width = w;
  o.include_weights = false;
  o.batch = batch;
  yolo::export_torchscript(*e.model, o, e.path);
  return e;
}

}  // namespace

TEST(Engine, ForwardMatchesEagerFusedModel) {
  Exported e = export_model("yolov8n.yaml", 64, 96);
  yolo::EngineOptions fp32;  // the eager model is FP32; BF16 is compared in its own test
  fp32.bf16 = false;
  yolo::Engine engine(e.path.string(), fp32);
  EXPECT_EQ(engine.input_height(), 64);
  EXPECT_EQ(engine.input_width(), 96);
  EXPECT_FALSE(engine.end2end());
  EXPECT_EQ(engine.metadata().names.at(2), "c");
  auto fused = yolo::clone_model(*e.model);
  fused->eval();
  fused->fuse();
  torch::Tensor x = torch::rand({2, 3, 64, 96});
  torch::Tensor expected;
  {
    torch::NoGradGuard g;
    expected = fused->forward(x);
  }
  torch::Tensor got = engine.forward(x);
  ASSERT_EQ(got.sizes(), expected.sizes());
  EXPECT_LE((got - expected).abs().max().item<double>(), 1e-3);
}

TEST(Engine, DetectMapsBoxesIntoEachFrame) {
  Exported e = export_model("yolo26n.yaml", 64, 64, /*nms_free=*/true);
  yolo::Engine engine(e.path.string(), {});
  EXPECT_TRUE(engine.end2end());
  std::vector<cv::Mat> frames = {cv::Mat(120, 200, CV_8UC3, cv::Scalar(10, 200, 30)),
                                 cv::Mat(90, 40, CV_8UC3, cv::Scalar(250, 250, 250))};
  cv::circle(frames[0], {100, 60}, 30, cv::Scalar(0, 0, 255), cv::FILLED);
  yolo::NmsOptions nms;
  nms.conf = 0.0f;  // an untrained model: keep everything to check the geometry
  nms.max_det = 50;
  auto dets = yolo::detect_images(engine, frames, nms);
  ASSERT_EQ(dets.size(), 2u);
  for (size_t i = 0; i < dets.size(); ++i) {
    const auto& d = dets[i].boxes;
    ASSERT_EQ(d.dim(), 2);
    EXPECT_LE(d.size(0), 50);
    EXPECT_GT(d.size(0), 0);
    EXPECT_TRUE(torch::all(d.select(1, 0) >= 0).item<bool>());
    EXPECT_TRUE(torch::all(d.select(1, 2) <= frames[i].cols).item<bool>());
    EXPECT_TRUE(torch::all(d.select(1, 3) <= frames[i].rows).item<bool>());
    EXPECT_EQ(dets[i].transform.src_width, frames[i].cols);
  }
}

// A model exported for batches of 2 gets 5 images as 2 + 2 + (1 padded with a copy of itself),
// and the outputs come back in order without the padding's; detect_images times its stages.
TEST(Engine, AnyBatchRunsInTheExportedBatch) {
  Exported e = export_model("yolov8n.yaml", 64, 64, false, /*batch=*/2);
  yolo::Engine engine(e.path.string(), {});
  ASSERT_EQ(engine.metadata().batch, 2);
  torch::manual_seed(1);
  const torch::Tensor x = torch::rand({5, 3, 64, 64});
  const torch::Tensor got = engine.forward_in_traced_batches(x);
  ASSERT_EQ(got.size(0), 5);
  EXPECT_TRUE(got.slice(0, 0, 2).equal(engine.forward(x.slice(0, 0, 2))));
  EXPECT_TRUE(got.slice(0, 2, 4).equal(engine.forward(x.slice(0, 2, 4))));
  const torch::Tensor last = x.slice(0, 4, 5);
  EXPECT_TRUE(got.slice(0, 4, 5).equal(engine.forward(torch::cat({last, last})).slice(0, 0, 1)));

  std::vector<cv::Mat> frames(3, cv::Mat(48, 80, CV_8UC3, cv::Scalar(90, 120, 30)));
  yolo::StageTimes times;
  const auto dets = yolo::detect_images(engine, frames, {}, &times);
  EXPECT_EQ(dets.size(), 3u);
  EXPECT_GT(times.preprocess_ms, 0);
  EXPECT_GT(times.inference_ms, 0);
  EXPECT_GT(times.postprocess_ms, 0) << "the postprocessing stage was not timed";
}

TEST(Engine, ClearErrors) {
  Exported e = export_model("yolov8n.yaml", 64, 64);
  yolo::Engine engine(e.path.string(), {});
  try {
    engine.forward(torch::rand({1, 3, 32, 64}));
    FAIL() << "accepted a wrong size";
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("(B, 3, 64, 64)"), std::string::npos) << err.what();
  }
  EXPECT_THROW(engine.forward(torch::rand({1, 1, 64, 64})), std::invalid_argument);
  yolo::EngineOptions half;
  half.half = true;
  EXPECT_THROW(yolo::Engine(e.path.string(), half), std::invalid_argument);
  EXPECT_THROW(yolo::Engine("/no/such/model.torchscript", {}), yolo::CheckpointError);
}

// The layout and precision levers change how the forward pass computes, not what it computes:
// channels-last gives the FP32 numbers to rounding, BF16 (under autocast, or in the graph fused
// for BF16, which needs no autocast) gives them to BF16's precision, and the engine says which
// arithmetic it runs.
TEST(Engine, LayoutAndPrecisionLeversKeepTheOutput) {
  Exported e = export_model("yolov8n.yaml", 64, 64);
  auto engine = [&](bool channels_last, bool bf16, bool fuse = true) {
    yolo::EngineOptions o;
    o.channels_last = channels_last;
    o.bf16 = bf16;
    o.fuse_convolutions = fuse;
    return std::make_unique<yolo::Engine>(e.path.string(), o);
  };
  const auto plain = engine(false, false), cl = engine(true, false);
  const auto autocast = engine(true, true, false), fused = engine(true, true);
  EXPECT_EQ(plain->precision(), "FP32");
  EXPECT_EQ(cl->precision(), "FP32, channels-last");
  EXPECT_EQ(autocast->precision(), "BF16 autocast, channels-last");
  if (yolo::has_onednn_fused_conv()) {
    EXPECT_EQ(fused->precision(), "BF16, channels-last");
  }
  torch::manual_seed(0);
  const torch::Tensor x = torch::rand({2, 3, 64, 64});
  const torch::Tensor ref = plain->forward(x);
  EXPECT_LT((cl->forward(x) - ref).abs().max().item<double>(), 1e-3);
  for (yolo::Engine* bf16 : {autocast.get(), fused.get()}) {
    const torch::Tensor b = bf16->forward(x);
    EXPECT_EQ(b.scalar_type(), torch::kFloat) << "postprocessing reads FP32";
    // Boxes are pixels of a 64 px input, scores in [0, 1]: BF16's 8-bit mantissa moves them a
    // little, never wholesale.
    const double box = (b.slice(1, 0, 4) - ref.slice(1, 0, 4)).abs().max().item<double>();
    const double score = (b.slice(1, 4) - ref.slice(1, 4)).abs().max().item<double>();
    EXPECT_LT(box, 1.0) << bf16->precision();
    EXPECT_LT(score, 0.05) << bf16->precision();
    EXPECT_GT(box + score, 0.0) << bf16->precision() << " changed nothing: it did not run";
  }
  yolo::EngineOptions gpu_bf16;
  gpu_bf16.device = "cuda:0";
  gpu_bf16.bf16 = true;
  try {
    yolo::Engine refused(e.path.string(), gpu_bf16);
    FAIL() << "bf16=True accepted on a GPU";
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("half=True"), std::string::npos) << err.what();
  }
}

TEST(Engine, ConcurrentCallersGetTheirOwnResults) {
  Exported e = export_model("yolov8n.yaml", 64, 64);
  yolo::Engine engine(e.path.string(), {});
  std::vector<torch::Tensor> inputs, expected;
  for (int i = 0; i < 4; ++i) {
    inputs.push_back(torch::rand({1, 3, 64, 64}));
    expected.push_back(engine.forward(inputs.back()));
  }
  std::vector<torch::Tensor> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 5; ++k) got[t] = engine.forward(inputs[t]);
    });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(torch::allclose(got[t], expected[t])) << t;
}
