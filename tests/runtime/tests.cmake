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
yolo_add_test(NAME test_batcher LABEL unit SOURCES ${_dir}/test_batcher.cpp LIBS yolo_runtime)
