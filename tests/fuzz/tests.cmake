# Fuzzing (label fuzz), included from tests/CMakeLists.txt: libFuzzer targets for every parser
# of outside bytes, built by clang as a project of their own (this folder's CMakeLists.txt), each
# run for a few seconds on its seed corpus. Without clang and its libFuzzer runtime
# (tools/install-deps.sh installs both) they are left out with a note.
option(YOLO_BUILD_FUZZERS "Build the libFuzzer targets of tests/fuzz with clang" ON)
set(YOLO_FUZZ_SECONDS 10 CACHE STRING "Seconds each fuzz target runs under ctest")
if(YOLO_BUILD_FUZZERS)
  find_program(YOLO_CLANGXX NAMES clang++ clang++-14)
  set(_fuzz_ok FALSE)
  if(YOLO_CLANGXX)
    execute_process(COMMAND ${YOLO_CLANGXX} -print-file-name=libclang_rt.fuzzer-x86_64.a
                    OUTPUT_VARIABLE _fuzz_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(EXISTS "${_fuzz_rt}")
      set(_fuzz_ok TRUE)
    endif()
  endif()
  if(_fuzz_ok)
    include(ExternalProject)
    ExternalProject_Add(yolo_fuzzers
      SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}
      BINARY_DIR ${CMAKE_BINARY_DIR}/fuzz
      CMAKE_ARGS -DCMAKE_CXX_COMPILER=${YOLO_CLANGXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo
                 -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE_PROGRAM}
      INSTALL_COMMAND ""
      BUILD_ALWAYS ON)  # the parsers' sources live outside the subproject's tree
    foreach(_fuzzer fuzz_label_lines fuzz_dataset_yaml fuzz_npy_header fuzz_model_metadata
                    fuzz_pickle_data
                    fuzz_monitor_config fuzz_http_request fuzz_tracking_inputs)
      add_test(NAME ${_fuzzer} COMMAND ${CMAKE_SOURCE_DIR}/tools/fuzz.sh ${YOLO_FUZZ_SECONDS}
               ${_fuzzer})
      set_tests_properties(${_fuzzer} PROPERTIES LABELS "fuzz;faults" TIMEOUT 300
        ENVIRONMENT "BUILD_DIR=${CMAKE_BINARY_DIR};FUZZ_SEED=1" WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    endforeach()
  else()
    message(STATUS "fuzz targets left out: no clang++ with libFuzzer (apt install clang "
                   "libclang-rt-dev)")
  endif()
endif()
