#include "yolo/core/system_info.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <thread>

#include "yolo/core/device.h"

namespace yolo {

BlasInfo query_blas() {
  BlasInfo info;
  info.name = "unknown";
  // PyTorch's own builds (the PyPI wheel, the LibTorch zips) carry MKL inside libtorch_cpu.so;
  // an sgemm_ found in the process then belongs to another library (OpenCV's OpenBLAS).
  BackendInfo backend;
  parse_torch_build_config(at::show_config(), backend);
  if (backend.blas_info == "mkl") {
    info.name = "MKL (inside LibTorch)";
    return info;
  }
  void* sym = dlsym(RTLD_DEFAULT, "sgemm_");
  Dl_info where{};
  if (!sym || dladdr(sym, &where) == 0 || !where.dli_fname) {
    // LibTorch built against MKL links it statically: no sgemm_ from a shared library.
    info.name = "built into LibTorch (MKL or none)";
    return info;
  }
  char resolved[PATH_MAX];
  info.path = realpath(where.dli_fname, resolved) ? resolved : where.dli_fname;
  const std::string& p = info.path;
  if (p.find("openblas") != std::string::npos) {
    info.name = p.find("openmp") != std::string::npos    ? "OpenBLAS (OpenMP)"
                : p.find("pthread") != std::string::npos ? "OpenBLAS (pthread)"
                                                         : "OpenBLAS";
  } else if (p.find("blis") != std::string::npos) {
    info.name = "BLIS";
  } else if (p.find("atlas") != std::string::npos) {
    info.name = "ATLAS";
  } else if (p.find("mkl") != std::string::npos) {
    info.name = "MKL";
  } else if (p.find("/blas/") != std::string::npos || p.find("libblas") != std::string::npos) {
    info.name = "reference BLAS";
    info.is_reference = true;
  }
  return info;
}

int apply_thread_setting(int threads) {
  int n = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  if (n < 1) n = 1;
  at::set_num_threads(n);
  return at::get_num_threads();
}

int torch_threads() {
  return at::get_num_threads();
}

}  // namespace yolo
