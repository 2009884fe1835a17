# Faults: what a full disk or a killed process must not break (label faults); included from
# tests/CMakeLists.txt. (Hostile input is the fuzz targets' job: fuzz/.)
set(_dir ${CMAKE_CURRENT_LIST_DIR})
yolo_add_test(NAME test_disk_full LABEL faults SOURCES ${_dir}/test_disk_full.cpp LIBS yolo_core
  TIMEOUT 600)
target_compile_definitions(test_disk_full PRIVATE YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_disk_full yolo-trainer)
yolo_add_test(NAME test_killed_training LABEL faults SOURCES ${_dir}/test_killed_training.cpp
  LIBS yolo_core TIMEOUT 900)
target_compile_definitions(test_killed_training PRIVATE
  YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_killed_training yolo-trainer)

# SIGHUP and SIGPIPE during training, not masked by the test.
yolo_add_test(NAME test_process_signals LABEL faults SOURCES ${_dir}/test_process_signals.cpp
  LIBS yolo_core TIMEOUT 600)
target_compile_definitions(test_process_signals PRIVATE
  YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_process_signals yolo-trainer)

# SIGXFSZ and SIGPIPE sent to yolo-monitor by a file size limit and a closed log pipe, not masked
# (with the pipelines only: YOLO_BUILD_PIPELINES).
if(TARGET yolo-monitor)
  yolo_add_test(NAME test_monitor_signals LABEL faults SOURCES ${_dir}/test_monitor_signals.cpp
    NO_TORCH TIMEOUT 600)
  target_compile_definitions(test_monitor_signals PRIVATE
    YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>" YOLO_MONITOR_BIN="$<TARGET_FILE:yolo-monitor>")
  add_dependencies(test_monitor_signals yolo-trainer yolo-monitor)
endif()
