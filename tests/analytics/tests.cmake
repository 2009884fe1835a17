# The analytics library (yolo_analytics): geometry, settings, lines, zones and events, and
# parity of the line counts with Ultralytics' ObjectCounter (label parity; skipped without the
# oracle).
set(_dir ${CMAKE_CURRENT_LIST_DIR})
yolo_add_test(NAME test_analytics LABEL unit NO_TORCH
  SOURCES ${_dir}/test_geometry.cpp ${_dir}/test_analytics_config.cpp
          ${_dir}/test_stream_analytics.cpp
  LIBS yolo_analytics yaml-cpp)
yolo_add_test(NAME test_object_counter_parity LABEL parity NO_TORCH
  SOURCES ${_dir}/test_object_counter_parity.cpp
  LIBS yolo_analytics yolo_tracking opencv_imgproc opencv_imgcodecs
  TIMEOUT 600)
target_include_directories(test_object_counter_parity PRIVATE ${PROJECT_SOURCE_DIR}/tests/tracking)
