// Model architecture YAMLs in Ultralytics' grammar, and name resolution.
//
// `yolo26n.yaml` resolves to the built-in yolo26.yaml with scale "n" (as Ultralytics does: the
// scale letter after the version number is taken out of the file name); a path to an existing
// file is read from disk, with the scale taken from its name the same way. The built-in YAMLs
// (models/cfg/) are compiled into the library.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "yolo/core/error.h"

namespace yolo {

// Thrown for unreadable or invalid model YAMLs and layers that cannot be built; what() names the
// file and, for layers, the layer index and what is wrong.
class ModelError : public FailureError {
 public:
  using FailureError::FailureError;
};

struct LayerSpec {
  std::vector<int> from;  // -1 = previous layer; otherwise absolute layer indices
  int repeats = 1;        // as written (before depth scaling)
  std::string module;     // "Conv", "C3k2", "nn.Upsample", ...
  YAML::Node args;        // sequence, as written
};

struct ModelConfig {
  std::string name;    // e.g. "yolo26n" (file stem with scale)
  std::string source;  // where it came from: "builtin:yolo26.yaml" or a path
  std::string scale;   // "n", "s", ...; empty when the YAML has no scales
  int nc = 80;
  double depth = 1.0, width = 1.0;
  int max_channels = 1024;
  bool end2end = false;
  int reg_max = 16;
  int channels = 3;  // input channels (`ch` / `channels` key)
  // Hidden width of Detect's class branch; 0: Ultralytics' rule max(P3 channels, min(nc, 100)).
  // Set when a fine-tune keeps a pretrained class branch built for another class count
  // (Ultralytics 8.4's DetectionModel.load rebuilds the branch at the source's width).
  int cls_hidden = 0;
  std::vector<LayerSpec> layers;  // backbone then head
  std::string yaml_text;          // the YAML as read, for checkpoints
};

// Built-in architecture names: yolov8, yolo11, yolo26.
std::vector<std::string> builtin_model_yamls();

// "yolo26n.yaml" -> ("yolo26.yaml", "n"); "yolov8s.yaml" -> ("yolov8.yaml", "s");
// "yolo11.yaml" -> ("yolo11.yaml", ""). Only the file name is looked at.
std::pair<std::string, std::string> split_model_scale(const std::string& file_name);

// Loads and checks a model YAML by name or path; nc overrides the YAML's class count when set.
ModelConfig load_model_config(const std::string& name_or_path, std::optional<int> nc = {});
// Same, from YAML text (the scale must be given when the YAML has scales).
ModelConfig parse_model_config(const std::string& yaml_text, const std::string& name,
                               const std::string& scale, std::optional<int> nc = {});

}  // namespace yolo
