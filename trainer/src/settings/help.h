// `yolo-trainer help` and `yolo-trainer MODE help`.
#pragma once

#include <string>

namespace yolo {

class ConfigSchema;

// Usage, modes, examples and every key with its default and meaning. With a mode, the mode's
// usage line and the keys of the sections that mode reads come first.
std::string format_help(const ConfigSchema& schema, const std::string& mode);

}  // namespace yolo
