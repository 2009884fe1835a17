# The Debian package (label package): tools/package.sh builds it, tools/package-check.sh installs
# it on a fresh Debian 12 root and runs the programs there. Needs root and Debian's mirror.
yolo_add_test(NAME test_package LABEL package TIMEOUT 2400 NO_TORCH
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/package/test_package.cpp LIBS yolo_core_base)
target_compile_definitions(test_package PRIVATE YOLO_TEST_ASSETS="${YOLO_TEST_ASSETS}")

# `cmake --install --prefix DIR` (the developer's path): everything lands inside DIR, and the
# installed programs run from there with a clean environment.
yolo_add_test(NAME test_install LABEL integration TIMEOUT 300 NO_TORCH
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/package/test_install.cpp LIBS yolo_core_base)
add_dependencies(test_install yolo-trainer yolo-monitor gstyolo)

# The GPU proof's bundle rehearsed on the CPU in a fresh root like the GPU machine (issue #67).
# Needs root, Debian's mirror and the Ultralytics oracle (the bundle carries its wheel).
yolo_add_test(NAME test_gpu_rehearsal LABEL package TIMEOUT 1800 NO_TORCH
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/package/test_gpu_rehearsal.cpp LIBS yolo_core_base)
add_dependencies(test_gpu_rehearsal yolo-trainer test_gpu_models test_gpu_runtime test_gpu_train
  gstyolo)
if(TARGET bench_inference)
  add_dependencies(test_gpu_rehearsal bench_inference)
endif()
