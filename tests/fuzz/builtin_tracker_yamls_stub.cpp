// The built-in tracker YAMLs are generated into the main build (tracking/CMakeLists.txt); the
// fuzz targets parse the user's bytes only, so they link this empty list instead.
#include "builtin_tracker_yamls.h"

namespace yolo::tracking {

const std::vector<BuiltinTrackerYaml>& builtin_tracker_yamls() {
  static const std::vector<BuiltinTrackerYaml> none;
  return none;
}

}  // namespace yolo::tracking
