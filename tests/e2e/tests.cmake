# End to end: the README's main command at miniature size; included from tests/CMakeLists.txt.
yolo_add_test(NAME test_quickstart LABEL slow TIMEOUT 1200
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e/test_quickstart.cpp
  LIBS torch PkgConfig::HTTPLIB nlohmann_json::nlohmann_json)
add_dependencies(test_quickstart yolo-trainer gstyolo)
