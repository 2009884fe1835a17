// The tracker YAMLs of config/trackers/, compiled into the library (see tracking/CMakeLists.txt).
#pragma once

#include <vector>

namespace yolo::tracking {

struct BuiltinTrackerYaml {
  const char* name;  // "botsort.yaml"
  const char* text;
};

const std::vector<BuiltinTrackerYaml>& builtin_tracker_yamls();

}  // namespace yolo::tracking
