// Convolutions (Ultralytics' nn/modules/conv.py): a plain Conv2d, Conv (conv + BN + SiLU), DWConv.
// Parameter names match Ultralytics' state-dict keys: Conv2d has `weight` [c2, c1/g, k, k] and
// optional `bias` [c2]; Conv has `conv.weight` and `bn.{weight,bias,running_mean,running_var,
// num_batches_tracked}`; after fuse() Conv has `conv.weight`, `conv.bias` and no `bn`.
#pragma once

#include <torch/nn/modules/batchnorm.h>

#include "yolo/models/nn/layer.h"

namespace yolo::nn {

// BatchNorm settings Ultralytics applies to every BN (initialize_weights).
inline constexpr double kBatchNormEps = 1e-3;
inline constexpr double kBatchNormMomentum = 0.03;

// Ultralytics' autopad: 'same' padding, with the dilated kernel size.
int64_t autopad(int64_t k, int64_t d = 1);

class Conv2dImpl : public Layer {
 public:
  Conv2dImpl(int64_t c1, int64_t c2, int64_t k, int64_t s = 1, int64_t p = -1, int64_t g = 1,
             int64_t d = 1, bool bias = true);
  torch::Tensor forward(const torch::Tensor& x);  // (B, c1, H, W) -> (B, c2, H/s, W/s)
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }

  // Adds a bias parameter (zeros) if there is none; used when folding BN.
  void ensure_bias();
  void set_flop_counter(FlopCounter* counter) { flops_ = counter; }

  torch::Tensor weight, bias;  // bias undefined when built without
  int64_t in_channels, out_channels, kernel, stride, padding, groups, dilation;

 private:
  FlopCounter* flops_ = nullptr;
};

class ConvImpl : public Layer {
 public:
  // act: true = SiLU, false = identity.
  ConvImpl(int64_t c1, int64_t c2, int64_t k = 1, int64_t s = 1, int64_t p = -1, int64_t g = 1,
           int64_t d = 1, bool act = true);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }

  // Folds BN into the convolution (eval statistics) and removes `bn`.
  void fuse();
  bool fused() const { return !bn; }

  std::shared_ptr<Conv2dImpl> conv;
  torch::nn::BatchNorm2d bn{nullptr};
  bool act;
};

// Depthwise-style Conv: groups = gcd(c1, c2).
std::shared_ptr<ConvImpl> make_dwconv(int64_t c1, int64_t c2, int64_t k = 1, int64_t s = 1,
                                      int64_t d = 1, bool act = true);

class ConcatImpl : public Layer {
 public:
  explicit ConcatImpl(int64_t dim = 1) : dim_(dim) {}
  torch::Tensor run(const std::vector<torch::Tensor>& in) override;

 private:
  int64_t dim_;
};

class UpsampleImpl : public Layer {
 public:
  explicit UpsampleImpl(double scale = 2.0) : scale_(scale) {}
  torch::Tensor forward(const torch::Tensor& x);  // nearest neighbour
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }

 private:
  double scale_;
};

}  // namespace yolo::nn
