// Facts about the host that affect speed: which BLAS LibTorch calls, and its thread count.
#pragma once

#include <string>

namespace yolo {

struct BlasInfo {
  std::string name;  // "MKL (inside LibTorch)", "OpenBLAS (pthread)", "reference BLAS", "BLIS", ...
  std::string path;  // resolved path of the library providing sgemm_, if found
  bool is_reference = false;  // Netlib reference BLAS: ~2x slower inference on Debian's LibTorch
};

// The BLAS LibTorch calls: MKL inside LibTorch for PyTorch's own builds (BLAS_INFO=mkl);
// otherwise the library that provides sgemm_ in this process (Debian's LibTorch calls BLAS
// through libblas.so.3, which the alternatives system points at reference BLAS or OpenBLAS).
BlasInfo query_blas();

// Sets LibTorch's intra-op thread count: `threads` > 0 as given, otherwise all cores.
// Debian's LibTorch starts with 1 thread, which halves CPU speed on a 2-core machine.
// Returns the count now in effect.
int apply_thread_setting(int threads);

// LibTorch's intra-op thread count now in effect.
int torch_threads();

}  // namespace yolo
