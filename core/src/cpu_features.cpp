#include "yolo/core/cpu_features.h"

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

}  // namespace

std::string CpuFeatures::describe() const {
  std::string out;
  if (avx512_bf16) out += "AVX-512 BF16";
  if (amx_bf16) out += std::string(out.empty() ? "" : ", ") + "AMX-BF16";
  return out.empty() ? "none" : out;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace yolo
