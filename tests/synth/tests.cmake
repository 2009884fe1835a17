# tests of the synthetic data generator (yolo_synth); included from tests/CMakeLists.txt.
yolo_add_test(NAME test_synth LABEL unit NO_TORCH
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/synth/test_synth.cpp
  LIBS yolo_synth)
# The test reads what the generator writes: data.yaml and the video's JSON lines.
target_link_libraries(test_synth PRIVATE yaml-cpp nlohmann_json::nlohmann_json)
