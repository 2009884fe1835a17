# Tests of serving/; included from tests/CMakeLists.txt.
set(_dir ${CMAKE_CURRENT_LIST_DIR})
yolo_add_test(NAME test_results_store LABEL unit SOURCES ${_dir}/test_results_store.cpp
  LIBS yolo_serving)
# The HTTP endpoint and what it serves (metrics registry, snapshots), through a real client.
yolo_add_test(NAME test_http_server LABEL unit
  SOURCES ${_dir}/test_http_server.cpp ${_dir}/test_metrics_registry.cpp
          ${_dir}/test_snapshot_store.cpp ${_dir}/test_http_stream_control.cpp
          ${_dir}/test_http_analytics.cpp
  LIBS yolo_serving)
target_link_libraries(test_http_server PRIVATE PkgConfig::HTTPLIB)
# The MQTT publisher against a real mosquitto that each test starts (skips without one), plus its
# buffer, url parsing and backoff alone (private headers).
yolo_add_test(NAME test_mqtt_publisher LABEL integration NO_TORCH TIMEOUT 120
  SOURCES ${_dir}/test_mqtt_publisher.cpp
  LIBS yolo_mqtt PkgConfig::MOSQUITTO)
target_include_directories(test_mqtt_publisher PRIVATE ${PROJECT_SOURCE_DIR}/serving/src)
target_link_libraries(test_mqtt_publisher PRIVATE PkgConfig::HTTPLIB)  # a web server on the url
