#include "yolo/core/autocast_scope.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace yolo {
namespace {

// LibTorch 2.4 replaced the per-device setters (set_enabled for CUDA, set_cpu_enabled, ...) with
// ones that take the device type.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool is_enabled(c10::DeviceType d) {
  return at::autocast::is_autocast_enabled(d);
}
void set_enabled(c10::DeviceType d, bool on) {
  at::autocast::set_autocast_enabled(d, on);
}
c10::ScalarType get_dtype(c10::DeviceType d) {
  return at::autocast::get_autocast_dtype(d);
}
void set_dtype(c10::DeviceType d, c10::ScalarType t) {
  at::autocast::set_autocast_dtype(d, t);
}
#else
bool is_enabled(c10::DeviceType d) {
  return d == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
}
void set_enabled(c10::DeviceType d, bool on) {
  if (d == c10::DeviceType::CPU)
    at::autocast::set_cpu_enabled(on);
  else
    at::autocast::set_enabled(on);
}
c10::ScalarType get_dtype(c10::DeviceType d) {
  return d == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype()
                                   : at::autocast::get_autocast_gpu_dtype();
}
void set_dtype(c10::DeviceType d, c10::ScalarType t) {
  if (d == c10::DeviceType::CPU)
    at::autocast::set_autocast_cpu_dtype(t);
  else
    at::autocast::set_autocast_gpu_dtype(t);
}
#endif

}  // namespace

AutocastScope::AutocastScope(c10::DeviceType device, c10::ScalarType dtype, bool enabled)
    : device_(device), enabled_(enabled) {
  if (!enabled_) return;
  was_enabled_ = is_enabled(device_);
  was_dtype_ = get_dtype(device_);
  set_enabled(device_, true);
  set_dtype(device_, dtype);
}

AutocastScope::~AutocastScope() {
  if (!enabled_) return;
  set_enabled(device_, was_enabled_);
  set_dtype(device_, was_dtype_);
  // The cast copies of the weights are kept for the outermost scope only: drop them with it, or
  // the next step would reuse copies of weights the optimiser has changed since.
  if (!was_enabled_) at::autocast::clear_cache();
}

}  // namespace yolo
