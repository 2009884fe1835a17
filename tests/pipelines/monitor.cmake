# Tests of the yolo-monitor library (yolo_monitor_lib); included from tests/CMakeLists.txt.
if(NOT TARGET yolo_monitor_lib)
  return()
endif()
set(_monitor_tests ${CMAKE_CURRENT_LIST_DIR})
# The test RTSP server and ROI metas (imported targets are folder-scoped: checked here).
pkg_check_modules(MONITOR_TEST_GST REQUIRED IMPORTED_TARGET
  gstreamer-rtsp-server-1.0 gstreamer-video-1.0)

# Config, pipeline descriptions, JSON lines, state file, sd_notify: fast, no network.
yolo_add_test(NAME test_monitor LABEL unit
  SOURCES ${_monitor_tests}/test_monitor_config.cpp
          ${_monitor_tests}/test_monitor_source.cpp ${_monitor_tests}/test_monitor_outputs.cpp
          ${_monitor_tests}/test_monitor_sample_results.cpp
  LIBS yolo_monitor_lib yolo_gst_meta yaml-cpp PkgConfig::MONITOR_TEST_GST)

# Stream supervision against an in-process RTSP server on 127.0.0.1 (gst-rtsp-server): start,
# server outage and recovery, unreachable cameras, stop; the stream manager (add, remove,
# reconcile). Bounded by short timeouts (seconds).
yolo_add_test(NAME test_monitor_supervisor LABEL integration
  SOURCES ${_monitor_tests}/test_monitor_supervisor.cpp
          ${_monitor_tests}/test_monitor_stream_manager.cpp
          ${_monitor_tests}/test_monitor_service.cpp
  LIBS yolo_monitor_lib PkgConfig::MONITOR_TEST_GST PkgConfig::HTTPLIB TIMEOUT 180)
# The same run under GStreamer's leaks tracer: any GstObject or buffer still alive at
# gst_deinit() fails it.
add_test(NAME test_monitor_supervisor_leaks COMMAND test_monitor_supervisor --gtest_color=no)
set_tests_properties(test_monitor_supervisor_leaks PROPERTIES
  LABELS integration TIMEOUT 240 WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
  ENVIRONMENT "GST_TRACERS=leaks;GST_DEBUG=GST_TRACER:7;YOLO_TEST_GST_DEINIT=1"
  # A leak record names its type; the tracer's format declaration at start has "%s" there.
  FAIL_REGULAR_EXPRESSION "Leaks detected;object-alive, type-name=\\(string\\)[A-Za-z]")

# The dashboard page: self-contained, and rendered in headless Chromium when it is installed
# (screenshot artifact: <build>/dashboard.png).
yolo_add_test(NAME test_monitor_dashboard LABEL integration
  SOURCES ${_monitor_tests}/test_monitor_dashboard.cpp
  LIBS yolo_monitor_lib TIMEOUT 120)

# yolo-monitor's command line typed wrong: unknown options named with the nearest valid one.
yolo_add_test(NAME test_monitor_cli LABEL unit
  SOURCES ${_monitor_tests}/test_monitor_cli.cpp NO_TORCH TIMEOUT 60)
target_compile_definitions(test_monitor_cli PRIVATE YOLO_MONITOR_BIN="$<TARGET_FILE:yolo-monitor>")
add_dependencies(test_monitor_cli yolo-monitor)

# The configured systemd/yolo-monitor.service: settings present; systemd-analyze verify when
# available.
yolo_add_test(NAME test_monitor_systemd LABEL unit
  SOURCES ${_monitor_tests}/test_monitor_systemd.cpp
  LIBS yolo_core TIMEOUT 60)
target_compile_definitions(test_monitor_systemd PRIVATE
  YOLO_INSTALL_BINDIR="${CMAKE_INSTALL_FULL_BINDIR}")
