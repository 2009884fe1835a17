// The CPU convolution fusion (runtime/src/cpu_conv_fusion.h) on real exports: it rewrites every
// convolution of yolov8n and yolo26n, takes each SiLU into its convolution, prepacks every
// weight, and changes how the forward pass computes, not what: FP32 to rounding, BF16 within
// BF16's precision.
#include <gtest/gtest.h>

#include <torch/script.h>
#include <torch/torch.h>

#include <filesystem>
#include <memory>
#include <string>
#include <tuple>

#include "cpu_conv_fusion.h"
#include "yolo/runtime/engine.h"

namespace fs = std::filesystem;

namespace {

fs::path export_model(const std::string& yaml) {
  torch::manual_seed(3);
  auto model = yolo::build_model(yaml, 3);
  model->names = {{0, "a"}, {1, "b"}, {2, "c"}};
  const fs::path path = fs::temp_directory_path() / "yolo_conv_fusion" / (yaml + ".torchscript");
  yolo::ExportOptions o;
  o.height = o.width = 96;
  o.include_weights = false;
  yolo::export_torchscript(*model, o, path);
  return path;
}

int count(const torch::jit::Module& m, const char* kind) {
  int n = 0;
  for (const torch::jit::Node* node : m.get_method("forward").graph()->nodes())
    n += node->kind() == c10::Symbol::fromQualString(kind) ? 1 : 0;
  return n;
}

class CpuConvFusion : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuConvFusion, RewritesEveryConvolutionAndTakesTheSilus) {
  if (!yolo::cpu_conv_fusion_available()) GTEST_SKIP() << "this LibTorch has no oneDNN";
  torch::jit::Module m = torch::jit::load(export_model(GetParam()).string());
  m.eval();
  m = torch::jit::freeze(m);
  const int convolutions = count(m, "aten::_convolution") + count(m, "aten::conv2d");
  const int silus = count(m, "aten::silu");
  ASSERT_GT(convolutions, 50);
  ASSERT_GT(silus, 40);
  const yolo::CpuConvFusion fused = yolo::fuse_cpu_convolutions(m, false);
  EXPECT_EQ(fused.with_silu + fused.plain, convolutions);
  EXPECT_EQ(fused.with_silu, silus) << "every SiLU of these models follows a convolution";
  EXPECT_EQ(count(m, "aten::_convolution") + count(m, "aten::conv2d"), 0);
  EXPECT_EQ(count(m, "aten::silu"), 0);
  EXPECT_EQ(count(m, "mkldnn::_convolution_pointwise"), convolutions);

  const torch::Tensor x = torch::rand({1, 3, 96, 96});
  EXPECT_EQ(yolo::prepack_cpu_convolution_weights(m, x), convolutions);
  EXPECT_EQ(count(m, "prim::ConstantMKLDNNTensor"), convolutions);
  c10::InferenceMode guard;
  EXPECT_TRUE(m.forward({x}).toTensor().isfinite().all().item<bool>());
}

TEST_P(CpuConvFusion, KeepsTheOutput) {
  if (!yolo::cpu_conv_fusion_available()) GTEST_SKIP() << "this LibTorch has no oneDNN";
  const fs::path path = export_model(GetParam());
  auto engine = [&](bool fuse, bool bf16, bool prepack = true) {
    yolo::EngineOptions o;
    o.fuse_convolutions = fuse;
    o.prepack_weights = prepack;
    o.bf16 = bf16;
    return std::make_unique<yolo::Engine>(path.string(), o);
  };
  torch::manual_seed(0);
  const torch::Tensor x = torch::rand({2, 3, 96, 96});
  const torch::Tensor fp32 = engine(false, false)->forward(x);
  const torch::Tensor fused = engine(true, false, false)->forward(x);
  ASSERT_EQ(fused.sizes(), fp32.sizes());
  EXPECT_LT((fused - fp32).abs().max().item<double>(), 1e-3);
  // Prepacking moves the weights' reorder to load time; the kernel and the numbers stay.
  const torch::Tensor packed = engine(true, false)->forward(x);
  EXPECT_LT((packed - fused).abs().max().item<double>(), 1e-4);
  const torch::Tensor first = engine(true, false)->forward(x.slice(0, 0, 1));
  EXPECT_LT((first - packed.slice(0, 0, 1)).abs().max().item<double>(), 1e-4)
      << "batch 1 and batch 2 run the same packed weights";

  // BF16: each path against FP32, boxes in pixels of a 96 px input and scores in [0, 1].
  for (const auto& [fuse, prepack, name] :
       {std::tuple{false, false, "autocast"}, std::tuple{true, false, "fused"},
        std::tuple{true, true, "fused, prepacked"}}) {
    const torch::Tensor b = engine(fuse, true, prepack)->forward(x);
    EXPECT_EQ(b.scalar_type(), torch::kFloat);
    const double box = (b.slice(1, 0, 4) - fp32.slice(1, 0, 4)).abs().max().item<double>();
    const double score = (b.slice(1, 4) - fp32.slice(1, 4)).abs().max().item<double>();
    EXPECT_LT(box, 1.5) << name;
    EXPECT_LT(score, 0.05) << name;
    EXPECT_GT(box + score, 0.0) << "BF16 changed nothing: it did not run";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, CpuConvFusion, ::testing::Values("yolov8n.yaml", "yolo26n.yaml"),
                         [](const auto& model) { return model.param.substr(0, 7); });

}  // namespace
