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
#   yolo_torch_target(yolo_serving WITHOUT_TORCH src/http_api.cpp src/mqtt_topic.cpp)
# WITHOUT_TORCH lists the target's sources that include no LibTorch header, directly or through
# other headers: they compile without the PCH, because loading it (a 700 MB image of
# torch/torch.h) costs 3.7 s per translation unit, more than most such files take to compile.
# A file listed wrongly still builds, only slower; tools/pch_audit.py checks the lists against
# what each file really includes.
# With YOLO_UNITY_BUILD, the sources that do include LibTorch compile in batches of
# YOLO_UNITY_BATCH (one translation unit each), so the PCH is loaded and torch's inline templates
# are instantiated once per batch instead of once per file; the WITHOUT_TORCH sources stay apart.
# Tests keep one unit per file (NO_UNITY): a failure should point at its own file.
function(yolo_torch_target target)
  cmake_parse_arguments(T "NO_UNITY" "" "WITHOUT_TORCH" ${ARGN})
  yolo_set_warnings(${target})
  if(YOLO_USE_PCH)
    target_precompile_headers(${target} REUSE_FROM yolo_torch_pch)
    if(T_WITHOUT_TORCH)
      set_source_files_properties(${T_WITHOUT_TORCH} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endif()
  if(YOLO_UNITY_BUILD AND NOT T_NO_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                                               UNITY_BUILD_BATCH_SIZE ${YOLO_UNITY_BATCH})
    if(T_WITHOUT_TORCH)
      set_source_files_properties(${T_WITHOUT_TORCH} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endif()
endfunction()

# Where tools/fetch-test-assets.sh (run by tools/install-deps.sh --oracle) puts the tests' real
# weights and photos: the parity tests on real inputs are given it as YOLO_TEST_ASSETS.
if(DEFINED ENV{YOLO_TEST_ASSETS})
  set(_yolo_default_assets "$ENV{YOLO_TEST_ASSETS}")
else()
  set(_yolo_default_assets "/opt/yolo-edge/test-assets")
endif()
set(YOLO_TEST_ASSETS "${_yolo_default_assets}" CACHE PATH
    "Folder of the tests' real weights and photos (tools/fetch-test-assets.sh)")

# Registers a GoogleTest executable with ctest under one label: unit, integration, slow, gpu,
# parity or faults (the seventh label, fuzz, is set together with faults on the libFuzzer targets
# by tests/fuzz/tests.cmake).
#   yolo_add_test(NAME test_device LABEL unit SOURCES a.cpp b.cpp LIBS yolo_core [TIMEOUT s])
# NO_TORCH: a test of a library without LibTorch (yolo_media): no LibTorch precompiled header.
function(yolo_add_test)
  cmake_parse_arguments(T "NO_TORCH" "NAME;LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  target_compile_definitions(${T_NAME} PRIVATE
    YOLO_SOURCE_DIR="${PROJECT_SOURCE_DIR}" YOLO_BINARY_DIR="${PROJECT_BINARY_DIR}"
    YOLO_TEST_PYTHON="${YOLO_TEST_PYTHON}")
  if(T_NO_TORCH)
    yolo_set_warnings(${T_NAME})
  else()
    yolo_torch_target(${T_NAME} NO_UNITY)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  math(EXPR T_TIMEOUT "${T_TIMEOUT} * ${YOLO_TEST_TIMEOUT_SCALE}")
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} --gtest_color=no)
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABEL}" TIMEOUT ${T_TIMEOUT}
                                            WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
endfunction()

# The layer rule of shared/DESIGN.md for one target: none of the libraries it links, directly or
# through other targets, may match a FORBID pattern (regular expressions, case-insensitive, on
# each link item: a target name, a library path or -l flag). Checked at the end of configuring,
# once every target_link_libraries() call has been seen; a violation stops the configure with the
# chain of targets that brought the library in.
#   yolo_check_layer(yolo_runtime_core FORBID opencv httplib "(^|/|::)(lib)?gst")
function(yolo_check_layer target)
  cmake_parse_arguments(L "" "" "FORBID" ${ARGN})
  set_property(TARGET ${target} PROPERTY YOLO_LAYER_FORBID "${L_FORBID}")
  get_property(pending GLOBAL PROPERTY YOLO_LAYER_CHECKED_TARGETS)
  if(NOT pending)
    # One deferred pass for all of them (a deferred call's arguments are only evaluated when it
    # runs, so the targets travel in a global property instead).
    cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _yolo_check_layers)
  endif()
  set_property(GLOBAL APPEND PROPERTY YOLO_LAYER_CHECKED_TARGETS ${target})
endfunction()

function(_yolo_check_layers)
  get_property(targets GLOBAL PROPERTY YOLO_LAYER_CHECKED_TARGETS)
  foreach(target ${targets})
    _yolo_check_layer_now(${target})
  endforeach()
endfunction()

function(_yolo_check_layer_now target)
  get_target_property(forbid ${target} YOLO_LAYER_FORBID)
  set(queue "${target}")
  set(seen "")
  set(via_${target} "${target}")
  while(queue)
    list(POP_FRONT queue item)
    if(item IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${item}")
    string(TOLOWER "${item}" lowered)
    foreach(pattern ${forbid})
      string(TOLOWER "${pattern}" pattern)
      if(lowered MATCHES "${pattern}")
        message(FATAL_ERROR "yolo layer check: ${target} must not link '${item}' "
                            "(matches '${pattern}'), brought in by ${via_${item}}. See the layer "
                            "map in docs/architecture.md.")
      endif()
    endforeach()
    if(NOT TARGET "${item}")
      continue()
    endif()
    get_target_property(imported "${item}" IMPORTED)
    get_target_property(type "${item}" TYPE)
    set(deps "")
    if(NOT imported AND NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(direct "${item}" LINK_LIBRARIES)
      if(direct)
        list(APPEND deps ${direct})
      endif()
    endif()
    get_target_property(iface "${item}" INTERFACE_LINK_LIBRARIES)
    if(iface)
      list(APPEND deps ${iface})
    endif()
    foreach(dep ${deps})
      # $<LINK_ONLY:x> and similar wrappers: check what they wrap.
      string(REGEX REPLACE "^\\$<[A-Z_]+:(.*)>$" "\\1" dep "${dep}")
      if(NOT DEFINED via_${dep})
        set(via_${dep} "${via_${item}} -> ${dep}")
      endif()
      list(APPEND queue "${dep}")
    endforeach()
  endwhile()
endfunction()
