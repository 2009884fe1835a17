#include "yolo/core/cpu_features.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace yolo {
namespace {

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  // Leaf 7, sub-leaf 0: EDX bit 22 is AMX-BF16. Sub-leaf 1: EAX bit 5 is AVX512_BF16.
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  const unsigned max_subleaf = eax;
  f.amx_bf16 = (edx >> 22) & 1u;
  if (max_subleaf >= 1) {
    __cpuid_count(7, 1, eax, ebx, ecx, edx);
    f.avx512_bf16 = (eax >> 5) & 1u;
  }
  // The OS must save the AVX-512 (and AMX tile) state: XCR0 bits 5-7 (and 17-18).
  __cpuid(1, eax, ebx, ecx, edx);
  const bool osxsave = (ecx >> 27) & 1u;
  unsigned long long xcr0 = 0;
  if (osxsave) {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = (static_cast<unsigned long long>(hi) << 32) | lo;
  }
  if ((xcr0 & 0xE6u) != 0xE6u) f.avx512_bf16 = false;
  if ((xcr0 & 0x60000u) != 0x60000u) f.amx_bf16 = false;
#endif
  return f;
}

// What a oneDNN ISA cap leaves: BF16 dot products from AVX512_CORE_BF16 up, AMX from the AMX
// levels up (oneDNN's cpu_isa_t order; ALL and DEFAULT cap nothing).
struct IsaLevel {
  std::string_view name;
  bool avx512_bf16, amx;
};
constexpr std::array<IsaLevel, 16> kIsaLevels{{
    {"SSE41", false, false},
    {"AVX", false, false},
    {"AVX2", false, false},
    {"AVX2_VNNI", false, false},
    {"AVX2_VNNI_2", false, false},
    {"AVX512_CORE", false, false},
    {"AVX512_CORE_VNNI", false, false},
    {"AVX512_CORE_BF16", true, false},
    {"AVX512_CORE_FP16", true, false},
    {"AVX10_1_512", true, false},
    {"AVX512_CORE_AMX", true, true},
    {"AVX10_1_512_AMX", true, true},
    {"AVX512_CORE_AMX_FP16", true, true},
    {"AVX10_1_512_AMX_FP16", true, true},
    {"ALL", true, true},
    {"DEFAULT", true, true},
}};

}  // namespace

CpuFeatures apply_onednn_isa_cap(CpuFeatures hardware, std::string_view variable,
                                 std::string_view value) {
  std::string upper(value);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  const auto level = std::find_if(kIsaLevels.begin(), kIsaLevels.end(),
                                  [&](const IsaLevel& l) { return l.name == upper; });
  if (level == kIsaLevels.end()) return hardware;
  const bool had = hardware.native_bf16();
  hardware.avx512_bf16 = hardware.avx512_bf16 && level->avx512_bf16;
  hardware.amx_bf16 = hardware.amx_bf16 && level->amx;
  if (had && !hardware.native_bf16()) {
    hardware.isa_cap = std::string(variable) + "=" + std::string(value);
  }
  return hardware;
}

std::string CpuFeatures::describe() const {
  std::string out;
  if (avx512_bf16) out += "AVX-512 BF16";
  if (amx_bf16) out += std::string(out.empty() ? "" : ", ") + "AMX-BF16";
  if (out.empty()) out = "none";
  if (!isa_cap.empty()) out += " (capped by " + isa_cap + ")";
  return out;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    // oneDNN reads the newer name first, as here.
    for (const char* variable : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"}) {
      if (const char* value = std::getenv(variable); value && *value) {
        return apply_onednn_isa_cap(detect(), variable, value);
      }
    }
    return detect();
  }();
  return features;
}

}  // namespace yolo
