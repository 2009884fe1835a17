// Autocast (mixed precision) for one device type on this thread, for the lifetime of a scope:
// FP16 on CUDA/HIP GPUs, BF16 on CPUs that compute it natively. Shared by the runtime's forward
// pass and the trainer's step, so inference and training use the same switch.
#pragma once

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

namespace yolo {

class AutocastScope {
 public:
  // Disabled: does nothing. Enabled: turns autocast on for `device` ("cuda" covers ROCm's HIP
  // devices) with `dtype`, and restores the previous state (and drops the cast weight copies
  // when autocast was off before) on exit, as torch.autocast's context manager does.
  AutocastScope(c10::DeviceType device, c10::ScalarType dtype, bool enabled);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType device_;
  bool enabled_;
  bool was_enabled_ = false;
  c10::ScalarType was_dtype_ = c10::ScalarType::Float;
};

}  // namespace yolo
