# Tests of core/; included from tests/CMakeLists.txt.
set(_dir ${CMAKE_CURRENT_LIST_DIR})
yolo_add_test(NAME test_device LABEL unit SOURCES ${_dir}/test_device.cpp LIBS yolo_core)
yolo_add_test(NAME test_atomic_file LABEL unit SOURCES ${_dir}/test_atomic_file.cpp LIBS yolo_core)
yolo_add_test(NAME test_strings LABEL unit SOURCES ${_dir}/test_strings.cpp LIBS yolo_core)
yolo_add_test(NAME test_ini_text LABEL unit NO_TORCH SOURCES ${_dir}/test_ini_text.cpp
  LIBS yolo_core_base)
yolo_add_test(NAME test_backoff LABEL unit NO_TORCH SOURCES ${_dir}/test_backoff.cpp
  LIBS yolo_core_base)
yolo_add_test(NAME test_whole_number LABEL unit NO_TORCH SOURCES ${_dir}/test_whole_number.cpp
  LIBS yolo_core_base)
yolo_add_test(NAME test_utf8 LABEL unit SOURCES ${_dir}/test_utf8.cpp LIBS yolo_core_base NO_TORCH)
yolo_add_test(NAME test_progress_bar LABEL unit SOURCES ${_dir}/test_progress_bar.cpp
  LIBS yolo_core)
yolo_add_test(NAME test_serial_torch_ops LABEL unit SOURCES ${_dir}/test_serial_torch_ops.cpp
  LIBS yolo_core)
yolo_add_test(NAME test_cpu_features LABEL unit SOURCES ${_dir}/test_cpu_features.cpp
  LIBS yolo_core_base NO_TORCH)
yolo_add_test(NAME test_text_file LABEL unit SOURCES ${_dir}/test_text_file.cpp
  LIBS yolo_core_base NO_TORCH)
