# Documentation checks (docs/cli.md against config/default.yaml, every yolo-trainer command in
# README.md and docs/*.md through the trainer's own parser); included from tests/CMakeLists.txt.
# The test reads the Markdown and default.yaml from the source tree when it runs, so editing a
# page needs no rebuild.
yolo_add_test(NAME test_docs LABEL unit
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/docs/test_docs.cpp
  LIBS yolo_trainer)

# Every shell command of README.md and docs/*.md run as typed in a fresh checkout of the tracked
# files, with the files a reader of the README has (the quickstart's run folder, its dataset, a
# video); lines that cannot run on a test machine are left out by a named rule and printed. Needs
# every program, so only where the pipelines are built.
if(TARGET yolo-monitor)
  yolo_add_test(NAME test_docs_run LABEL integration TIMEOUT 1500 NO_TORCH
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/docs/test_docs_run.cpp)
  add_dependencies(test_docs_run yolo-trainer yolo-monitor gstyolo)
endif()
