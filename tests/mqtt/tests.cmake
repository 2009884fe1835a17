# Tests of mqtt/; included from tests/CMakeLists.txt.
set(_dir ${CMAKE_CURRENT_LIST_DIR})
# The MQTT publisher against a real mosquitto that each test starts (skips without one), plus its
# buffer, url parsing and backoff alone (private headers).
yolo_add_test(NAME test_mqtt_publisher LABEL integration NO_TORCH TIMEOUT 120
  SOURCES ${_dir}/test_mqtt_publisher.cpp
  LIBS yolo_mqtt PkgConfig::MOSQUITTO)
target_include_directories(test_mqtt_publisher PRIVATE ${PROJECT_SOURCE_DIR}/mqtt/src)
target_link_libraries(test_mqtt_publisher PRIVATE PkgConfig::HTTPLIB)  # a web server on the url
