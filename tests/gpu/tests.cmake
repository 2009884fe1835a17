# Tests labelled `gpu`: the GPU (CUDA or ROCm) against the CPU, on the LibTorch-only targets, so
# that tools/gpu-check.sh builds them on a machine without OpenCV or GStreamer. Without a GPU
# each test skips with a message.
yolo_add_test(NAME test_gpu_models LABEL gpu SOURCES gpu/test_gpu_models.cpp LIBS yolo_models)
yolo_add_test(NAME test_gpu_runtime LABEL gpu SOURCES gpu/test_gpu_runtime.cpp
  LIBS yolo_runtime_core)
yolo_add_test(NAME test_gpu_train LABEL gpu SOURCES gpu/test_gpu_train.cpp
  LIBS yolo_train_core yolo_runtime_core)

# The lean runtime's promise, checked on a real binary rather than by reading CMake files: the
# executable built from the runtime core needs no OpenCV, GStreamer or HTTP library at run time.
add_test(NAME test_runtime_core_links_no_opencv
  COMMAND ${CMAKE_COMMAND} -DBINARY=$<TARGET_FILE:test_gpu_runtime>
          "-DFORBID=opencv;gst;httplib" -P ${CMAKE_CURRENT_SOURCE_DIR}/gpu/check_needed_libs.cmake)
set_tests_properties(test_runtime_core_links_no_opencv PROPERTIES LABELS "unit;gpu")
