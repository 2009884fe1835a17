// oneDNN's instruction-set cap (ONEDNN_MAX_CPU_ISA) taken as the CPU's: a cap below BF16 makes a
// BF16 machine one without native BF16 for every choice the product makes (#58: the test suite
// passes the same with BF16 forced off).
#include <gtest/gtest.h>

#include "yolo/core/cpu_features.h"

namespace {

yolo::CpuFeatures zen4() {
  yolo::CpuFeatures f;
  f.avx512_bf16 = true;
  return f;
}

yolo::CpuFeatures sapphire_rapids() {
  yolo::CpuFeatures f;
  f.avx512_bf16 = true;
  f.amx_bf16 = true;
  return f;
}

}  // namespace

// Every level below AVX512_CORE_BF16 turns BF16 off, and the description says by what.
TEST(CpuFeatures, CapBelowBf16TurnsItOffAndSaysWhy) {
  for (const char* level : {"SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX2_VNNI_2", "AVX512_CORE",
                            "AVX512_CORE_VNNI", "avx512_core"}) {
    SCOPED_TRACE(level);
    const yolo::CpuFeatures f =
        yolo::apply_onednn_isa_cap(sapphire_rapids(), "ONEDNN_MAX_CPU_ISA", level);
    EXPECT_FALSE(f.native_bf16());
    EXPECT_EQ(f.describe(), std::string("none (capped by ONEDNN_MAX_CPU_ISA=") + level + ")");
  }
}

// A cap at or above what the CPU has changes nothing, and says nothing.
TEST(CpuFeatures, CapAtOrAboveTheCpuKeepsIt) {
  for (const char* level :
       {"AVX512_CORE_BF16", "AVX10_1_512", "AVX512_CORE_AMX", "ALL", "default"}) {
    SCOPED_TRACE(level);
    const yolo::CpuFeatures f = yolo::apply_onednn_isa_cap(zen4(), "DNNL_MAX_CPU_ISA", level);
    EXPECT_TRUE(f.native_bf16());
    EXPECT_EQ(f.describe(), "AVX-512 BF16");
  }
}

// A cap between AVX-512 BF16 and AMX keeps BF16 (AVX-512) and drops only the tiles.
TEST(CpuFeatures, CapBelowAmxKeepsAvx512Bf16) {
  const yolo::CpuFeatures f =
      yolo::apply_onednn_isa_cap(sapphire_rapids(), "ONEDNN_MAX_CPU_ISA", "AVX512_CORE_BF16");
  EXPECT_TRUE(f.avx512_bf16);
  EXPECT_FALSE(f.amx_bf16);
  EXPECT_TRUE(f.isa_cap.empty());
  EXPECT_EQ(f.describe(), "AVX-512 BF16");
}

// A name oneDNN does not know caps nothing (oneDNN ignores it too); a CPU without BF16 stays
// "none" with no cap to name.
TEST(CpuFeatures, UnknownCapAndCpuWithoutBf16) {
  EXPECT_TRUE(yolo::apply_onednn_isa_cap(zen4(), "ONEDNN_MAX_CPU_ISA", "AVX9000").native_bf16());
  const yolo::CpuFeatures none =
      yolo::apply_onednn_isa_cap(yolo::CpuFeatures{}, "ONEDNN_MAX_CPU_ISA", "AVX2");
  EXPECT_FALSE(none.native_bf16());
  EXPECT_EQ(none.describe(), "none");
}
