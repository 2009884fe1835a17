#include "gpu_graph.h"

#include <fmt/format.h>
#include <torch/script.h>

#include <stdexcept>
#include <string>

#if defined(YOLO_WITH_GPU_GRAPHS)
// LibTorch's GPU side; in ROCm builds the same names drive HIP graphs and streams.
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace yolo {

#if defined(YOLO_WITH_GPU_GRAPHS)

struct GpuGraph::Impl {
  at::cuda::CUDAGraph graph;
  at::Tensor input, output;  // the graph's own memory: written before, read after each replay
};

bool GpuGraph::compiled_in() {
  return true;
}

GpuGraph::GpuGraph(torch::jit::Module& module, const at::Tensor& example)
    : impl_(std::make_unique<Impl>()) {
  if (!example.is_cuda()) throw std::runtime_error("GPU graphs need the input on a GPU");
  c10::InferenceMode inference;
  const c10::cuda::CUDAGuard device(example.device());
  impl_->input = example.clone();
  // A capture cannot run on the legacy default stream: a side stream that first waits for the
  // work already queued (the example's clone).
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
  c10::cuda::device_synchronize();
  std::string failure;
  {
    const c10::cuda::CUDAStreamGuard on_side(side);
    try {
      impl_->graph.capture_begin();
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("a GPU graph capture could not start: {}", e.what()));
    }
    try {
      impl_->output = module.forward({impl_->input}).toTensor();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    // Always ended: a stream left capturing fails every later call on it.
    try {
      impl_->graph.capture_end();
    } catch (const std::exception& e) {
      if (failure.empty()) failure = e.what();
    }
  }
  if (!failure.empty()) {
    throw std::runtime_error(
        fmt::format("capturing the forward pass as a GPU graph failed: {}", failure));
  }
  c10::cuda::device_synchronize();
}

GpuGraph::~GpuGraph() = default;

at::Tensor GpuGraph::run(const at::Tensor& input) {
  impl_->input.copy_(input, /*non_blocking=*/true);  // the current stream, as replay's
  impl_->graph.replay();
  return impl_->output.clone();
}

#else

struct GpuGraph::Impl {};

bool GpuGraph::compiled_in() {
  return false;
}

GpuGraph::GpuGraph(torch::jit::Module&, const at::Tensor&) {
  throw std::runtime_error("this LibTorch has no GPU support: no GPU graphs");
}

GpuGraph::~GpuGraph() = default;

at::Tensor GpuGraph::run(const at::Tensor& input) {
  return input;
}

#endif

}  // namespace yolo
