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
