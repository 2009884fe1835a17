#include "yolo/core/allocator_tuning.h"

// Any C library header defines __GLIBC__ on glibc; without one the test below is always false
// (it only worked while the LibTorch precompiled header happened to come first).
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace yolo {

bool keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  // 32 MB is glibc's largest mmap threshold on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX); setting it
  // also stops the threshold from adapting, so large blocks behave the same from the first step.
  constexpr int kMmapThreshold = 32 * 1024 * 1024;
  constexpr int kTrimThreshold = 1 << 30;
  return mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 &&
         mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1;
#else
  return false;
#endif
}

}  // namespace yolo
