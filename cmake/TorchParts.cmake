# Which of LibTorch's libraries the programs link, and whether that LibTorch has a GPU side.
#
#   YOLO_LIBTORCH_PARTS=all   (default) everything the LibTorch offers: CPU and, in a CUDA or ROCm
#                             build, its GPU libraries (libtorch_cuda / libtorch_hip and theirs).
#   YOLO_LIBTORCH_PARTS=cpu   libtorch_cpu and libc10 only: programs for a box without a GPU,
#                             which then never load (nor need installed) the 0.5 GB GPU library
#                             and the 2.5 GB of CUDA libraries it pulls in. tools/package.sh
#                             builds the `cpu` package this way from PyPI's CUDA wheel.
#
# Only the link changes: LibTorch's compile-time usage (include folders, definitions) stays as
# found, so a `cpu` build compiles the same translation units as a full one (ccache hits) and the
# device-neutral sources need no #ifdef. What the GPU side alone provides (CUDA/HIP graphs, NCCL)
# is switched off through YOLO_TORCH_HAS_GPU.
#
# Sets YOLO_TORCH_HAS_GPU (ON when the programs link a GPU side) and YOLO_TORCH_FLAVOUR (cpu,
# cuda or rocm: what a package built from this tree is called).
set(YOLO_LIBTORCH_PARTS all CACHE STRING "LibTorch libraries the programs link: all or cpu")
set_property(CACHE YOLO_LIBTORCH_PARTS PROPERTY STRINGS all cpu)

function(yolo_select_torch_parts)
  if(NOT YOLO_LIBTORCH_PARTS MATCHES "^(all|cpu)$")
    message(FATAL_ERROR "yolo: YOLO_LIBTORCH_PARTS=${YOLO_LIBTORCH_PARTS}: use all or cpu")
  endif()
  set(gpu_side "")
  if(TARGET torch_hip OR C10_HIP_LIBRARY)
    set(gpu_side rocm)
  elseif(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES OR C10_CUDA_LIBRARY)
    set(gpu_side cuda)
  endif()

  if(YOLO_LIBTORCH_PARTS STREQUAL "cpu" AND gpu_side)
    if(NOT TARGET torch_cpu OR NOT TARGET torch_cpu_library)
      message(FATAL_ERROR
        "yolo: YOLO_LIBTORCH_PARTS=cpu needs LibTorch's CMake targets torch_cpu and "
        "torch_cpu_library (LibTorch 2.x); this LibTorch (${Torch_DIR}) lacks them")
    endif()
    # `torch` is libtorch.so, a stub whose only job is to pull in every part (it names
    # libtorch_cuda.so as needed): point it at libtorch_cpu.so instead, and let the GPU part's
    # interface keep its compile-time usage but link nothing.
    get_target_property(cpu_location torch_cpu IMPORTED_LOCATION_RELEASE)
    if(NOT cpu_location)
      get_target_property(cpu_location torch_cpu IMPORTED_LOCATION)
    endif()
    set_target_properties(torch PROPERTIES IMPORTED_LOCATION "${cpu_location}"
                                           IMPORTED_LOCATION_RELEASE "${cpu_location}")
    foreach(gpu_target torch_cuda_library torch_hip_library)
      if(TARGET ${gpu_target})
        set_property(TARGET ${gpu_target} PROPERTY INTERFACE_LINK_LIBRARIES "")
      endif()
    endforeach()
    set(gpu_side "")
    message(STATUS "yolo: linking LibTorch's CPU part only (YOLO_LIBTORCH_PARTS=cpu)")
  endif()

  if(gpu_side)
    set(YOLO_TORCH_HAS_GPU ON PARENT_SCOPE)
    set(YOLO_TORCH_FLAVOUR ${gpu_side} PARENT_SCOPE)
  else()
    set(YOLO_TORCH_HAS_GPU OFF PARENT_SCOPE)
    set(YOLO_TORCH_FLAVOUR cpu PARENT_SCOPE)
  endif()
endfunction()
