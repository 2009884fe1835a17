#include "gpu_probe.h"

#include <dlfcn.h>

#include <array>
#include <cstddef>
#include <memory>

namespace yolo::detail {
namespace {

struct DlCloser {
  void operator()(void* handle) const {
    if (handle) dlclose(handle);
  }
};
using Library = std::unique_ptr<void, DlCloser>;

Library open_first(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (void* h = dlopen(name, RTLD_LAZY | RTLD_LOCAL)) return Library(h);
  }
  return Library(nullptr);
}

template <typename Fn>
Fn symbol(const Library& lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib.get(), name));
}

// HIP runtime API: hipDeviceGetName(char*, int, hipDevice_t), hipDeviceTotalMem(size_t*,
// hipDevice_t).
void probe_hip(int index, GpuInfo& gpu) {
  Library lib = open_first({"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"});
  if (!lib) return;
  using GetName = int (*)(char*, int, int);
  using TotalMem = int (*)(std::size_t*, int);
  auto get_name = symbol<GetName>(lib, "hipDeviceGetName");
  auto total_mem = symbol<TotalMem>(lib, "hipDeviceTotalMem");
  std::array<char, 256> name{};
  if (get_name && get_name(name.data(), static_cast<int>(name.size()), index) == 0) {
    gpu.name = name.data();
  }
  std::size_t bytes = 0;
  if (total_mem && total_mem(&bytes, index) == 0) gpu.total_memory = bytes;
}

// CUDA driver API: cuInit, cuDeviceGet, cuDeviceGetName, cuDeviceTotalMem_v2.
void probe_cuda(int index, GpuInfo& gpu) {
  Library lib = open_first({"libcuda.so.1", "libcuda.so"});
  if (!lib) return;
  using Init = int (*)(unsigned);
  using DeviceGet = int (*)(int*, int);
  using GetName = int (*)(char*, int, int);
  using TotalMem = int (*)(std::size_t*, int);
  auto init = symbol<Init>(lib, "cuInit");
  auto device_get = symbol<DeviceGet>(lib, "cuDeviceGet");
  auto get_name = symbol<GetName>(lib, "cuDeviceGetName");
  auto total_mem = symbol<TotalMem>(lib, "cuDeviceTotalMem_v2");
  int device = 0;
  if (!init || !device_get || init(0) != 0 || device_get(&device, index) != 0) return;
  std::array<char, 256> name{};
  if (get_name && get_name(name.data(), static_cast<int>(name.size()), device) == 0) {
    gpu.name = name.data();
  }
  std::size_t bytes = 0;
  if (total_mem && total_mem(&bytes, device) == 0) gpu.total_memory = bytes;
}

}  // namespace

void probe_gpu(bool rocm, int index, GpuInfo& gpu) {
  if (rocm) {
    probe_hip(index, gpu);
  } else {
    probe_cuda(index, gpu);
  }
}

}  // namespace yolo::detail
