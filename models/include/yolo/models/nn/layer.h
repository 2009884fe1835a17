// Base class of the network's top-level layers (`model.0`, `model.1`, ...).
// Each layer takes the outputs of the layers its `from` field names, in that order; most take one.
// The PyTorch-style `forward(Tensor)` stays the modules' own method so that they also work inside
// torch::nn::Sequential; `run` is the uniform entry point the model's forward loop calls.
#pragma once

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace yolo::nn {

class Layer : public torch::nn::Module {
 public:
  // Layer inputs in `from` order; single-input layers use inputs.at(0).
  virtual torch::Tensor run(const std::vector<torch::Tensor>& inputs) = 0;
};

// Counts conv multiply-adds during one forward pass, for GFLOPs (thop counts convolutions
// only, and so do the published Ultralytics numbers). Owned by the caller; modules hold a
// pointer only while counting.
struct FlopCounter {
  std::int64_t macs = 0;  // per image
};

// Copies every parameter and buffer of `from` into the same-named tensors of `to` (same
// architecture), without autograd. Used for Ultralytics' deep copies and for cloning models.
void copy_state(const torch::nn::Module& from, torch::nn::Module& to);

}  // namespace yolo::nn
