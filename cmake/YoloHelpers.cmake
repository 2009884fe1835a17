# Helpers shared by every folder's CMakeLists.txt.

# Warning set for the project's own targets (dependencies' headers are included as system headers).
function(yolo_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wcast-align -Woverloaded-virtual)
  if(YOLO_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# One precompiled LibTorch header, built once and reused by every target that includes torch.
# REUSE_FROM requires identical flags, which holds because all targets share the global settings.
function(yolo_setup_torch_pch)
  if(NOT YOLO_USE_PCH)
    return()
  endif()
  file(WRITE ${PROJECT_BINARY_DIR}/yolo_pch_anchor.cpp "// anchor for the shared LibTorch PCH\n")
  add_library(yolo_torch_pch OBJECT ${PROJECT_BINARY_DIR}/yolo_pch_anchor.cpp)
  target_link_libraries(yolo_torch_pch PRIVATE torch)
  target_precompile_headers(yolo_torch_pch PRIVATE <torch/torch.h>)
  yolo_set_warnings(yolo_torch_pch)
endfunction()

# A project target that includes LibTorch headers: warnings, and the shared PCH when enabled.
function(yolo_torch_target target)
  yolo_set_warnings(${target})
  if(YOLO_USE_PCH)
    target_precompile_headers(${target} REUSE_FROM yolo_torch_pch)
  endif()
endfunction()

# Registers a GoogleTest executable with ctest under a label: unit, integration, slow or gpu.
#   yolo_add_test(NAME test_device LABEL unit SOURCES a.cpp b.cpp LIBS yolo_core [TIMEOUT s])
function(yolo_add_test)
  cmake_parse_arguments(T "" "NAME;LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  target_compile_definitions(${T_NAME} PRIVATE
    YOLO_SOURCE_DIR="${PROJECT_SOURCE_DIR}" YOLO_BINARY_DIR="${PROJECT_BINARY_DIR}")
  yolo_torch_target(${T_NAME})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} --gtest_color=no)
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABEL}" TIMEOUT ${T_TIMEOUT}
                                            WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
endfunction()
