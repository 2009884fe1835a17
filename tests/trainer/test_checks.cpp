// The checks report: every fact the issue lists, for CPU and ROCm backends.
#include <gtest/gtest.h>

#include "yolo/core/device.h"
#include "yolo/core/system_info.h"
#include "yolo/trainer/modes/checks.h"

TEST(Checks, CpuReport) {
  yolo::BackendInfo b;
  b.torch_version = "1.13.1";
  b.onednn_version = "2.6.3";
  yolo::BlasInfo blas{"OpenBLAS (pthread)",
                      "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3", false};
  auto r = yolo::format_checks(b, blas, 2, "4.6.0", "1.22.0");
  EXPECT_NE(r.text.find("1.13.1 (CPU build)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("oneDNN        2.6.3"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("GPUs          0"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("OpenBLAS"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("4.6.0"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("1.22.0"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("2 intra-op"), std::string::npos) << r.text;
  EXPECT_NE(r.verdict.find("CPU"), std::string::npos);
  EXPECT_EQ(r.verdict.find("reference BLAS"), std::string::npos);
  EXPECT_NE(r.text.find("CPU BF16      none"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("Inference     CPU: FP32, channels-last"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("Training      CPU: FP32, channels-last (no native BF16)"),
            std::string::npos)
      << r.text;
}

// What the runtime and training will use: BF16 where the CPU computes it natively (the runtime's
// fused graph in BF16, training under autocast).
TEST(Checks, SaysWhichPrecisionTheRuntimeUses) {
  yolo::BackendInfo b;
  b.torch_version = "2.11.0";
  b.gpus.push_back({0, "AMD Radeon RX 7900 XTX", 24ull << 30});
  b.onednn_fused_conv = true;
  yolo::CpuFeatures cpu;
  cpu.avx512_bf16 = true;
  const auto r = yolo::format_checks(b, {"MKL", "", false}, 2, "4.6.0", "1.22.0", cpu);
  EXPECT_NE(r.text.find("CPU BF16      AVX-512 BF16"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("CPU: BF16, channels-last, conv+SiLU fused, weights prepacked (oneDNN) "
                        "(bf16=False for FP32); GPU: FP32, channels-last (half=True for FP16)"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("Training      CPU: BF16 autocast, channels-last (amp=False for FP32); "
                        "GPU: FP16 autocast after the AMP check (amp=False)"),
            std::string::npos)
      << r.text;
}

TEST(Checks, RocmReportListsGpusAndWarnsOnReferenceBlas) {
  yolo::BackendInfo b;
  b.flavour = yolo::BackendInfo::Flavour::kRocm;
  b.flavour_version = "6.1";
  b.torch_version = "2.4.0";
  b.gpus.push_back({0, "AMD Instinct MI210", 64ull << 30});
  yolo::BlasInfo blas{"reference BLAS", "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3", true};
  auto r = yolo::format_checks(b, blas, 16, "4.6.0", "1.22.0");
  EXPECT_NE(r.text.find("2.4.0 (ROCm/HIP 6.1 build)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("cuda:0"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("AMD Instinct MI210, 64.0 GiB"), std::string::npos) << r.text;
  EXPECT_NE(r.verdict.find("Ready: 1 GPU through ROCm/HIP 6.1"), std::string::npos) << r.verdict;
  EXPECT_NE(r.verdict.find("libopenblas0-pthread"), std::string::npos) << r.verdict;
}

TEST(Checks, ThreadSettingTakesEffect) {
  EXPECT_EQ(yolo::apply_thread_setting(1), 1);
  EXPECT_EQ(yolo::torch_threads(), 1);
  EXPECT_GE(yolo::apply_thread_setting(0), 1);
}

TEST(Checks, BlasIsTheOneLibTorchCalls) {
  // PyTorch's builds carry MKL inside LibTorch; Debian's calls libblas.so.3 (OpenBLAS here).
  const yolo::BackendInfo backend = yolo::query_backend();
  const yolo::BlasInfo blas = yolo::query_blas();
  if (backend.blas_info == "mkl") {
    EXPECT_EQ(blas.name, "MKL (inside LibTorch)");
  } else {
    EXPECT_NE(blas.name, "unknown");
    EXPECT_FALSE(blas.path.empty());
  }
}

TEST(Checks, ThisLibTorchNamesItsVersionFlavourAndOneDnn) {
  const yolo::BackendInfo backend = yolo::query_backend();
  const auto r = yolo::format_checks(backend, yolo::query_blas(), 2, "4.6.0", "1.22.0");
  EXPECT_TRUE(backend.cpu_part_of.empty()) << "the test build links every part of LibTorch";
  EXPECT_NE(r.text.find(backend.torch_version + " (" + backend.flavour_name() + " build)"),
            std::string::npos)
      << r.text;
  EXPECT_FALSE(backend.onednn_version.empty()) << "x86 LibTorch builds all carry oneDNN";
  EXPECT_NE(r.text.find(backend.onednn_version), std::string::npos) << r.text;
}

TEST(Checks, GpuBuildWithoutGpuIsReadyForCpuAndPointsAtTheDriver) {
  // The default build (PyTorch's CUDA wheel) on a CPU-only machine, or a GPU box whose driver or
  // permissions hide the GPU.
  yolo::BackendInfo b;
  b.flavour = yolo::BackendInfo::Flavour::kCuda;
  b.flavour_version = "13.0";
  b.torch_version = "2.11.0";
  b.onednn_version = "3.10.2";
  yolo::BlasInfo blas{"MKL (inside LibTorch)", "", false};
  auto r = yolo::format_checks(b, blas, 2, "4.6.0", "1.22.0");
  EXPECT_NE(r.text.find("2.11.0 (CUDA 13.0 build)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("MKL (inside LibTorch)"), std::string::npos) << r.text;
  EXPECT_EQ(r.verdict.rfind("Ready for CPU", 0), 0u) << r.verdict;
  EXPECT_NE(r.verdict.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << r.verdict;
}

// The `cpu` package: a CUDA wheel's CPU part alone. It is a CPU build to everything that decides
// (no GPU hint about drivers), and the report says which build it came from.
TEST(Checks, CpuPartOfAGpuBuildSaysSoAndPointsAtTheGpuPackage) {
  yolo::BackendInfo b;
  b.cpu_part_of = "CUDA 13.0";
  b.torch_version = "2.11.0";
  b.onednn_version = "3.10.2";
  yolo::BlasInfo blas{"MKL (inside LibTorch)", "", false};
  auto r = yolo::format_checks(b, blas, 2, "4.6.0", "1.22.0");
  EXPECT_NE(r.text.find("2.11.0 (CPU part only of a CUDA 13.0 build: no GPU library linked)"),
            std::string::npos)
      << r.text;
  EXPECT_EQ(r.verdict.rfind("Ready for CPU", 0), 0u) << r.verdict;
  EXPECT_NE(r.verdict.find("`cpu` package"), std::string::npos) << r.verdict;
  EXPECT_EQ(r.verdict.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << r.verdict;
}
