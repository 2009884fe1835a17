// GPU names and memory from the vendor runtime, loaded at run time with dlopen.
// LibTorch's C++ API reports the GPU count for CUDA and ROCm alike but has no portable call for
// names and memory (at::cuda::getDeviceProperties exists only in CUDA-enabled headers). Loading
// the driver library dynamically keeps this source identical across CPU, CUDA and ROCm builds.
#pragma once

#include "yolo/core/device.h"

namespace yolo::detail {

// Fills gpu.name and gpu.total_memory for device `index`; leaves them as they are when the
// runtime library cannot be loaded. Never throws.
void probe_gpu(bool rocm, int index, GpuInfo& gpu);

}  // namespace yolo::detail
