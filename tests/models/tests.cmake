# Tests of models/; included from tests/CMakeLists.txt.
set(_dir ${CMAKE_CURRENT_LIST_DIR})
yolo_add_test(NAME test_model_build LABEL unit SOURCES ${_dir}/test_model_build.cpp
  LIBS yolo_models)
yolo_add_test(NAME test_model_forward LABEL unit SOURCES ${_dir}/test_model_forward.cpp
  LIBS yolo_models)
yolo_add_test(NAME test_checkpoint LABEL unit SOURCES ${_dir}/test_checkpoint.cpp
  LIBS yolo_models)
yolo_add_test(NAME test_box_math LABEL unit SOURCES ${_dir}/test_box_math.cpp LIBS yolo_models)
yolo_add_test(NAME test_ultralytics_pt LABEL unit SOURCES ${_dir}/test_ultralytics_pt.cpp
  LIBS yolo_models)
