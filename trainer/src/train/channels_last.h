// Channels-last (NHWC) layout for CPU training: oneDNN's convolutions run on NHWC natively, so a
// model whose 4-D weights and input batches are NHWC skips the layout reorders that NCHW costs
// on every convolution, forward and backward (1.1-1.2x a step; docs/benchmarks.md). Gradients and
// optimiser state follow the weights' layout; checkpoints store the standard layout
// (pickle_state), so files do not depend on how the run trained.
#pragma once

#include <torch/types.h>

namespace torch::nn {
class Module;
}

namespace yolo {

// Every 4-D parameter and buffer of `module` (its convolution kernels) in channels-last layout.
void weights_to_channels_last(torch::nn::Module& module);

// A (B, 3, H, W) batch in channels-last layout (a no-op when it is already).
torch::Tensor to_channels_last(const torch::Tensor& images);

}  // namespace yolo
