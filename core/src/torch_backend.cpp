// What the LibTorch linked into this process offers. The flavour comes from LibTorch's own build
// configuration (at::show_config), never from GPU names, so a ROCm build is recognised as ROCm
// even when no GPU is present.
#include <ATen/Version.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <regex>

#include "gpu_probe.h"
#include "yolo/core/device.h"

namespace yolo {
namespace {

// "5.6.31061" -> "5.6"
std::string major_minor(const std::string& v) {
  std::smatch m;
  static const std::regex re(R"((\d+)\.(\d+))");
  return std::regex_search(v, m, re) ? m[1].str() + "." + m[2].str() : v;
}

}  // namespace

void parse_torch_build_config(const std::string& config, BackendInfo& out) {
  std::smatch m;
  static const std::regex hip_runtime(R"(HIP Runtime\s+([0-9.]+))");
  static const std::regex rocm_version(R"(ROCM_VERSION=([0-9.]+))");
  static const std::regex cuda_runtime(R"(CUDA Runtime\s+([0-9.]+))");
  static const std::regex cuda_version(R"(CUDA_VERSION=([0-9.]+))");
  static const std::regex onednn(R"((?:MKL-DNN|oneDNN|DNNL)[^\n]*?v?(\d+\.\d+(?:\.\d+)?))");
  static const std::regex blas_info(R"(BLAS_INFO=([A-Za-z0-9_]+))");
  out.flavour = BackendInfo::Flavour::kCpu;
  out.flavour_version.clear();
  out.onednn_version = std::regex_search(config, m, onednn) ? m[1].str() : "";
  out.blas_info = std::regex_search(config, m, blas_info) ? m[1].str() : "";
  if (config.find("USE_ROCM=ON") != std::string::npos ||
      config.find("USE_ROCM=1") != std::string::npos || std::regex_search(config, hip_runtime)) {
    out.flavour = BackendInfo::Flavour::kRocm;
    if (std::regex_search(config, m, hip_runtime) || std::regex_search(config, m, rocm_version)) {
      out.flavour_version = major_minor(m[1].str());
    }
  } else if (config.find("USE_CUDA=ON") != std::string::npos ||
             config.find("USE_CUDA=1") != std::string::npos ||
             std::regex_search(config, cuda_runtime)) {
    out.flavour = BackendInfo::Flavour::kCuda;
    if (std::regex_search(config, m, cuda_runtime) || std::regex_search(config, m, cuda_version)) {
      out.flavour_version = major_minor(m[1].str());
    }
  }
}

bool has_onednn_fused_conv() {
  return c10::Dispatcher::singleton()
      .findSchema({"mkldnn::_convolution_pointwise", ""})
      .has_value();
}

BackendInfo query_backend() {
  BackendInfo info;
  info.torch_version = TORCH_VERSION;
  parse_torch_build_config(at::show_config(), info);
  // The build configuration is libtorch_cpu's, which says CUDA or ROCm for a GPU build even when
  // the GPU part (libtorch_cuda / libtorch_hip) is not linked: that part registers the GPU hooks
  // (HIP's too, under the CUDA name), so without them this process is a CPU one.
  if (info.flavour != BackendInfo::Flavour::kCpu && !at::CUDAHooksRegistry()->Has("CUDAHooks")) {
    info.cpu_part_of = info.flavour_name();
    info.flavour = BackendInfo::Flavour::kCpu;
    info.flavour_version.clear();
  }
  info.onednn_fused_conv = has_onednn_fused_conv();
  const int count = static_cast<int>(torch::cuda::device_count());
  for (int i = 0; i < count; ++i) {
    GpuInfo gpu;
    gpu.index = i;
    gpu.name = "unknown GPU";
    if (info.flavour != BackendInfo::Flavour::kCpu) {
      detail::probe_gpu(info.flavour == BackendInfo::Flavour::kRocm, i, gpu);
    }
    info.gpus.push_back(std::move(gpu));
  }
  return info;
}

}  // namespace yolo
