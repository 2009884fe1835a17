# Documentation checks (docs/cli.md against config/default.yaml, every yolo-trainer command in
# README.md and docs/*.md through the trainer's own parser); included from tests/CMakeLists.txt.
# The test reads the Markdown and default.yaml from the source tree when it runs, so editing a
# page needs no rebuild.
yolo_add_test(NAME test_docs LABEL unit
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/docs/test_docs.cpp
  LIBS yolo_trainer)
