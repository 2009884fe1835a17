// oneDNN's fused convolution for a frozen model on the CPU.
#pragma once

namespace at {
class Tensor;
}  // namespace at

namespace torch::jit {
struct Module;
}  // namespace torch::jit

namespace yolo {

struct CpuConvFusion {
  int with_silu = 0;  // convolutions that took the SiLU after them as their post-op
  int plain = 0;      // convolutions without one
};

// Whether this LibTorch has oneDNN's pointwise convolution (mkldnn::_convolution_pointwise, the
// op torch.compile uses for convolutions on x86 CPUs). Builds without oneDNN lack it.
bool cpu_conv_fusion_available();

// Rewrites the forward graph of `frozen` (torch::jit::freeze's result: weights are constants)
// for the CPU: every 2-D, not transposed convolution with a constant weight becomes
// mkldnn::_convolution_pointwise, and a SiLU right after it (its only user) becomes that op's
// "swish" post-op. In the plain graph each SiLU is a pass of its own over the convolution's
// output, and depthwise convolutions in FP32 channels-last miss oneDNN (LibTorch's slow
// im2col path runs them). The arithmetic is the same oneDNN convolution.
// With `bf16`, weights and biases are stored in BF16 and each rewritten convolution casts its
// input to BF16 (a no-op for BF16 input), which is what autocast did per call, without casting
// the weights again on every forward pass. Returns what was rewritten; nothing when
// cpu_conv_fusion_available() is false.
CpuConvFusion fuse_cpu_convolutions(torch::jit::Module& frozen, bool bf16);

// Stores the weight of every fused convolution (fuse_cpu_convolutions' result) in the blocked
// layout oneDNN's kernel reads for the input size it sees when the model runs on `example` (run
// once here, under the caller's autocast state), reordered once instead of on every call. Other
// input sizes run too; where their kernel reads another layout, oneDNN reorders per call as
// before. The packed weights are opaque oneDNN tensors: the module then runs but cannot be
// saved. Returns the convolutions packed; 0 where this LibTorch lacks the reorder op.
int prepack_cpu_convolution_weights(torch::jit::Module& fused, const at::Tensor& example);

// Whether a graph fused with `bf16` computes in BF16 without autocast: no op that autocast casts
// to BF16 (convolutions, linear layers, matrix products) still holds a constant FP32 weight. The
// fused convolutions cast their own input, so activations are BF16 from the first one on and
// autocast only adds casts: around its FP32 ops and back (3-17 % of a forward pass in
// tools/bench/bench_inference.cpp; the output was the same in an A/B).
bool bf16_without_autocast(const torch::jit::Module& fused);

}  // namespace yolo
