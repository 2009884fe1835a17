# Finds LibTorch, preferring what the user named, then the torch wheel of the project's virtualenv.
#
# Order:
#   1. -DTorch_DIR=... or a LibTorch under -DCMAKE_PREFIX_PATH=... (ROCm/CUDA/CPU zip, Debian's):
#      found by find_package's own search, untouched.
#   2. The torch wheel in YOLO_VENV (cache variable; default $ENV{YOLO_VENV}, else
#      /opt/yolo-edge/venv), asked for torch.utils.cmake_prefix_path.
#   3. Whatever the system has (Debian's libtorch-dev installs a TorchConfig.cmake).
# Sets YOLO_TEST_PYTHON to the venv's interpreter (tests use it as an outside client: Python
# torch and numpy reading what we write), or to the system python3 when there is no venv.
# A macro, not a function: TorchConfig sets many variables the caller's scope needs.
macro(yolo_find_torch)
  if(DEFINED ENV{YOLO_VENV})
    set(_yolo_default_venv "$ENV{YOLO_VENV}")
  else()
    set(_yolo_default_venv "/opt/yolo-edge/venv")
  endif()
  set(YOLO_VENV "${_yolo_default_venv}" CACHE PATH
      "Virtualenv with the torch wheel whose LibTorch the build uses unless Torch_DIR/CMAKE_PREFIX_PATH name one")

  set(_yolo_venv_python "${YOLO_VENV}/bin/python")
  if(EXISTS "${_yolo_venv_python}")
    set(YOLO_TEST_PYTHON "${_yolo_venv_python}" CACHE FILEPATH "Python used by tests as an outside client")
  else()
    find_program(_yolo_system_python python3 PATHS /usr/bin NO_DEFAULT_PATH)
    set(YOLO_TEST_PYTHON "${_yolo_system_python}" CACHE FILEPATH "Python used by tests as an outside client")
  endif()

  # 1. An explicit LibTorch: search what the user gave, not the system's (Debian's 1.13 would
  #    otherwise shadow the venv whenever CMAKE_PREFIX_PATH names something else).
  if(Torch_DIR OR CMAKE_PREFIX_PATH)
    find_package(Torch QUIET NO_CMAKE_SYSTEM_PATH NO_SYSTEM_ENVIRONMENT_PATH)
  endif()
  # 2. The venv's wheel.
  if(NOT Torch_FOUND AND EXISTS "${_yolo_venv_python}")
    execute_process(
      COMMAND "${_yolo_venv_python}" -c
              "import torch, torch.utils; print(torch.utils.cmake_prefix_path + ';' + str(torch.version.cuda or ''), end='')"
      OUTPUT_VARIABLE _yolo_wheel_info RESULT_VARIABLE _yolo_rc ERROR_VARIABLE _yolo_err)
    set(_yolo_wheel_prefix "")
    set(_yolo_wheel_cuda "")
    if(_yolo_rc EQUAL 0 AND _yolo_wheel_info)
      list(GET _yolo_wheel_info 0 _yolo_wheel_prefix)  # "<cmake prefix>;<CUDA version or empty>"
      list(LENGTH _yolo_wheel_info _yolo_n)
      if(_yolo_n GREATER 1)
        list(GET _yolo_wheel_info 1 _yolo_wheel_cuda)
      endif()
    endif()
    if(_yolo_rc EQUAL 0 AND EXISTS "${_yolo_wheel_prefix}")
      if(_yolo_wheel_cuda)
        # A CUDA wheel (PyPI's default): its config needs the CUDA toolkit, found through nvcc,
        # to configure, though nothing here compiles CUDA code and the binaries run on CPU-only
        # machines. It also enables the CUDA language: with no GPU to probe, name the compiler
        # and an architecture (the value only satisfies CMake's check).
        find_program(_yolo_nvcc nvcc PATHS /usr/local/cuda/bin)
        if(NOT _yolo_nvcc AND NOT CMAKE_CUDA_COMPILER)
          message(FATAL_ERROR
            "yolo: the torch wheel in ${YOLO_VENV} is a CUDA ${_yolo_wheel_cuda} build, and its "
            "CMake config needs the CUDA toolkit (nvcc) to configure, but no nvcc was found on PATH "
            "or in /usr/local/cuda/bin. Install the CUDA toolkit (nothing here compiles CUDA code; "
            "the programs still run on CPU-only machines), or build against another LibTorch: "
            "-DCMAKE_PREFIX_PATH=/path/to/libtorch (a CPU or ROCm zip), or Debian's 1.13 "
            "(tools/install-deps.sh --debian-libtorch, then -DCMAKE_PREFIX_PATH=/usr).")
        endif()
        if(NOT CMAKE_CUDA_COMPILER)
          set(CMAKE_CUDA_COMPILER "${_yolo_nvcc}" CACHE FILEPATH "nvcc for the CUDA wheel's config")
        endif()
        if(NOT CUDA_TOOLKIT_ROOT_DIR)
          get_filename_component(_yolo_cuda_bin "${CMAKE_CUDA_COMPILER}" DIRECTORY)
          get_filename_component(CUDA_TOOLKIT_ROOT_DIR "${_yolo_cuda_bin}" DIRECTORY CACHE)
        endif()
        if(NOT CMAKE_CUDA_ARCHITECTURES)
          set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "Unused: the project compiles no CUDA code")
        endif()
      endif()
      # The wheel's TorchConfig looks up Caffe2 and its libraries with the system paths first, so
      # a system LibTorch (Debian's libtorch-dev) would be mixed in: search without them.
      set(CMAKE_FIND_USE_CMAKE_SYSTEM_PATH OFF)
      set(CMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH OFF)
      find_package(Torch REQUIRED PATHS "${_yolo_wheel_prefix}" NO_DEFAULT_PATH)
      unset(CMAKE_FIND_USE_CMAKE_SYSTEM_PATH)
      unset(CMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH)
    else()
      message(WARNING "yolo: ${_yolo_venv_python} has no usable torch (${_yolo_err}); "
                      "run tools/install-deps.sh, or give -DCMAKE_PREFIX_PATH=/path/to/libtorch")
    endif()
  endif()
  # 3. The system's.
  if(NOT Torch_FOUND)
    find_package(Torch)
  endif()
  if(NOT Torch_FOUND)
    message(FATAL_ERROR
      "yolo: no LibTorch found. Run tools/install-deps.sh (installs the torch wheel into "
      "${YOLO_VENV}), or pass -DCMAKE_PREFIX_PATH=/path/to/libtorch (ROCm, CUDA or CPU LibTorch 2.x).")
  endif()
  # A wheel's GPU libraries find their CUDA, cuDNN and NCCL libraries in the nvidia-* wheels
  # beside it (their RPATH), but the linker looks in the build's -rpath folders first, where the
  # CUDA toolkit may hold older copies (torch 2.15 needs NCCL 2.30; the toolkit had 2.28). Point
  # the link-time search at the wheels' own (Torch_DIR is <site-packages>/torch/share/cmake/Torch).
  file(GLOB _yolo_nvidia_libs LIST_DIRECTORIES true "${Torch_DIR}/../../../../nvidia/*/lib")
  foreach(_yolo_dir ${_yolo_nvidia_libs})
    get_filename_component(_yolo_dir "${_yolo_dir}" REALPATH)
    add_link_options("LINKER:-rpath-link,${_yolo_dir}")
  endforeach()
  if(Torch_VERSION VERSION_LESS 2.0)
    message(WARNING "yolo: LibTorch ${Torch_VERSION} is older than 2.0; only 2.x is tested in CI "
                    "(Debian's 1.13 is kept building for benchmarks only).")
  endif()
endmacro()

# LibTorch 2.x ships its own fmt headers (torch/include/fmt, a newer major version) in its
# include path, which then shadow the fmt that spdlog and our code were built against: spdlog
# fails to compile and fmt::join goes missing. A folder holding only a link to the found fmt's
# headers, put first on every target's include path as an ordinary -I (searched before the
# -isystem paths LibTorch's imported target adds), makes <fmt/...> mean the same library
# everywhere. LibTorch itself uses fmt only inside its .so files (own inline namespace).
function(yolo_prefer_system_fmt)
  get_target_property(fmt_includes fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
  set(torch_fmt "")
  foreach(dir ${TORCH_INCLUDE_DIRS})
    if(EXISTS "${dir}/fmt/format.h")
      set(torch_fmt "${dir}/fmt")
    endif()
  endforeach()
  if(NOT torch_fmt)
    return()
  endif()
  foreach(dir ${fmt_includes})
    if(EXISTS "${dir}/fmt/format.h" AND "${dir}/fmt" STREQUAL torch_fmt)
      return()  # one fmt for both (Debian's LibTorch uses the system's)
    endif()
    if(EXISTS "${dir}/fmt/format.h")
      set(shim "${PROJECT_BINARY_DIR}/fmt-shim")
      file(MAKE_DIRECTORY "${shim}")
      file(CREATE_LINK "${dir}/fmt" "${shim}/fmt" SYMBOLIC)
      include_directories(BEFORE "${shim}")
      message(STATUS "yolo: <fmt/...> is ${dir}/fmt (${fmt_VERSION}), not LibTorch's ${torch_fmt}")
      return()
    endif()
  endforeach()
  message(WARNING "yolo: LibTorch bundles fmt headers (${torch_fmt}) and the system fmt's were not found")
endfunction()
