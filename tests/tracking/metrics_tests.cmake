# The MOT metrics and the MOTChallenge format (yolo_tracking); included from
# tests/tracking/tests.cmake.
#   test_mot_metrics         hand-computed cases for every metric and the reader's errors
#   test_mot_metrics_parity  py-motmetrics' pinned TUD numbers and TrackEval run as an oracle
#                            (skipped without the motmetrics / trackeval packages in the test
#                            Python)
yolo_add_test(NAME test_mot_metrics LABEL unit NO_TORCH
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mot_metrics.cpp LIBS yolo_tracking)
yolo_add_test(NAME test_mot_metrics_parity LABEL parity NO_TORCH
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mot_metrics_parity.cpp
  LIBS yolo_tracking nlohmann_json::nlohmann_json)
