// Device selection: one grammar for the trainer, the runtime and the GStreamer element.
//
// Accepted strings (case-insensitive, spaces ignored):
//   ""  / "-1"            best available: GPU 0 when LibTorch sees a GPU, else CPU
//   "cpu"                 the CPU
//   "0", "cuda:0", "cuda" one GPU (bare "cuda" means GPU 0)
//   "0,1", "[0,1]"        several GPUs (multi-GPU training); the first is the primary device
// ROCm builds of LibTorch expose AMD GPUs through the same "cuda" device type, so "0" and
// "cuda:0" select an AMD GPU there; there is no separate "rocm"/"hip" spelling to learn.
//
// Device kinds that exist elsewhere but not in this product (mps, directml, npu, ryzenai,
// migraphx, vitis, ...) are rejected with an explanation and what to use instead, never silently
// replaced by the CPU.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "yolo/core/error.h"

namespace yolo {

// Thrown for any device string that cannot be honoured; what() is a complete user-facing message.
class DeviceError : public UsageError {
 public:
  using UsageError::UsageError;
};

// The parsed form of a device string, before looking at the hardware.
struct DeviceRequest {
  enum class Kind { kAuto, kCpu, kGpu };
  Kind kind = Kind::kAuto;
  std::vector<int> gpu_indices;  // non-empty iff kind == kGpu; in the order the user wrote them
  std::string text;              // what the user wrote, for messages

  bool operator==(const DeviceRequest& o) const {
    return kind == o.kind && gpu_indices == o.gpu_indices;
  }
};

// What LibTorch offers in this process. Filled by query_backend(); tests build it by hand.
struct GpuInfo {
  int index = 0;
  std::string name;                // e.g. "AMD Radeon RX 7900 XTX"; "unknown" if the probe failed
  std::uint64_t total_memory = 0;  // bytes; 0 if unknown
};

struct BackendInfo {
  enum class Flavour { kCpu, kCuda, kRocm };
  Flavour flavour = Flavour::kCpu;
  std::string flavour_version;  // "12.1" for CUDA, "6.0" for ROCm/HIP, empty for CPU
  std::string torch_version;    // e.g. "2.11.0"
  std::string
      onednn_version;     // oneDNN (MKL-DNN) LibTorch was built with, e.g. "3.10.2"; empty if none
  std::string blas_info;  // BLAS_INFO of the build: "mkl" (inside LibTorch), "open", "generic"
  // oneDNN's pointwise convolution op is registered (mkldnn::_convolution_pointwise, LibTorch
  // 2.x with oneDNN): the runtime fuses each CPU convolution with its SiLU into it.
  bool onednn_fused_conv = false;
  std::vector<GpuInfo> gpus;  // what torch::cuda::device_count() sees (HIP devices on ROCm)
  // A GPU build of LibTorch of which only the CPU part is linked (YOLO_LIBTORCH_PARTS=cpu, the
  // `cpu` package): what that build is ("CUDA 13.0"), while `flavour` says kCpu; else empty.
  std::string cpu_part_of;

  // "CPU", "CUDA 12.1" or "ROCm/HIP 6.0".
  std::string flavour_name() const;
};

// The resolved choice. kind/index map 1:1 onto c10::Device (see torch_device.h).
struct SelectedDevice {
  bool is_gpu = false;
  std::vector<int> gpu_indices;  // all GPUs to use; gpu_indices[0] is the primary device
  int primary_index() const { return gpu_indices.empty() ? -1 : gpu_indices.front(); }
  int world_size() const { return is_gpu ? static_cast<int>(gpu_indices.size()) : 1; }
  // "cpu" or "cuda:N" (the string torch::Device accepts).
  std::string torch_string() const;
  // For logs: "cpu", "cuda:0 (AMD Radeon ...)", "cuda:0,1".
  std::string describe(const BackendInfo& backend) const;
};

// Parses the grammar above; throws DeviceError for unsupported kinds and malformed strings.
DeviceRequest parse_device(std::string_view text);

// Checks a request against the hardware; throws DeviceError naming what exists when a GPU is
// requested that LibTorch does not see.
SelectedDevice resolve_device(const DeviceRequest& request, const BackendInfo& backend);

// Queries the LibTorch in this process (flavour from its build configuration, GPU count from
// torch::cuda, names and memory from the vendor runtime when it can be loaded).
BackendInfo query_backend();
// Whether this LibTorch registers oneDNN's pointwise convolution (BackendInfo::onednn_fused_conv).
bool has_onednn_fused_conv();

// parse_device + query_backend + resolve_device.
SelectedDevice select_device(std::string_view text);

// Parses LibTorch's build configuration text (at::show_config()) into flavour and version,
// oneDNN version and BLAS kind.
// Separate so that CPU, CUDA and ROCm builds can be unit-tested on any machine.
void parse_torch_build_config(const std::string& config, BackendInfo& out);

}  // namespace yolo
