# Tests of predict/ (the library behind `yolo-trainer predict` and `track`); included from
# tests/CMakeLists.txt.
# yolo-trainer predict: sources, outputs, and the command line.
yolo_add_test(NAME test_predict LABEL integration
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/predict/test_predict.cpp
  LIBS yolo_predict yolo_trainer yolo_media TIMEOUT 600)
target_compile_definitions(test_predict PRIVATE YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_predict yolo-trainer)
target_include_directories(test_predict PRIVATE ${PROJECT_SOURCE_DIR}/predict/src)
# A local RTSP server for the live-stream test, when the library is installed.
pkg_check_modules(GST_RTSP_SERVER IMPORTED_TARGET gstreamer-rtsp-server-1.0)
if(GST_RTSP_SERVER_FOUND)
  target_link_libraries(test_predict PRIVATE PkgConfig::GST_RTSP_SERVER)
  target_compile_definitions(test_predict PRIVATE YOLO_HAVE_RTSP_SERVER)
endif()
