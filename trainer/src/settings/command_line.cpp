#include "yolo/trainer/settings/command_line.h"

#include <fmt/format.h>

#include <algorithm>

#include "yolo/core/strings.h"
#include "yolo/trainer/settings/config.h"

namespace yolo {
namespace {

const std::vector<std::string> kTasks = {"detect"};
const std::vector<std::string> kOtherTasks = {"segment", "classify", "pose", "obb"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

const std::vector<std::string>& known_modes() {
  static const std::vector<std::string> modes = {"train",  "val",  "predict", "track",  "export",
                                                 "checks", "info", "synth",   "version"};
  return modes;
}

CommandLine parse_command_line(const std::vector<std::string>& args) {
  CommandLine cmd;
  for (std::string arg : args) {
    if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
      cmd.warnings.push_back(fmt::format("argument '{}' does not need leading dashes, using '{}'",
                                         arg, arg.substr(2)));
      arg = arg.substr(2);
    }
    if (arg.size() > 1 && arg.back() == ',') {
      cmd.warnings.push_back(fmt::format("argument '{}' has a trailing comma, using '{}'", arg,
                                         arg.substr(0, arg.size() - 1)));
      arg.pop_back();
    }
    if (arg.empty()) continue;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      std::string key = arg.substr(0, eq);
      if (key.empty()) throw ConfigError(fmt::format("'{}' has no key before '='", arg));
      cmd.overrides.emplace_back(key, arg.substr(eq + 1));
      continue;
    }
    if (arg == "help" || arg == "-h" || arg == "h") {
      cmd.help = true;
    } else if (contains(known_modes(), arg)) {
      if (!cmd.mode.empty() && cmd.mode != arg) {
        throw ConfigError(fmt::format("two modes given: '{}' and '{}'; choose one", cmd.mode, arg));
      }
      cmd.mode = arg;
    } else if (contains(kTasks, arg)) {
      cmd.task = arg;
    } else if (contains(kOtherTasks, arg)) {
      throw ConfigError(fmt::format(
          "task '{}' is not supported: yolo-trainer trains and runs detection models only "
          "(task 'detect', which is the default)",
          arg));
    } else if (ConfigSchema::builtin().find(arg)) {
      cmd.overrides.emplace_back(arg, "true");  // bare key: key=True
    } else {
      std::vector<std::string> words = known_modes();
      for (const auto& k : ConfigSchema::builtin().keys()) words.push_back(k.name);
      auto near = closest_matches(arg, words, 1);
      throw ConfigError(fmt::format(
          "'{}' is not a valid mode or key{}. Usage: yolo-trainer [detect] MODE key=value ... with "
          "MODE one of {}; `yolo-trainer help` lists every key.",
          arg, near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near[0]),
          fmt::join(known_modes(), ", ")));
    }
  }
  return cmd;
}

}  // namespace yolo
