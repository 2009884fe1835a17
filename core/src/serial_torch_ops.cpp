#include "yolo/core/serial_torch_ops.h"

#include <dlfcn.h>

#include <string>

#include <ATen/Parallel.h>

namespace yolo {
namespace {

// The OpenMP runtime LibTorch loaded, looked up rather than linked: linking our own (-fopenmp)
// could put a second OpenMP runtime beside LibTorch's bundled one.
struct OpenMp {
  void (*set_num_threads)(int) = nullptr;
};

const OpenMp& openmp() {
  static const OpenMp found = [] {
    OpenMp o;
    if (at::get_parallel_info().find("parallel backend: OpenMP") == std::string::npos) return o;
    o.set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    return o;
  }();
  return found;
}

}  // namespace

SerialTorchOps::SerialTorchOps() {
  const OpenMp& omp = openmp();
  if (omp.set_num_threads == nullptr) return;
  // LibTorch reads this thread's OpenMP thread count at each parallel op, after setting it once
  // per thread from at::set_num_threads: that first setting must happen before ours.
  restore_ = at::get_num_threads();
  omp.set_num_threads(1);
}

SerialTorchOps::~SerialTorchOps() {
  if (restore_ > 0) openmp().set_num_threads(restore_);
}

}  // namespace yolo
