#include "yolo/trainer/train/mixed_precision.h"

#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

namespace yolo {
namespace {

// LibTorch 2.4 replaced the CUDA-only setters with per-device ones; "cuda" covers ROCm's HIP
// devices too.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool autocast_enabled() {
  return at::autocast::is_autocast_enabled(at::kCUDA);
}
void set_autocast(bool on) {
  at::autocast::set_autocast_enabled(at::kCUDA, on);
}
#else
bool autocast_enabled() {
  return at::autocast::is_enabled();
}
void set_autocast(bool on) {
  at::autocast::set_enabled(on);
}
#endif

}  // namespace

AutocastScope::AutocastScope(bool enabled) : previous_(autocast_enabled()), changed_(enabled) {
  if (changed_) set_autocast(true);
}

AutocastScope::~AutocastScope() {
  if (!changed_) return;
  set_autocast(previous_);
  if (!previous_) at::autocast::clear_cache();  // drop the FP16 weight copies of this scope
}

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
