# Parity with Ultralytics run as an oracle (label parity; skipped without the ultralytics package
# in the test Python: tools/install-deps.sh --oracle); included from tests/CMakeLists.txt.
set(_dir ${CMAKE_CURRENT_LIST_DIR})
# About 200 s on an idle 2-core machine: the limit leaves room for a loaded one (#68).
yolo_add_test(NAME test_schedule_parity LABEL parity SOURCES ${_dir}/test_schedule_parity.cpp
  LIBS yolo_trainer TIMEOUT 900)
yolo_add_test(NAME test_gradient_parity LABEL parity SOURCES ${_dir}/test_gradient_parity.cpp
  LIBS yolo_trainer TIMEOUT 900)
yolo_add_test(NAME test_loop_parity LABEL parity SOURCES ${_dir}/test_loop_parity.cpp
  LIBS yolo_trainer TIMEOUT 600)
target_include_directories(test_loop_parity PRIVATE ${PROJECT_SOURCE_DIR}/tools/parity)
yolo_add_test(NAME test_dataset_sharing LABEL parity SOURCES ${_dir}/test_dataset_sharing.cpp
  LIBS yolo_trainer)
yolo_add_test(NAME test_init_parity LABEL parity SOURCES ${_dir}/test_init_parity.cpp
  LIBS yolo_trainer)
yolo_add_test(NAME test_augmentation_parity LABEL parity
  SOURCES ${_dir}/test_augmentation_parity.cpp LIBS yolo_trainer TIMEOUT 600)
yolo_add_test(NAME test_augment_replay_parity LABEL parity
  SOURCES ${_dir}/test_augment_replay_parity.cpp LIBS yolo_trainer TIMEOUT 300)
yolo_add_test(NAME test_val_parity LABEL parity NO_TORCH SOURCES ${_dir}/test_val_parity.cpp
  LIBS yolo_synth TIMEOUT 900)
target_compile_definitions(test_val_parity PRIVATE YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_val_parity yolo-trainer)
yolo_add_test(NAME test_ultralytics_pt_parity LABEL parity
  SOURCES ${_dir}/test_ultralytics_pt_parity.cpp LIBS yolo_synth yolo_models TIMEOUT 900)
target_compile_definitions(test_ultralytics_pt_parity PRIVATE
  YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_ultralytics_pt_parity yolo-trainer)
yolo_add_test(NAME test_metrics_parity LABEL parity SOURCES ${_dir}/test_metrics_parity.cpp
  LIBS yolo_trainer TIMEOUT 600)
yolo_add_test(NAME test_real_photos_parity LABEL parity
  SOURCES ${_dir}/test_real_photos_parity.cpp LIBS yolo_synth yolo_models TIMEOUT 900)
target_compile_definitions(test_real_photos_parity PRIVATE
  YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>" YOLO_TEST_ASSETS="${YOLO_TEST_ASSETS}")
add_dependencies(test_real_photos_parity yolo-trainer)
# Tracking on real frames (photos with camera motion as image sequences) against Ultralytics'
# model.track(persist=True), ByteTrack and BoT-SORT.
yolo_add_test(NAME test_track_real_frames_parity LABEL parity
  SOURCES ${_dir}/test_track_real_frames_parity.cpp LIBS yolo_synth yolo_models yolo_tracking TIMEOUT 900)
target_compile_definitions(test_track_real_frames_parity PRIVATE
  YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>" YOLO_TEST_ASSETS="${YOLO_TEST_ASSETS}")
add_dependencies(test_track_real_frames_parity yolo-trainer)
# Weight transfer for fine-tuning, tensor by tensor against Ultralytics' DetectionModel.load (#64).
yolo_add_test(NAME test_transfer_parity LABEL parity
  SOURCES ${_dir}/test_transfer_parity.cpp LIBS yolo_synth yolo_models TIMEOUT 600)
target_compile_definitions(test_transfer_parity PRIVATE YOLO_TEST_ASSETS="${YOLO_TEST_ASSETS}"
  YOLO_TRAINER_BIN="$<TARGET_FILE:yolo-trainer>")
add_dependencies(test_transfer_parity yolo-trainer)
