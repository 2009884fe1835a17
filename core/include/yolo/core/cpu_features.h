// What the CPU this process runs on can do beyond its baseline instruction set, for choices the
// runtime makes per machine (BF16 inference where the CPU computes BF16 natively). Read once
// with CPUID; false on non-x86 CPUs.
#pragma once

#include <string>
#include <string_view>

namespace yolo {

struct CpuFeatures {
  bool avx512_bf16 = false;  // AVX512_BF16: BF16 dot products (AMD Zen 4+, Intel Cooper Lake+)
  bool amx_bf16 = false;     // AMX-BF16 tiles (Intel Sapphire Rapids+)
  // oneDNN's instruction-set cap as set in the environment ("ONEDNN_MAX_CPU_ISA=AVX512_CORE")
  // when it keeps oneDNN from BF16 the CPU has; empty otherwise. oneDNN then emulates BF16
  // (slower than FP32), so the product takes the CPU as one without native BF16: the way to run
  // a BF16 machine with the FP32 defaults of one without (tests, comparisons).
  std::string isa_cap;

  // BF16 matrix products run natively (oneDNN then computes convolutions in BF16 faster than in
  // FP32); elsewhere BF16 is emulated and slower than FP32.
  bool native_bf16() const { return avx512_bf16 || amx_bf16; }
  // "AVX-512 BF16, AMX-BF16", "none", or "none (capped by ONEDNN_MAX_CPU_ISA=AVX512_CORE)".
  std::string describe() const;
};

// `hardware` less what oneDNN's cap `variable`=`value` (ONEDNN_MAX_CPU_ISA or its older name
// DNNL_MAX_CPU_ISA; oneDNN's ISA names, any case) rules out. A value oneDNN does not know caps
// nothing, as oneDNN ignores it too.
CpuFeatures apply_onednn_isa_cap(CpuFeatures hardware, std::string_view variable,
                                 std::string_view value);

// This machine's CPU, detected on the first call, with oneDNN's cap from the environment applied.
const CpuFeatures& cpu_features();

}  // namespace yolo
