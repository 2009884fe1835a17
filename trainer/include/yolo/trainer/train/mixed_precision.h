// Dynamic loss scaling for FP16 training on GPUs (PyTorch's torch.amp.GradScaler, which
// LibTorch's C++ API lacks). A no-op when disabled -- FP32, and BF16 on the CPU, whose exponent
// range is FP32's -- so the training loop has one code path. The autocast scope itself is
// yolo/core/autocast_scope.h.
#pragma once

#include <torch/types.h>

#include <vector>

namespace yolo {

class GradScaler {
 public:
  explicit GradScaler(bool enabled, double init_scale = 65536.0, double growth_factor = 2.0,
                      double backoff_factor = 0.5, int growth_interval = 2000);

  bool enabled() const { return enabled_; }
  // loss * scale (the loss unchanged when disabled).
  torch::Tensor scale(const torch::Tensor& loss) const;
  // Divides the gradients by the scale; returns false when any is Inf or NaN (skip the step).
  bool unscale(const std::vector<torch::Tensor>& params) const;
  // After each optimiser step attempt: halve the scale on overflow, double it after
  // growth_interval clean steps.
  void update(bool finite);

  double current_scale() const { return scale_; }
  int growth_tracker() const { return tracker_; }
  void restore(double scale, int tracker) { scale_ = scale, tracker_ = tracker; }

 private:
  bool enabled_;
  double scale_, growth_, backoff_;
  int interval_, tracker_ = 0;
};

}  // namespace yolo
