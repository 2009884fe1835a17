// `yolo-trainer help` and `yolo-trainer MODE help`.
#pragma once

#include <string>
#include <vector>

namespace yolo {

class Config;
class ConfigSchema;

// Usage, modes, examples and every key with its default and meaning. With a mode, the mode's
// usage line and the keys of the sections that mode reads come first.
std::string format_help(const ConfigSchema& schema, const std::string& mode);

// One warning for each key given (command line or cfg file) that `mode` does not read, naming
// the modes that do: `predict gt=...` would otherwise do nothing without a word. A mode reads the
// keys of its help sections and the few others it names (export's half, synth's seed); tracker,
// persist and gt are track's alone; task, mode, cfg and threads every mode's. Keys of training's
// section that only training acts on (epochs=...) are not told apart: predict, val and info read
// that section for model, imgsz and device.
std::vector<std::string> unread_key_warnings(const Config& cfg, const std::string& mode);

}  // namespace yolo
