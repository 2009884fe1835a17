# Tests of the GStreamer elements (`yolo`, `yolotracker`, `yolooverlay`); included from
# tests/CMakeLists.txt.
pkg_check_modules(GST_CHECK REQUIRED IMPORTED_TARGET gstreamer-check-1.0 gstreamer-video-1.0
  gstreamer-app-1.0)
yolo_add_test(NAME test_yolo_element LABEL integration
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/pipelines/test_yolo_element.cpp
  LIBS yolo_gst_meta PkgConfig::GST_CHECK)
add_dependencies(test_yolo_element gstyolo)
yolo_add_test(NAME test_yolo_overlay LABEL integration
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/pipelines/test_yolo_overlay.cpp
  LIBS yolo_gst_meta PkgConfig::GST_CHECK)
add_dependencies(test_yolo_overlay gstyolo)
yolo_add_test(NAME test_yolo_tracker LABEL integration
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/pipelines/test_yolo_tracker.cpp
  LIBS yolo_gst_meta yolo_tracking PkgConfig::GST_CHECK)
add_dependencies(test_yolo_tracker gstyolo)
# Whole pipelines: gst-launch-1.0 to EOS, the leaks tracer, the HTTP endpoint while playing, the
# tracker and overlay to an MP4 file and an appsink.
yolo_add_test(NAME test_yolo_pipeline LABEL integration
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/pipelines/test_yolo_pipeline.cpp
  LIBS yolo_gst_meta yolo_serving yolo_synth PkgConfig::GST_CHECK PkgConfig::HTTPLIB
  nlohmann_json::nlohmann_json PkgConfig::MOSQUITTO)
# The MQTT broker and subscriber of the MQTT tests.
target_include_directories(test_yolo_pipeline PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/mqtt)
add_dependencies(test_yolo_pipeline gstyolo)
# A model trained by yolo-trainer detects the synthetic video's shapes through the element.
yolo_add_test(NAME test_yolo_detect LABEL slow TIMEOUT 1800
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/pipelines/test_yolo_detect.cpp
  LIBS yolo_gst_meta yolo_synth PkgConfig::GST_CHECK nlohmann_json::nlohmann_json)
target_compile_definitions(test_yolo_detect PRIVATE YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_yolo_detect gstyolo yolo-trainer)

# yolo-monitor with the real element and a trained model against an in-process RTSP camera.
if(TARGET yolo-monitor)
  pkg_check_modules(MONITOR_E2E_GST REQUIRED IMPORTED_TARGET gstreamer-rtsp-server-1.0)
  yolo_add_test(NAME test_yolo_monitor LABEL slow TIMEOUT 1800 NO_TORCH
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/pipelines/test_yolo_monitor.cpp
    LIBS yolo_synth PkgConfig::MONITOR_E2E_GST PkgConfig::HTTPLIB nlohmann_json::nlohmann_json
         PkgConfig::MOSQUITTO)
  # The MQTT broker and subscriber of the MQTT tests.
  target_include_directories(test_yolo_monitor PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/mqtt)
  target_compile_definitions(test_yolo_monitor PRIVATE
    YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>" YOLO_MONITOR_BIN="$<TARGET_FILE:yolo-monitor>")
  add_dependencies(test_yolo_monitor yolo-monitor yolo-trainer gstyolo)
endif()
# The element's steady state counted with a replaced allocator (its own executable: the counting
# malloc is process-wide).
yolo_add_test(NAME test_element_allocations LABEL integration
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/pipelines/test_element_allocations.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/support/allocation_counter.cpp
  LIBS yolo_gst_meta PkgConfig::GST_CHECK)
add_dependencies(test_element_allocations gstyolo)
