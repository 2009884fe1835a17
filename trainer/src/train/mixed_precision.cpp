#include "yolo/trainer/train/mixed_precision.h"

#include <torch/torch.h>

namespace yolo {

GradScaler::GradScaler(bool enabled, double init_scale, double growth_factor, double backoff_factor,
                       int growth_interval)
    : enabled_(enabled),
      scale_(init_scale),
      growth_(growth_factor),
      backoff_(backoff_factor),
      interval_(growth_interval) {}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) const {
  return enabled_ ? loss * scale_ : loss;
}

bool GradScaler::unscale(const std::vector<torch::Tensor>& params) const {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> finite;
  for (const auto& p : params) {
    if (!p.grad().defined()) continue;
    auto g = p.grad();
    if (enabled_) g.div_(scale_);
    finite.push_back(torch::isfinite(g).all());
  }
  // One device-to-host read for all parameters instead of one per tensor.
  return finite.empty() || torch::stack(finite).all().item<bool>();
}

void GradScaler::update(bool finite) {
  if (!enabled_) return;
  if (!finite) {
    scale_ *= backoff_;
    tracker_ = 0;
  } else if (++tracker_ >= interval_) {
    scale_ *= growth_;
    tracker_ = 0;
  }
}

}  // namespace yolo
