// The runtime core on the GPU against the CPU, with no OpenCV: device-side preprocessing of
// every frame format (planes uploaded through page-locked memory) gives the same bytes as on the
// CPU, which test_device_preprocess checks against OpenCV; NMS and end-to-end top-k give the
// same detections; the engine runs an exported model on the GPU (FP32 and FP16) behind the
// dynamic batcher with the CPU's outputs.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <future>
#include <vector>

#include "gpu_test_support.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/detection_model.h"
#include "yolo/runtime/batcher.h"
#include "yolo/runtime/device_preprocess.h"
#include "yolo/runtime/engine.h"
#include "yolo/runtime/postprocess.h"

namespace fs = std::filesystem;
using yolo::FrameView;
using yolo::PixelFormat;
using yolo::gpu_test::gpu_device;
using yolo::gpu_test::on_gpu;
using yolo::gpu_test::relative_max_diff;

namespace {

// Random bytes laid out as a frame of `format`, rows padded past their length (as GStreamer
// aligns them) and planes separated by gaps, described by GstVideoInfo-style offsets/strides.
struct RawFrame {
  std::vector<uint8_t> bytes;
  size_t offsets[3] = {0, 0, 0};
  int strides[3] = {0, 0, 0};
  PixelFormat format;
  int width, height;
  FrameView view() const {
    return FrameView::from_offsets(format, width, height, bytes.data(), offsets, strides);
  }
};

RawFrame random_frame(PixelFormat format, int height, int width, int seed) {
  RawFrame f{{}, {0, 0, 0}, {0, 0, 0}, format, width, height};
  size_t size = 0;
  for (int p = 0; p < yolo::plane_count(format); ++p) {
    const int rows = p == 0 ? height : height / 2;
    f.strides[p] = static_cast<int>((yolo::min_plane_stride(format, width, p) + 63) / 64 * 64 + 32);
    f.offsets[p] = size + 16;
    size = f.offsets[p] + static_cast<size_t>(f.strides[p]) * rows;
  }
  torch::manual_seed(seed);
  const torch::Tensor noise = torch::randint(0, 256, {static_cast<int64_t>(size)}, torch::kUInt8);
  f.bytes.assign(noise.data_ptr<uint8_t>(), noise.data_ptr<uint8_t>() + size);
  return f;
}

TEST(GpuPreprocess, EveryFormatIsBitIdenticalToTheCpu) {
  YOLO_REQUIRE_GPU();
  const std::vector<PixelFormat> formats = {
      PixelFormat::kBGR,  PixelFormat::kRGB,  PixelFormat::kBGRx, PixelFormat::kRGBx,
      PixelFormat::kBGRA, PixelFormat::kRGBA, PixelFormat::kNV12, PixelFormat::kI420};
  int seed = 10;
  for (PixelFormat format : formats) {
    // Down- and upscaling, odd and even sizes (4:2:0 formats need even ones).
    const bool yuv = format == PixelFormat::kNV12 || format == PixelFormat::kI420;
    for (auto [h, w] : {std::pair{1080, 1920}, std::pair{240, 322}, std::pair{563, 1001}}) {
      if (yuv && (h % 2 || w % 2)) {
        h += h % 2;
        w += w % 2;
      }
      const RawFrame frame = random_frame(format, h, w, ++seed);
      yolo::DevicePreprocessOptions o;
      o.letterbox.height = 384;
      o.letterbox.width = 640;
      const torch::Tensor cpu = yolo::preprocess_frames({frame.view()}, o).input;
      o.device = gpu_device();
      const torch::Tensor gpu = yolo::preprocess_frames({frame.view()}, o).input;
      ASSERT_TRUE(on_gpu(gpu));
      EXPECT_TRUE(torch::equal(gpu.cpu(), cpu)) << yolo::to_string(format) << " " << w << "x" << h;
      o.half = true;
      const torch::Tensor half = yolo::preprocess_frames({frame.view()}, o).input;
      EXPECT_EQ(half.scalar_type(), torch::kHalf);
      EXPECT_TRUE(torch::equal(half.cpu(), cpu.to(torch::kHalf))) << yolo::to_string(format);
    }
  }
}

TEST(GpuPreprocess, MixedBatchMatchesTheCpu) {
  YOLO_REQUIRE_GPU();
  const RawFrame a = random_frame(PixelFormat::kBGRx, 720, 1280, 1);
  const RawFrame b = random_frame(PixelFormat::kNV12, 1080, 1920, 2);
  const RawFrame c = random_frame(PixelFormat::kI420, 480, 640, 3);
  yolo::DevicePreprocessOptions o;
  const auto cpu = yolo::preprocess_frames({a.view(), b.view(), c.view()}, o);
  o.device = gpu_device();
  const auto gpu = yolo::preprocess_frames({a.view(), b.view(), c.view()}, o);
  EXPECT_TRUE(torch::equal(gpu.input.cpu(), cpu.input));
  ASSERT_EQ(gpu.transforms.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(gpu.transforms[i].pad_top, cpu.transforms[i].pad_top);
}

TEST(GpuPostprocess, NmsMatchesTheCpu) {
  YOLO_REQUIRE_GPU();
  torch::manual_seed(7);
  // (B, 4+nc, A): centre-xywh boxes clustered so that NMS has overlaps to suppress.
  const int64_t batch = 3, nc = 5, anchors = 4000;
  torch::Tensor xy = torch::rand({batch, 2, anchors}) * 200 + 100;
  torch::Tensor wh = torch::rand({batch, 2, anchors}) * 60 + 10;
  torch::Tensor scores = torch::rand({batch, nc, anchors}).pow(3);
  const torch::Tensor pred = torch::cat({xy, wh, scores}, 1);
  for (bool agnostic : {false, true}) {
    yolo::NmsOptions o;
    o.conf = 0.2f;
    o.agnostic = agnostic;
    const auto cpu = yolo::non_max_suppression(pred, o, false);
    const auto gpu = yolo::non_max_suppression(pred.to(gpu_device()), o, false);
    ASSERT_EQ(cpu.size(), gpu.size());
    for (size_t i = 0; i < cpu.size(); ++i) {
      ASSERT_GT(cpu[i].size(0), 0);
      ASSERT_EQ(gpu[i].sizes(), cpu[i].sizes()) << "image " << i << " agnostic " << agnostic;
      EXPECT_LE(relative_max_diff(gpu[i], cpu[i]), 1e-6) << "image " << i;
    }
  }
}

TEST(GpuPostprocess, EndToEndTopKMatchesTheCpu) {
  YOLO_REQUIRE_GPU();
  torch::manual_seed(8);
  // (B, K, 6) rows x1 y1 x2 y2 score class, sorted by score as the end-to-end head emits them.
  torch::Tensor xy = torch::rand({2, 300, 2}) * 300;
  torch::Tensor boxes = torch::cat({xy, xy + torch::rand({2, 300, 2}) * 50}, 2);
  torch::Tensor score = std::get<0>(torch::rand({2, 300, 1}).sort(1, /*descending=*/true));
  torch::Tensor cls = torch::randint(0, 4, {2, 300, 1}).to(torch::kFloat);
  const torch::Tensor pred = torch::cat({boxes, score, cls}, 2);
  yolo::NmsOptions o;
  o.conf = 0.3f;
  o.classes = {1, 3};
  const auto cpu = yolo::non_max_suppression(pred, o, true);
  const auto gpu = yolo::non_max_suppression(pred.to(gpu_device()), o, true);
  for (size_t i = 0; i < cpu.size(); ++i) {
    ASSERT_EQ(gpu[i].sizes(), cpu[i].sizes());
    EXPECT_TRUE(torch::equal(gpu[i].cpu(), cpu[i]));
  }
}

// nms_free: trace YOLO26's one-to-one head (top-k rows) instead of the default one-to-many head.
fs::path export_model(const std::string& yaml, int64_t batch, bool nms_free = false) {
  torch::manual_seed(5);
  auto model = yolo::build_model(yaml, 3);
  model->detect().use_one2one = nms_free;
  const fs::path path = fs::temp_directory_path() / "yolo_gpu_test" /
                        (yaml + (nms_free ? "-nms-free" : "") + ".torchscript");
  yolo::ExportOptions o;
  o.height = 96;
  o.width = 128;
  o.batch = batch;
  o.include_weights = false;
  yolo::export_torchscript(*model, o, path);
  return path;
}

// The reference: FP32 on the CPU whatever the CPU could do (BF16 autocast is the runtime's
// default on CPUs with native BF16, as the GPU machine's has).
namespace {
yolo::EngineOptions fp32_on_the_cpu() {
  yolo::EngineOptions o;
  o.bf16 = false;
  return o;
}

// An end-to-end model's output is its top K rows by score. Random weights give thousands of
// anchors whose scores differ by less than the devices' rounding, so the two devices may pick and
// order different ones among them: compare what top-k promises (the K highest scores, sorted)
// rather than row by row. Other outputs compare as they are.
double output_difference(const torch::Tensor& got, const torch::Tensor& expected, bool top_k) {
  if (!top_k) return relative_max_diff(got, expected);
  auto scores = [](const torch::Tensor& t) {
    return std::get<0>(t.select(2, 4).to(torch::kCPU, torch::kFloat).sort(1, true));
  };
  return relative_max_diff(scores(got), scores(expected));
}
}  // namespace

TEST(GpuEngine, ForwardMatchesTheCpuInFp32AndFp16) {
  YOLO_REQUIRE_GPU();
  for (const auto& [yaml, nms_free] :
       {std::pair{"yolov8n.yaml", false}, {"yolo26n.yaml", false}, {"yolo26n.yaml", true}}) {
    const fs::path path = export_model(yaml, 1, nms_free);
    yolo::Engine cpu(path.string(), fp32_on_the_cpu());
    yolo::EngineOptions go;
    go.device = gpu_device().str();
    yolo::Engine gpu(path.string(), go);
    torch::manual_seed(9);
    const torch::Tensor x = torch::rand({2, 3, 96, 128});
    const torch::Tensor expected = cpu.forward(x);
    const torch::Tensor got = gpu.forward(x.to(gpu_device()));
    ASSERT_TRUE(on_gpu(got));
    EXPECT_LE(output_difference(got, expected, nms_free), 1e-4) << yaml;
    if (!gpu_device().is_cuda()) continue;  // a rehearsal on the CPU: half=True needs a GPU
    go.half = true;
    yolo::Engine half(path.string(), go);
    EXPECT_EQ(half.precision(), "FP16, channels-last");
    // FP16 weights and activations; the output may be FP32 where the graph meets FP32 constants
    // (the anchors baked into the trace), which postprocessing reads either way.
    const torch::Tensor got_half = half.forward(x);
    // FP16 keeps 11 significant bits: boxes in pixels and scores within about 1 %.
    EXPECT_LE(output_difference(got_half.to(torch::kFloat), expected, nms_free), 2e-2) << yaml;
  }
}

TEST(GpuEngine, BatcherServesManyProducersOnTheGpu) {
  YOLO_REQUIRE_GPU();
  const fs::path path = export_model("yolov8n.yaml", 1);
  yolo::Engine cpu(path.string(), fp32_on_the_cpu());
  yolo::EngineOptions go;
  go.device = gpu_device().str();
  yolo::Engine gpu(path.string(), go);
  yolo::BatcherOptions bo;
  bo.max_batch = 4;
  yolo::DynamicBatcher batcher([&](const torch::Tensor& batch) { return gpu.forward(batch); }, bo);
  std::vector<int> producers;
  for (int i = 0; i < 3; ++i) {
    producers.push_back(
        batcher.add_producer("cam" + std::to_string(i), yolo::QueueFullPolicy::kBlock));
  }
  torch::manual_seed(11);
  std::vector<torch::Tensor> frames;
  std::vector<std::future<torch::Tensor>> results;
  for (int i = 0; i < 12; ++i) {
    // Frames prepared on the GPU, as the element hands them over after device preprocessing.
    frames.push_back(torch::rand({3, 96, 128}));
    results.push_back(batcher.submit(producers[i % 3], frames.back().to(gpu_device())));
  }
  batcher.flush();
  for (size_t i = 0; i < frames.size(); ++i) {
    const torch::Tensor got = results[i].get();
    const torch::Tensor expected = cpu.forward(frames[i].unsqueeze(0)).squeeze(0);
    EXPECT_LE(relative_max_diff(got, expected), 1e-4) << "frame " << i;
  }
  const yolo::BatcherStats stats = batcher.stats();
  EXPECT_EQ(stats.inferred, 12u);
  EXPECT_EQ(stats.failed, 0u);
}

// CUDA/HIP graphs (runtime/src/gpu_graph.h): after its warm-up runs a shape's forward pass is
// captured once and replayed, in FP32 and FP16, and each replay computes what the plain pass
// computes on its own input; an output handed out stays the caller's through later replays.
TEST(GpuEngine, GraphsReplayThePlainForwardPass) {
  YOLO_REQUIRE_GPU();
  const fs::path path = export_model("yolov8n.yaml", 1);
  for (const bool half : {false, true}) {
    if (half && !gpu_device().is_cuda()) continue;  // a rehearsal on the CPU: no FP16
    yolo::EngineOptions o;
    o.device = gpu_device().str();
    o.half = half;
    o.gpu_graphs = false;
    yolo::Engine plain(path.string(), o);
    o.gpu_graphs = true;
    yolo::Engine graphed(path.string(), o);
    torch::manual_seed(13);
    torch::Tensor kept, kept_expected;
    for (int i = 0; i < yolo::Engine::kGraphWarmupRuns + 4; ++i) {
      const torch::Tensor x = torch::rand({1, 3, 96, 128}).to(gpu_device());
      const torch::Tensor expected = plain.forward(x);
      const torch::Tensor got = graphed.forward(x);
      EXPECT_LE(relative_max_diff(got.to(torch::kFloat), expected.to(torch::kFloat)), 1e-3)
          << (half ? "FP16" : "FP32") << ", call " << i;
      if (i == yolo::Engine::kGraphWarmupRuns + 1) kept = got, kept_expected = expected;
    }
    EXPECT_LE(relative_max_diff(kept.to(torch::kFloat), kept_expected.to(torch::kFloat)), 1e-3)
        << "a later replay changed an output already returned";
    if (gpu_device().is_cuda()) {
      EXPECT_EQ(graphed.gpu_graphs_captured(), 1);
    }
    // Another batch size is another shape: its own warm-up, then its own graph.
    for (int i = 0; i <= yolo::Engine::kGraphWarmupRuns; ++i) {
      const torch::Tensor x = torch::rand({2, 3, 96, 128}).to(gpu_device());
      EXPECT_LE(relative_max_diff(graphed.forward(x).to(torch::kFloat),
                                  plain.forward(x).to(torch::kFloat)),
                1e-3);
    }
    if (gpu_device().is_cuda()) {
      EXPECT_EQ(graphed.gpu_graphs_captured(), 2);
    }
  }
}

}  // namespace
