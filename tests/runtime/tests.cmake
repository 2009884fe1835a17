# Tests of runtime/; included from tests/CMakeLists.txt.
set(_dir ${CMAKE_CURRENT_LIST_DIR})
yolo_add_test(NAME test_letterbox LABEL unit SOURCES ${_dir}/test_letterbox.cpp LIBS yolo_runtime)
# Device-side preprocessing against the CPU letterbox; reads the private resize header.
yolo_add_test(NAME test_device_preprocess LABEL unit SOURCES ${_dir}/test_device_preprocess.cpp
  LIBS yolo_runtime)
target_include_directories(test_device_preprocess PRIVATE ${PROJECT_SOURCE_DIR}/runtime/src)
yolo_add_test(NAME test_postprocess LABEL unit SOURCES ${_dir}/test_postprocess.cpp
  LIBS yolo_runtime)
yolo_add_test(NAME test_engine LABEL unit SOURCES ${_dir}/test_engine.cpp LIBS yolo_runtime)
yolo_add_test(NAME test_engine_rect LABEL unit SOURCES ${_dir}/test_engine_rect.cpp LIBS yolo_runtime)
yolo_add_test(NAME test_batcher LABEL unit SOURCES ${_dir}/test_batcher.cpp LIBS yolo_runtime)
# BF16 autocast keeps a trained detector's validation mAP within 0.005 of FP32 (uses the shapes
# detector the pipeline tests train once per build folder).
yolo_add_test(NAME test_reduced_precision LABEL slow TIMEOUT 600 NO_TORCH
  SOURCES ${_dir}/test_reduced_precision.cpp LIBS yolo_synth)
target_include_directories(test_reduced_precision PRIVATE ${PROJECT_SOURCE_DIR}/tests/pipelines)
target_compile_definitions(test_reduced_precision PRIVATE
  YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_reduced_precision yolo-trainer)
# The CPU convolution fusion pass; reads its private header.
yolo_add_test(NAME test_cpu_conv_fusion LABEL unit SOURCES ${_dir}/test_cpu_conv_fusion.cpp
  LIBS yolo_runtime)
target_include_directories(test_cpu_conv_fusion PRIVATE ${PROJECT_SOURCE_DIR}/runtime/src)
