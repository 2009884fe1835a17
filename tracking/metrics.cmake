# MOT metrics (CLEAR, identity, HOTA) and the MOTChallenge text format; included from
# tracking/CMakeLists.txt.
target_sources(yolo_tracking PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/mot_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/mot_metrics.cpp
)
