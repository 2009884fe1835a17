// Device grammar and resolution: every spelling in shared/DESIGN.md, unsupported kinds, and
// resolution against CPU, CUDA and ROCm backends built by hand.
#include <gtest/gtest.h>

#include "yolo/core/allocator_tuning.h"
#include "yolo/core/device.h"

using yolo::BackendInfo;
using yolo::DeviceError;
using yolo::DeviceRequest;
using yolo::parse_device;
using yolo::resolve_device;

namespace {

BackendInfo cpu_backend() {
  BackendInfo b;
  b.torch_version = "1.13.1";
  return b;
}

BackendInfo rocm_backend(int gpus) {
  BackendInfo b;
  b.flavour = BackendInfo::Flavour::kRocm;
  b.flavour_version = "6.0";
  b.torch_version = "2.3.0";
  for (int i = 0; i < gpus; ++i) b.gpus.push_back({i, "AMD Radeon RX 7900 XTX", 24ull << 30});
  return b;
}

std::string error_of(const std::string& text, const BackendInfo& backend = cpu_backend()) {
  try {
    resolve_device(parse_device(text), backend);
  } catch (const DeviceError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(DeviceGrammar, CpuAndAuto) {
  EXPECT_EQ(parse_device("cpu").kind, DeviceRequest::Kind::kCpu);
  EXPECT_EQ(parse_device(" CPU ").kind, DeviceRequest::Kind::kCpu);
  EXPECT_EQ(parse_device("").kind, DeviceRequest::Kind::kAuto);
  EXPECT_EQ(parse_device("-1").kind, DeviceRequest::Kind::kAuto);
  EXPECT_EQ(parse_device("None").kind, DeviceRequest::Kind::kAuto);
}

TEST(DeviceGrammar, GpuSpellings) {
  const std::vector<int> zero{0};
  for (const char* s : {"0", "cuda", "cuda:0", "CUDA:0", "[0]", "gpu", "'0'"}) {
    DeviceRequest r = parse_device(s);
    EXPECT_EQ(r.kind, DeviceRequest::Kind::kGpu) << s;
    EXPECT_EQ(r.gpu_indices, zero) << s;
  }
  EXPECT_EQ(parse_device("cuda:1").gpu_indices, std::vector<int>{1});
  EXPECT_EQ(parse_device("0,1").gpu_indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_device("[0, 1]").gpu_indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_device("[0,1]").gpu_indices, (std::vector<int>{0, 1}));
  // Ultralytics collapses duplicate and trailing commas.
  EXPECT_EQ(parse_device("0,,1,").gpu_indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_device("2,0").gpu_indices, (std::vector<int>{2, 0}));
  EXPECT_EQ(parse_device("0,0").gpu_indices, std::vector<int>{0});
}

TEST(DeviceGrammar, MalformedIsAnError) {
  for (const char* s : {"abc", "cuda:x", "0;1", "1.5", ",", "cuda:"}) {
    EXPECT_THROW(parse_device(s), DeviceError) << s;
  }
  EXPECT_NE(error_of("abc").find("device=cpu"), std::string::npos);
}

TEST(DeviceGrammar, UnsupportedKindsExplainWhy) {
  struct Case {
    const char* text;
    const char* must_mention;
  };
  for (const Case& c : {Case{"directml", "Windows"}, Case{"dml:0", "DirectML"},
                        Case{"migraphx", "inference graph compiler"}, Case{"npu", "Ryzen AI"},
                        Case{"ryzenai", "Vitis AI"}, Case{"vitis", "Ryzen AI"},
                        Case{"mps", "macOS"}, Case{"rocm:0", "'cuda' device type"},
                        Case{"hip", "'cuda' device type"}, Case{"tpu", "only CPUs and GPUs"}}) {
    std::string msg;
    try {
      parse_device(c.text);
    } catch (const DeviceError& e) {
      msg = e.what();
    }
    ASSERT_FALSE(msg.empty()) << c.text << " was accepted";
    EXPECT_NE(msg.find("not supported"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.must_mention), std::string::npos) << msg;
    // Every explanation says what to use instead.
    EXPECT_NE(msg.find("device=cpu"), std::string::npos) << msg;
    EXPECT_NE(msg.find("device=0"), std::string::npos) << msg;
  }
}

TEST(DeviceResolve, CpuBackend) {
  auto sel = resolve_device(parse_device(""), cpu_backend());
  EXPECT_FALSE(sel.is_gpu);
  EXPECT_EQ(sel.torch_string(), "cpu");
  EXPECT_EQ(sel.world_size(), 1);
  std::string msg = error_of("3");
  EXPECT_NE(msg.find("GPU 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sees no GPU"), std::string::npos) << msg;
  EXPECT_NE(msg.find("CPU build"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1.13.1"), std::string::npos) << msg;
  EXPECT_FALSE(error_of("cuda:0").empty());
}

// The `cpu` package (a GPU build's CPU part alone): asking it for a GPU names the package to
// install instead of a driver to check.
TEST(DeviceResolve, CpuPartOfAGpuBuildPointsAtTheGpuPackage) {
  BackendInfo b;
  b.torch_version = "2.11.0";
  b.cpu_part_of = "CUDA 13.0";
  EXPECT_FALSE(resolve_device(parse_device(""), b).is_gpu);
  const std::string msg = error_of("0", b);
  EXPECT_NE(msg.find("GPU 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("`cpu` package"), std::string::npos) << msg;
  EXPECT_NE(msg.find("device=cpu"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("VISIBLE_DEVICES"), std::string::npos) << msg;
}

TEST(DeviceResolve, RocmDevicesAppearAsCuda) {
  BackendInfo rocm = rocm_backend(2);
  auto one = resolve_device(parse_device("0"), rocm);
  EXPECT_TRUE(one.is_gpu);
  EXPECT_EQ(one.torch_string(), "cuda:0");
  auto second = resolve_device(parse_device("cuda:1"), rocm);
  EXPECT_EQ(second.torch_string(), "cuda:1");
  auto both = resolve_device(parse_device("0,1"), rocm);
  EXPECT_EQ(both.world_size(), 2);
  EXPECT_EQ(both.describe(rocm), "cuda:0,1 (AMD Radeon RX 7900 XTX, AMD Radeon RX 7900 XTX)");
  auto best = resolve_device(parse_device("-1"), rocm);
  EXPECT_EQ(best.torch_string(), "cuda:0");
  std::string msg = error_of("0,2", rocm);
  EXPECT_NE(msg.find("GPU 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sees 2 GPUs"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ROCm/HIP 6.0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1: AMD Radeon RX 7900 XTX"), std::string::npos) << msg;
}

TEST(DeviceResolve, GpuBuildWithoutGpusPointsAtDriver) {
  BackendInfo rocm = rocm_backend(0);
  std::string msg = error_of("0", rocm);
  EXPECT_NE(msg.find("HIP_VISIBLE_DEVICES"), std::string::npos) << msg;
}

TEST(TorchBuildConfig, RecognisesFlavours) {
  BackendInfo b;
  yolo::parse_torch_build_config(
      "PyTorch built with:\n  - HIP Runtime 5.6.31061\n  - MIOpen 2.20.0\n  - Build settings: "
      "BLAS_INFO=mkl, USE_CUDA=OFF, USE_ROCM=ON, ",
      b);
  EXPECT_EQ(b.flavour, BackendInfo::Flavour::kRocm);
  EXPECT_EQ(b.flavour_name(), "ROCm/HIP 5.6");

  yolo::parse_torch_build_config(
      "PyTorch built with:\n  - CUDA Runtime 12.1\n  - CuDNN 8.9.2\n  - Build settings: "
      "CUDA_VERSION=12.1, USE_CUDA=ON, USE_ROCM=OFF, ",
      b);
  EXPECT_EQ(b.flavour, BackendInfo::Flavour::kCuda);
  EXPECT_EQ(b.flavour_name(), "CUDA 12.1");

  yolo::parse_torch_build_config("Build settings: USE_CUDA=OFF, USE_ROCM=OFF, ", b);
  EXPECT_EQ(b.flavour, BackendInfo::Flavour::kCpu);
  EXPECT_EQ(b.flavour_name(), "CPU");
  EXPECT_TRUE(b.onednn_version.empty());
  EXPECT_TRUE(b.blas_info.empty());

  // The PyPI wheel's text (torch 2.11, CUDA 13): no "CUDA Runtime" line without a GPU driver.
  yolo::parse_torch_build_config(
      "PyTorch built with:\n  - GCC 13.3\n  - Intel(R) MKL-DNN v3.10.2 (Git Hash f1d4719)\n"
      "  - Build settings: BLAS_INFO=mkl, CUDA_VERSION=13.0, CUDNN_VERSION=9.19.0, "
      "TORCH_VERSION=2.11.0, USE_CUDA=ON, USE_MKLDNN=ON, USE_ROCM=OFF, ",
      b);
  EXPECT_EQ(b.flavour_name(), "CUDA 13.0");
  EXPECT_EQ(b.onednn_version, "3.10.2");
  EXPECT_EQ(b.blas_info, "mkl");
  // Debian's 1.13: oneDNN 2.6 under its older name, BLAS through libblas.so.3.
  yolo::parse_torch_build_config(
      "  - Intel(R) MKL-DNN v2.6.3 (Git Hash N/A)\n  - Build settings: BLAS_INFO=generic, "
      "USE_CUDA=OFF, USE_ROCM=OFF, ",
      b);
  EXPECT_EQ(b.onednn_version, "2.6.3");
  EXPECT_EQ(b.blas_info, "generic");
}

// Whatever LibTorch this is built against (Debian's CPU one, the CUDA wheel, a ROCm zip), what
// this machine has decides the device: without GPUs, device=0 is refused and the default is the
// CPU; with them, the default is GPU 0. (It skipped on every GPU build before: #56.)
TEST(TorchBackend, TheDefaultDeviceFollowsTheGpusThisMachineHas) {
  BackendInfo b = yolo::query_backend();
  EXPECT_FALSE(b.torch_version.empty());
  if (b.flavour == BackendInfo::Flavour::kCpu) EXPECT_TRUE(b.gpus.empty()) << "a CPU build";
  if (b.gpus.empty()) {
    EXPECT_THROW(yolo::select_device("0"), DeviceError);
    EXPECT_EQ(yolo::select_device("").torch_string(), "cpu");
  } else {
    EXPECT_EQ(yolo::select_device("").torch_string(), "cuda:0");
  }
}

// The trainer's allocator setting takes on glibc (Debian, the supported systems).
TEST(AllocatorTuning, TakesOnGlibc) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer replaces glibc's allocator, whose settings then do not apply";
#elif defined(__GLIBC__)
  EXPECT_TRUE(yolo::keep_freed_memory_for_reuse());
#else
  EXPECT_FALSE(yolo::keep_freed_memory_for_reuse());
#endif
}
