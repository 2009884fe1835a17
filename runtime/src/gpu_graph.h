// One forward pass of a TorchScript model on a GPU, captured once as a CUDA graph (a HIP graph
// on ROCm) and replayed: a nano model at batch 1 leaves a GPU waiting on kernel launches (3.5 ms
// a forward pass on an H200, hardly more at batch 8), and a replay issues the pass's hundreds of
// launches as one.
#pragma once

#include <memory>

namespace at {
class Tensor;
}  // namespace at
namespace torch::jit {
struct Module;
}  // namespace torch::jit

namespace yolo {

class GpuGraph {
 public:
  // Whether this build has the graph API (LibTorch with CUDA or ROCm support).
  static bool compiled_in();

  // Captures module.forward on `example` (on the GPU, the shape and dtype every later input
  // has). The module must have run on this shape before (the TorchScript executor compiles its
  // kernels in the first runs, which a capture cannot contain). Throws std::runtime_error when
  // the capture fails or the build has no graph API.
  GpuGraph(torch::jit::Module& module, const at::Tensor& example);
  ~GpuGraph();
  GpuGraph(const GpuGraph&) = delete;
  GpuGraph& operator=(const GpuGraph&) = delete;

  // The captured pass on `input` (example's shape and dtype): copies it into the graph's input,
  // replays, and returns a copy of the output (the next replay overwrites the graph's own).
  at::Tensor run(const at::Tensor& input);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace yolo
