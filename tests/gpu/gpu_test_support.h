// Shared by the tests labelled `gpu`: they compare a GPU (CUDA or ROCm, both LibTorch's `cuda`
// device) against the CPU on the same input, and skip with a message where no GPU is visible.
#pragma once

#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/types.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace yolo::gpu_test {

// Rehearsal (YOLO_GPU_TEST_REHEARSAL=1, set by tools/gpu-check.sh where no GPU is visible): the
// CPU stands in for the GPU, so the tests' own code (shapes, APIs, tolerances) runs on every
// machine they are built on. Its comparisons are CPU against CPU and say nothing about a GPU.
inline bool rehearsal() {
  const char* v = std::getenv("YOLO_GPU_TEST_REHEARSAL");
  return v != nullptr && *v != '\0' && std::string(v) != "0" && !torch::cuda::is_available();
}

// The device under test: GPU 0 (CUDA, or ROCm's HIP through the same device type), or the CPU in
// a rehearsal.
inline torch::Device gpu_device() {
  return rehearsal() ? torch::Device(torch::kCPU) : torch::Device(torch::kCUDA, 0);
}

// True when `t` lives on the device under test.
inline bool on_gpu(const torch::Tensor& t) {
  return t.device() == gpu_device();
}

// Largest |a - b| relative to the largest |b| (at least 1): one number per tensor that reads the
// same for logits and for pixel coordinates.
inline double relative_max_diff(const torch::Tensor& a, const torch::Tensor& b) {
  const torch::Tensor x = a.detach().to(torch::kCPU, torch::kDouble);
  const torch::Tensor y = b.detach().to(torch::kCPU, torch::kDouble);
  const double scale = std::max(y.abs().max().item<double>(), 1.0);
  return (x - y).abs().max().item<double>() / scale;
}

}  // namespace yolo::gpu_test

// Skips the calling test on a machine without a GPU (unless rehearsing); otherwise turns TF32
// off, so that GPU convolutions and matrix products round like the CPU's float32 and tolerances
// can stay tight (TF32 keeps 10 mantissa bits: about 1e-3 relative, which would hide real
// differences).
#define YOLO_REQUIRE_GPU()                                                                  \
  do {                                                                                      \
    if (!torch::cuda::is_available() && !yolo::gpu_test::rehearsal()) {                     \
      GTEST_SKIP() << "no GPU visible to LibTorch (torch::cuda::is_available() is false): " \
                      "this check runs on a CUDA or ROCm machine (tools/gpu-check.sh)";     \
    }                                                                                       \
    at::globalContext().setAllowTF32CuDNN(false);                                           \
    at::globalContext().setAllowTF32CuBLAS(false);                                          \
  } while (0)
