// Models on the GPU against the CPU: the same weights and input give the same inference output
// and the same training-head outputs and gradients (forward and backward), for each family.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "gpu_test_support.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/detection_model.h"

using yolo::gpu_test::gpu_device;
using yolo::gpu_test::on_gpu;
using yolo::gpu_test::relative_max_diff;

namespace {

class GpuModel : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuModel, InferenceMatchesCpu) {
  YOLO_REQUIRE_GPU();
  torch::manual_seed(3);
  auto cpu = yolo::build_model(GetParam(), 3);
  cpu->eval();
  auto gpu = yolo::clone_model(*cpu);
  gpu->to(gpu_device());
  gpu->eval();
  const torch::Tensor x = torch::rand({2, 3, 96, 128});
  torch::NoGradGuard no_grad;
  const torch::Tensor expected = cpu->forward(x);
  const torch::Tensor got = gpu->forward(x.to(gpu_device()));
  ASSERT_TRUE(on_gpu(got));
  ASSERT_EQ(got.sizes(), expected.sizes());
  EXPECT_LE(relative_max_diff(got, expected), 1e-4) << GetParam();
}

TEST_P(GpuModel, TrainingForwardAndGradientsMatchCpu) {
  YOLO_REQUIRE_GPU();
  torch::manual_seed(4);
  auto cpu = yolo::build_model(GetParam(), 3);
  cpu->train();
  auto gpu = yolo::clone_model(*cpu);
  gpu->to(gpu_device());
  gpu->train();
  const torch::Tensor x = torch::rand({2, 3, 64, 64});
  // A fixed function of every head output, so every parameter gets a gradient.
  auto objective = [](const yolo::nn::DetectTrainOutput& out) {
    torch::Tensor sum = out.one2many.boxes.sin().mean() + out.one2many.scores.cos().mean();
    if (out.one2one) sum = sum + out.one2one->boxes.cos().mean() + out.one2one->scores.sin().mean();
    return sum;
  };
  const yolo::nn::DetectTrainOutput out_cpu = cpu->forward_train(x);
  const yolo::nn::DetectTrainOutput out_gpu = gpu->forward_train(x.to(gpu_device()));
  EXPECT_LE(relative_max_diff(out_gpu.one2many.boxes, out_cpu.one2many.boxes), 1e-4);
  EXPECT_LE(relative_max_diff(out_gpu.one2many.scores, out_cpu.one2many.scores), 1e-4);
  ASSERT_EQ(out_cpu.one2one.has_value(), out_gpu.one2one.has_value());
  if (out_cpu.one2one) {
    EXPECT_LE(relative_max_diff(out_gpu.one2one->scores, out_cpu.one2one->scores), 1e-4);
  }
  objective(out_cpu).backward();
  objective(out_gpu).backward();
  const auto cpu_params = cpu->named_parameters();
  const auto gpu_params = gpu->named_parameters();
  int compared = 0;
  for (const auto& p : cpu_params) {
    const torch::Tensor& g_cpu = p.value().grad();
    const torch::Tensor& g_gpu = gpu_params[p.key()].grad();
    ASSERT_EQ(g_cpu.defined(), g_gpu.defined()) << p.key();
    if (!g_cpu.defined()) continue;
    ASSERT_TRUE(on_gpu(g_gpu)) << p.key();
    // Gradients sum over many terms in a different order on the GPU: 1e-3 of the largest one.
    EXPECT_LE(relative_max_diff(g_gpu, g_cpu), 1e-3) << p.key();
    ++compared;
  }
  EXPECT_GT(compared, 50);
}

INSTANTIATE_TEST_SUITE_P(Families, GpuModel,
                         ::testing::Values("yolov8n.yaml", "yolo11n.yaml", "yolo26n.yaml"),
                         [](const auto& test_param) {
                           std::string n = test_param.param;
                           return n.substr(0, n.find('.'));
                         });

}  // namespace
