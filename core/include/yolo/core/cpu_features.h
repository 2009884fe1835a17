// What the CPU this process runs on can do beyond its baseline instruction set, for choices the
// runtime makes per machine (BF16 inference where the CPU computes BF16 natively). Read once
// with CPUID; false on non-x86 CPUs.
#pragma once

#include <string>

namespace yolo {

struct CpuFeatures {
  bool avx512_bf16 = false;  // AVX512_BF16: BF16 dot products (AMD Zen 4+, Intel Cooper Lake+)
  bool amx_bf16 = false;     // AMX-BF16 tiles (Intel Sapphire Rapids+)

  // BF16 matrix products run natively (oneDNN then computes convolutions in BF16 faster than in
  // FP32); elsewhere BF16 is emulated and slower than FP32.
  bool native_bf16() const { return avx512_bf16 || amx_bf16; }
  // "AVX-512 BF16, AMX-BF16", or "none".
  std::string describe() const;
};

// This machine's CPU, detected on the first call.
const CpuFeatures& cpu_features();

}  // namespace yolo
