// The inference settings every front end shares (predict, val and track, the `yolo` element,
// yolo-monitor): their defaults, ranges and names live here once, and a front end fills an
// InferenceSettings with the ones it has (the rest keep their defaults).
//
// Defaults are Ultralytics'. Its cfg/default.yaml leaves `conf` unset: predict then keeps scores
// above 0.25, track above 0.1, val above 0.001 (every box counts towards the precision-recall
// curve); `iou` 0.7 and `max_det` 300 are default.yaml's own. test_config holds our
// config/default.yaml (the command line's defaults and ranges) to these. No LibTorch here: the
// element's and the monitor's settings use it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace yolo {

inline constexpr double kPredictConf = 0.25;
// engine/model.py track(): "ByteTrack-based method needs low confidence predictions as input".
inline constexpr double kTrackConf = 0.1;
inline constexpr double kValConf = 0.001;
// The confidence val's prediction plots draw from (validator plot_predictions, conf=0.25).
inline constexpr double kPlotConf = 0.25;
inline constexpr double kNmsIou = 0.7;
inline constexpr int kMaxDet = 300;

// A number setting's allowed values, both ends included.
struct SettingRange {
  double lo, hi;
};
inline constexpr SettingRange kConfRange{0, 1};
inline constexpr SettingRange kIouRange{0, 1};
inline constexpr SettingRange kMaxDetRange{1, 30000};

// Where a setting is given, which decides its name.
enum class SettingFront {
  kCommandLine,  // yolo-trainer key=value and config/default.yaml
  kMonitorYaml,  // yolo-monitor's configuration (top level and per stream)
  kElement,      // the `yolo` element's property
};

// One setting's name in each front end; "" where a front end does not have it.
struct SettingNames {
  const char* command_line;
  const char* monitor_yaml;
  const char* element;

  const char* in(SettingFront front) const;
};

// The table of names (docs/cli.md, docs/monitor.md, docs/gst-yolo.md).
struct InferenceNames {
  SettingNames device{"device", "device", "device"};
  SettingNames conf{"conf", "conf", "conf-threshold"};
  SettingNames iou{"iou", "iou", "iou-threshold"};
  SettingNames max_det{"max_det", "", "max-detections"};
  SettingNames classes{"classes", "classes", "classes"};
  SettingNames agnostic{"agnostic_nms", "", ""};
  SettingNames half{"half", "", "half"};
  SettingNames bf16{"bf16", "bf16", "bf16"};
  SettingNames rect{"rect", "rect", "rect"};
};
inline constexpr InferenceNames kInferenceNames{};

struct InferenceSettings {
  std::string device;          // core/device.h's grammar; "" = the best available
  double conf = kPredictConf;  // keep detections scoring above this
  double iou = kNmsIou;        // NMS suppresses overlaps above this
  int max_det = kMaxDet;       // detections kept per image
  std::string classes;         // "" = all; comma-separated class ids and/or names
  bool agnostic = false;       // NMS across classes
  bool half = false;           // FP16 (GPU devices only)
  std::string bf16 = "auto";   // BF16 autocast on the CPU: auto (where native), true, false
  bool rect = true;            // letterbox to the smallest stride-multiple rectangle

  // One line per value outside its range or choices, named as `front` names it:
  // "conf-threshold=2 is out of range: use 0 to 1".
  std::vector<std::string> problems(SettingFront front) const;
  // "bf16=yes is not one of auto, true, false" (named as `front` names it), or "".
  std::string bf16_problem(SettingFront front) const;
  // `bf16` as the engine takes it: empty for auto, else on or off (bf16 must be valid).
  std::optional<bool> bf16_choice() const;
};

// "name=value is out of range: use lo to hi" for a number outside `range` (NaN too), else "".
std::string range_problem(const std::string& name, double value, SettingRange range);

// The ids and names of a classes text, in order: "0, person,2" gives "0", "person", "2".
std::vector<std::string> class_tokens(const std::string& classes);

// Class ids as a classes text: {0, 2} gives "0,2".
std::string classes_text(const std::vector<int>& ids);

}  // namespace yolo
