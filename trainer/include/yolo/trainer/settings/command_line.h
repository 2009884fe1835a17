// The yolo-trainer command line, in Ultralytics' style:
//   yolo-trainer [detect] MODE key=value ...        e.g. yolo-trainer train data=coco8.yaml
//   epochs=3 yolo-trainer help | MODE help | checks | version
// A bare key means key=True; "--key=value" and a trailing comma are accepted with a warning, as
// Ultralytics does.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace yolo {

struct CommandLine {
  std::string task = "detect";
  std::string mode;  // empty when only `help`/`version` was given
  bool help = false;
  std::vector<std::pair<std::string, std::string>> overrides;  // key, value text, in order
  std::vector<std::string> warnings;  // normalisations applied, to be logged
};

// Modes yolo-trainer knows, for parsing and suggestions.
const std::vector<std::string>& known_modes();

// Parses argv[1..]; throws ConfigError for an unknown mode/task word (with a suggestion) or a
// token that is neither a mode nor key=value. Bare keys are returned as key="true"; whether the
// key exists and is a bool is checked when the overrides are applied to a Config.
CommandLine parse_command_line(const std::vector<std::string>& args);

}  // namespace yolo
