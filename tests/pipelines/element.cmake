# Tests of the `yolo` GStreamer element; included from tests/CMakeLists.txt.
pkg_check_modules(GST_CHECK REQUIRED IMPORTED_TARGET gstreamer-check-1.0 gstreamer-video-1.0)
yolo_add_test(NAME test_yolo_element LABEL integration
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/pipelines/test_yolo_element.cpp
          ${PROJECT_SOURCE_DIR}/pipelines/gst/detection_meta.cpp
  LIBS yolo_runtime PkgConfig::GST_CHECK)
add_dependencies(test_yolo_element gstyolo)
# Whole pipelines: gst-launch-1.0 to EOS, the leaks tracer, the HTTP endpoint while playing.
yolo_add_test(NAME test_yolo_pipeline LABEL integration
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/pipelines/test_yolo_pipeline.cpp
  LIBS yolo_runtime PkgConfig::GST_CHECK PkgConfig::HTTPLIB nlohmann_json::nlohmann_json)
add_dependencies(test_yolo_pipeline gstyolo)
