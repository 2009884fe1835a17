# The tracking library (yolo_tracking): assignment, settings, trackers, motion compensation, and
# parity with Ultralytics' own trackers (label parity; skipped without the oracle).
set(_dir ${CMAKE_CURRENT_LIST_DIR})
yolo_add_test(NAME test_tracking LABEL unit NO_TORCH
  SOURCES ${_dir}/test_assignment.cpp ${_dir}/test_tracker_config.cpp ${_dir}/test_tracker.cpp
          ${_dir}/test_motion_compensation.cpp
  LIBS yolo_tracking opencv_imgproc)
yolo_add_test(NAME test_tracker_parity LABEL parity NO_TORCH
  SOURCES ${_dir}/test_tracker_parity.cpp LIBS yolo_tracking opencv_imgproc opencv_imgcodecs
  TIMEOUT 600)
include(${_dir}/metrics_tests.cmake)
