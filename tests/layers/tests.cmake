# The layer check (yolo_check_layer, cmake/YoloHelpers.cmake) checked once against a deliberate
# violation: a fixture project configures cleanly when its low target stays low, and its configure
# fails, naming the forbidden library and the chain that brought it in, when it does not.
set(_fixture ${CMAKE_CURRENT_SOURCE_DIR}/layers/fixture)
add_test(NAME layer_check_accepts_a_clean_map
  COMMAND ${CMAKE_COMMAND} -S ${_fixture} -B ${CMAKE_CURRENT_BINARY_DIR}/layer_check_clean
          -DYOLO_SOURCE_DIR=${PROJECT_SOURCE_DIR} -DVIOLATE=OFF)
add_test(NAME layer_check_refuses_a_violation
  COMMAND ${CMAKE_COMMAND} -S ${_fixture} -B ${CMAKE_CURRENT_BINARY_DIR}/layer_check_violation
          -DYOLO_SOURCE_DIR=${PROJECT_SOURCE_DIR} -DVIOLATE=ON)
# The violation passes only when the configure prints the check's message with the whole chain
# (PASS_REGULAR_EXPRESSION: a check that let it through prints no such line, and fails).
set_tests_properties(layer_check_accepts_a_clean_map PROPERTIES LABELS unit)
# CMake wraps the message at about 80 columns: any space may come out as a line break.
string(REPLACE " " "[ \n]+" _expected
  "yolo layer check: fixture_models must not link 'fixture_opencv_core' \\(matches 'opencv'\\), brought in by fixture_models -> fixture_media -> fixture_opencv_core")
set_tests_properties(layer_check_refuses_a_violation PROPERTIES LABELS unit
  PASS_REGULAR_EXPRESSION "${_expected}")

# The include-level map (cmake/check_includes.cmake): the source tree passes, and a fixture tree
# whose trainer includes GStreamer itself fails, naming the file, the line and the rule.
add_test(NAME layer_includes_hold
  COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -P ${PROJECT_SOURCE_DIR}/cmake/check_includes.cmake)
set_tests_properties(layer_includes_hold PROPERTIES LABELS unit)
add_test(NAME layer_includes_refuse_a_violation
  COMMAND ${CMAKE_COMMAND} -DROOT=${CMAKE_CURRENT_SOURCE_DIR}/layers/include_fixture
          -P ${PROJECT_SOURCE_DIR}/cmake/check_includes.cmake)
string(REPLACE " " "[ \n]+" _expected
  "trainer/src/decoder.cpp: '#include <gst/gst.h>' \\(the trainer reaches GStreamer through yolo/media/ only\\)")
set_tests_properties(layer_includes_refuse_a_violation PROPERTIES LABELS unit
  PASS_REGULAR_EXPRESSION "${_expected}" FAIL_REGULAR_EXPRESSION "media/src/decoder.cpp")

# Folders inside the libraries (tools/layers/): the include graph between folders has no cycle,
# and docs/architecture.md's folder table and map match the tree. Each also runs on a fixture tree
# (tests/layers/folder_fixture) whose trainer/val includes trainer/train, which includes
# trainer/val, and whose page misses trainer/val: each passes only when the tool names that.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(_folder_fixture ${CMAKE_CURRENT_SOURCE_DIR}/layers/folder_fixture)
add_test(NAME layer_folders_acyclic
  COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tools/layers/folder_graph.py
          --root ${PROJECT_SOURCE_DIR})
add_test(NAME layer_folders_refuse_a_cycle
  COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tools/layers/folder_graph.py
          --root ${_folder_fixture})
add_test(NAME architecture_folder_map
  COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tools/layers/folder_map.py
          --root ${PROJECT_SOURCE_DIR})
add_test(NAME architecture_folder_map_refuses_a_gap
  COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tools/layers/folder_map.py
          --root ${_folder_fixture})
set_tests_properties(layer_folders_acyclic architecture_folder_map PROPERTIES LABELS unit)
set_tests_properties(layer_folders_refuse_a_cycle PROPERTIES LABELS unit
  PASS_REGULAR_EXPRESSION "goes back up: trainer/train -> trainer/val -> trainer/train")
set_tests_properties(architecture_folder_map_refuses_a_gap PROPERTIES LABELS unit
  PASS_REGULAR_EXPRESSION "folder map: `trainer/val/` is in the tree but not on the page")
