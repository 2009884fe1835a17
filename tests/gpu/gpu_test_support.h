// Shared by the tests labelled `gpu`: they compare a GPU (CUDA or ROCm, both LibTorch's `cuda`
// device) against the CPU on the same input, and skip with a message where no GPU is visible.
#pragma once

#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/types.h>

#include <algorithm>
#include <string>

// Skips the calling test on a machine without a GPU; otherwise turns TF32 off, so that GPU
// convolutions and matrix products round like the CPU's float32 and tolerances can stay tight
// (TF32 keeps 10 mantissa bits: about 1e-3 relative, which would hide real differences).
#define YOLO_REQUIRE_GPU()                                                                  \
  do {                                                                                      \
    if (!torch::cuda::is_available()) {                                                     \
      GTEST_SKIP() << "no GPU visible to LibTorch (torch::cuda::is_available() is false): " \
                      "this check runs on a CUDA or ROCm machine (tools/gpu-check.sh)";     \
    }                                                                                       \
    at::globalContext().setAllowTF32CuDNN(false);                                           \
    at::globalContext().setAllowTF32CuBLAS(false);                                          \
  } while (0)

namespace yolo::gpu_test {

inline const torch::Device kGpu(torch::kCUDA, 0);

// Largest |a - b| relative to the largest |b| (1 when b is all zeros): one number per tensor
// that reads the same for logits and for pixel coordinates.
inline double relative_max_diff(const torch::Tensor& a, const torch::Tensor& b) {
  const torch::Tensor x = a.detach().to(torch::kCPU, torch::kDouble);
  const torch::Tensor y = b.detach().to(torch::kCPU, torch::kDouble);
  const double scale = std::max(y.abs().max().item<double>(), 1.0);
  return (x - y).abs().max().item<double>() / scale;
}

}  // namespace yolo::gpu_test
