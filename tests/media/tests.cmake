# The media library (yolo_media): source descriptions, the H.264 writer and the frame decoder.
yolo_add_test(NAME test_media LABEL integration NO_TORCH
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/media/test_media.cpp LIBS yolo_media)
pkg_check_modules(GST_RTSP_SERVER IMPORTED_TARGET gstreamer-rtsp-server-1.0)
if(GST_RTSP_SERVER_FOUND)
  target_link_libraries(test_media PRIVATE PkgConfig::GST_RTSP_SERVER)
  target_compile_definitions(test_media PRIVATE YOLO_HAVE_RTSP_SERVER)
endif()
# Decoded colours of flagged and unflagged videos against the exact values (issue #53).
yolo_add_test(NAME test_video_colours LABEL integration NO_TORCH
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/media/test_video_colours.cpp LIBS yolo_media)
# A leaky queue keeps every frame with its caps through many resolution changes (issue #68).
yolo_add_test(NAME test_leaky_queue LABEL integration NO_TORCH
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/media/test_leaky_queue.cpp LIBS yolo_media)
