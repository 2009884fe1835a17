# Tests of trainer/ (predict's and the synthetic data generator's are in predict/ and synth/);
# included from tests/CMakeLists.txt.
set(_dir ${CMAKE_CURRENT_LIST_DIR})
yolo_add_test(NAME test_config LABEL unit
  SOURCES ${_dir}/test_config.cpp ${_dir}/test_command_line.cpp ${_dir}/test_checks.cpp
  LIBS yolo_trainer)
target_include_directories(test_config PRIVATE ${PROJECT_SOURCE_DIR}/trainer/src)

# The yolo-trainer executable as a user runs it.
yolo_add_test(NAME test_trainer_cli LABEL integration SOURCES ${_dir}/test_trainer_cli.cpp
  LIBS yolo_core)
target_compile_definitions(test_trainer_cli PRIVATE YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_trainer_cli yolo-trainer)

yolo_add_test(NAME test_dataset LABEL unit SOURCES ${_dir}/test_dataset.cpp LIBS yolo_trainer)
yolo_add_test(NAME test_augment LABEL unit SOURCES ${_dir}/test_augment.cpp LIBS yolo_trainer)
yolo_add_test(NAME test_data_loader LABEL unit SOURCES ${_dir}/test_data_loader.cpp
  LIBS yolo_trainer)
yolo_add_test(NAME test_plots LABEL unit SOURCES ${_dir}/test_plots.cpp LIBS yolo_trainer)
yolo_add_test(NAME test_metrics LABEL unit SOURCES ${_dir}/test_metrics.cpp LIBS yolo_trainer)
yolo_add_test(NAME test_dataset_download LABEL integration
  SOURCES ${_dir}/test_dataset_download.cpp LIBS yolo_trainer)
target_link_libraries(test_dataset_download PRIVATE PkgConfig::HTTPLIB PkgConfig::LIBZIP)
yolo_add_test(NAME test_loss LABEL unit SOURCES ${_dir}/test_loss.cpp LIBS yolo_trainer)
target_compile_definitions(test_loss PRIVATE YOLO_LOSS_REFERENCE="${_dir}/loss_reference.py")
yolo_add_test(NAME test_optimizer LABEL unit SOURCES ${_dir}/test_optimizer.cpp LIBS yolo_trainer)
yolo_add_test(NAME test_train LABEL integration SOURCES ${_dir}/test_train.cpp
  LIBS yolo_trainer yaml-cpp TIMEOUT 900)
# DDP: the yolo-trainer binary starts two Gloo worker processes on 127.0.0.1.
yolo_add_test(NAME test_ddp LABEL integration SOURCES ${_dir}/test_ddp.cpp
  LIBS yolo_trainer TIMEOUT 600)
target_compile_definitions(test_ddp PRIVATE YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_ddp yolo-trainer)
# FP16 autocast training steps on the CPU (what a GPU's AMP step computes), 50 per model family.
yolo_add_test(NAME test_fp16_steps LABEL slow SOURCES ${_dir}/test_fp16_steps.cpp
  LIBS yolo_trainer TIMEOUT 900)
