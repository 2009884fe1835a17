#include "yolo/models/nn/conv.h"

#include <torch/nn/functional/upsampling.h>
#include <torch/nn/init.h>

#include <cmath>
#include <numeric>

namespace yolo::nn {

int64_t autopad(int64_t k, int64_t d) {
  if (d > 1) k = d * (k - 1) + 1;
  return k / 2;
}

Conv2dImpl::Conv2dImpl(int64_t c1, int64_t c2, int64_t k, int64_t s, int64_t p, int64_t g,
                       int64_t d, bool with_bias)
    : in_channels(c1),
      out_channels(c2),
      kernel(k),
      stride(s),
      padding(p < 0 ? autopad(k, d) : p),
      groups(g),
      dilation(d) {
  TORCH_CHECK(c1 % g == 0 && c2 % g == 0, "Conv2d: channels ", c1, "->", c2,
              " are not divisible by groups ", g);
  weight = register_parameter("weight", torch::empty({c2, c1 / g, k, k}));
  // PyTorch's default Conv2d initialisation (Ultralytics keeps it).
  torch::NoGradGuard no_grad;
  torch::nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (with_bias) {
    bias = register_parameter("bias", torch::empty({c2}));
    const double bound = 1.0 / std::sqrt(static_cast<double>((c1 / g) * k * k));
    bias.uniform_(-bound, bound);
  }
}

void Conv2dImpl::ensure_bias() {
  if (!bias.defined())
    bias = register_parameter("bias", torch::zeros({out_channels}, weight.options()));
}

torch::Tensor Conv2dImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = torch::conv2d(x, weight, bias, {stride, stride}, {padding, padding},
                                  {dilation, dilation}, groups);
  if (flops_) flops_->macs += y.numel() / y.size(0) * (in_channels / groups) * kernel * kernel;
  return y;
}

ConvImpl::ConvImpl(int64_t c1, int64_t c2, int64_t k, int64_t s, int64_t p, int64_t g, int64_t d,
                   bool act_)
    : act(act_) {
  conv = register_module("conv", std::make_shared<Conv2dImpl>(c1, c2, k, s, p, g, d, false));
  bn = register_module(
      "bn", torch::nn::BatchNorm2d(
                torch::nn::BatchNorm2dOptions(c2).eps(kBatchNormEps).momentum(kBatchNormMomentum)));
}

torch::Tensor ConvImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = conv->forward(x);
  if (bn) y = bn->forward(y);
  return act ? torch::silu(y) : y;
}

void ConvImpl::fuse() {
  if (!bn) return;
  torch::NoGradGuard no_grad;
  // w' = w * gamma / sqrt(var + eps);  b' = beta + (b - mean) * gamma / sqrt(var + eps)
  torch::Tensor scale = bn->weight / torch::sqrt(bn->running_var + bn->options.eps());
  conv->ensure_bias();
  conv->weight.mul_(scale.view({-1, 1, 1, 1}));
  conv->bias.copy_(bn->bias + (conv->bias - bn->running_mean) * scale);
  unregister_module("bn");
  bn = torch::nn::BatchNorm2d(nullptr);
}

std::shared_ptr<ConvImpl> make_dwconv(int64_t c1, int64_t c2, int64_t k, int64_t s, int64_t d,
                                      bool act) {
  return std::make_shared<ConvImpl>(c1, c2, k, s, -1, std::gcd(c1, c2), d, act);
}

torch::Tensor ConcatImpl::run(const std::vector<torch::Tensor>& in) {
  return torch::cat(in, dim_);
}

torch::Tensor UpsampleImpl::forward(const torch::Tensor& x) {
  namespace F = torch::nn::functional;
  return F::interpolate(x, F::InterpolateFuncOptions()
                               .scale_factor(std::vector<double>{scale_, scale_})
                               .mode(torch::kNearest));
}

}  // namespace yolo::nn
