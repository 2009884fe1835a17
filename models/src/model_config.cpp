#include "yolo/models/model_config.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <regex>

#include "yolo/core/text_file.h"

namespace yolo {

// Generated from models/cfg/*.yaml by CMake: {"yolov8.yaml", text}, ...
extern const std::map<std::string, std::string>& builtin_model_yaml_texts();

namespace fs = std::filesystem;

std::vector<std::string> builtin_model_yamls() {
  std::vector<std::string> out;
  for (const auto& [name, text] : builtin_model_yaml_texts()) out.push_back(name);
  return out;
}

std::pair<std::string, std::string> split_model_scale(const std::string& file_name) {
  // Ultralytics: yolo(e-)?v?<digits><scale>... ; the scale letter follows the version number.
  static const std::regex re(R"(^(yolo(?:e-)?v?\d+)([nslmx])(.*)$)");
  std::smatch m;
  const std::string stem = fs::path(file_name).stem().string();
  const std::string ext = fs::path(file_name).extension().string();
  if (std::regex_match(stem, m, re)) return {m[1].str() + m[3].str() + ext, m[2].str()};
  return {file_name, ""};
}

namespace {

int as_int(const YAML::Node& n, const std::string& what, const std::string& source) {
  try {
    return n.as<int>();
  } catch (const YAML::Exception&) {
    throw ModelError(fmt::format("{}: '{}' must be an integer", source, what));
  }
}

std::vector<LayerSpec> parse_layers(const YAML::Node& list, const std::string& section,
                                    const std::string& source, size_t first_index) {
  std::vector<LayerSpec> out;
  if (!list) return out;
  if (!list.IsSequence()) throw ModelError(fmt::format("{}: '{}' must be a list", source, section));
  size_t i = first_index;
  for (const auto& row : list) {
    const std::string where = fmt::format("{}: layer {}", source, i);
    if (!row.IsSequence() || row.size() != 4) {
      throw ModelError(fmt::format("{} must be [from, repeats, module, args]", where));
    }
    LayerSpec spec;
    try {
      if (row[0].IsSequence()) {
        for (const auto& f : row[0]) spec.from.push_back(f.as<int>());
      } else {
        spec.from.push_back(row[0].as<int>());
      }
      spec.repeats = row[1].as<int>();
      spec.module = row[2].as<std::string>();
    } catch (const YAML::Exception&) {
      throw ModelError(
          fmt::format("{}: 'from' must be an int or list of ints, 'repeats' an int "
                      "and 'module' a name",
                      where));
    }
    if (spec.from.empty()) throw ModelError(fmt::format("{}: 'from' is empty", where));
    if (spec.repeats < 1) throw ModelError(fmt::format("{}: repeats must be >= 1", where));
    spec.args = row[3].IsSequence() ? YAML::Clone(row[3]) : YAML::Node(YAML::NodeType::Sequence);
    out.push_back(std::move(spec));
    ++i;
  }
  return out;
}

}  // namespace

namespace {
ModelConfig parse_model_config_unchecked(const std::string& yaml_text, const std::string& name,
                                         const std::string& scale, std::optional<int> nc);
}  // namespace

ModelConfig parse_model_config(const std::string& yaml_text, const std::string& name,
                               const std::string& scale, std::optional<int> nc) {
  try {
    return parse_model_config_unchecked(yaml_text, name, scale, nc);
  } catch (const YAML::Exception& e) {
    throw ModelError(
        fmt::format("{}: {} (line {}); check the types of nc, scales, "
                    "depth_multiple, width_multiple and end2end",
                    name, e.msg, e.mark.line + 1));
  }
}

namespace {
ModelConfig parse_model_config_unchecked(const std::string& yaml_text, const std::string& name,
                                         const std::string& scale, std::optional<int> nc) {
  ModelConfig cfg;
  cfg.name = name;
  cfg.source = name;
  cfg.yaml_text = yaml_text;
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw ModelError(fmt::format("{}: not valid YAML: {} (line {}, column {})", name, e.msg,
                                 e.mark.line + 1, e.mark.column + 1));
  }
  if (!root.IsMap()) throw ModelError(fmt::format("{}: a model YAML must be a mapping", name));
  cfg.nc = root["nc"] ? as_int(root["nc"], "nc", name) : 80;
  if (nc) {
    if (*nc != cfg.nc) spdlog::info("Overriding {} nc={} with nc={}", name, cfg.nc, *nc);
    cfg.nc = *nc;
  }
  if (cfg.nc < 1) throw ModelError(fmt::format("{}: nc must be >= 1, got {}", name, cfg.nc));
  if (root["reg_max"]) cfg.reg_max = as_int(root["reg_max"], "reg_max", name);
  if (root["end2end"])
    cfg.end2end =
        root["end2end"].as<std::string>() == "True" || root["end2end"].as<std::string>() == "true";
  if (root["channels"]) cfg.channels = as_int(root["channels"], "channels", name);
  if (root["ch"]) cfg.channels = as_int(root["ch"], "ch", name);
  if (root["depth_multiple"]) cfg.depth = root["depth_multiple"].as<double>();
  if (root["width_multiple"]) cfg.width = root["width_multiple"].as<double>();

  if (const YAML::Node scales = root["scales"]; scales && scales.IsMap() && scales.size() > 0) {
    std::string chosen = scale;
    if (chosen.empty() || !scales[chosen]) {
      const std::string first = scales.begin()->first.as<std::string>();
      if (!chosen.empty()) {
        throw ModelError(
            fmt::format("{}: scale '{}' is not one of the YAML's scales", name, chosen));
      }
      spdlog::warn("{}: no model scale given, using scale '{}'", name, first);
      chosen = first;
    }
    const YAML::Node s = scales[chosen];
    if (!s.IsSequence() || s.size() != 3) {
      throw ModelError(
          fmt::format("{}: scale '{}' must be [depth, width, max_channels]", name, chosen));
    }
    cfg.scale = chosen;
    cfg.depth = s[0].as<double>();
    cfg.width = s[1].as<double>();
    cfg.max_channels = s[2].as<int>();
  }
  cfg.layers = parse_layers(root["backbone"], "backbone", name, 0);
  auto head = parse_layers(root["head"], "head", name, cfg.layers.size());
  cfg.layers.insert(cfg.layers.end(), head.begin(), head.end());
  if (cfg.layers.empty()) throw ModelError(fmt::format("{}: no backbone/head layers", name));
  return cfg;
}
}  // namespace

ModelConfig load_model_config(const std::string& name_or_path, std::optional<int> nc) {
  const fs::path path(name_or_path);
  const std::string file = path.filename().string();
  auto [unscaled, scale] = split_model_scale(file);
  const std::string stem = path.stem().string();

  if (fs::exists(path)) {
    std::string text;
    try {  // one reading of text files (core/text_file.h): UTF-8, a byte-order mark, CRLF
      text = read_text_file(path, "model YAML");
    } catch (const std::runtime_error& e) {
      throw ModelError(e.what());
    }
    ModelConfig cfg = parse_model_config(text, name_or_path, scale, nc);
    cfg.name = stem;
    cfg.source = name_or_path;
    return cfg;
  }
  if (path.has_parent_path() && path.parent_path() != ".") {
    throw ModelError(fmt::format("model YAML '{}' does not exist", name_or_path));
  }
  const auto& builtin = builtin_model_yaml_texts();
  auto it = builtin.find(unscaled);
  if (it == builtin.end()) {
    std::vector<std::string> names;
    for (const auto& [n, t] : builtin) {
      const std::string base = fs::path(n).stem().string();
      names.push_back(base + "{n,s,m,l,x}.yaml");
    }
    throw ModelError(fmt::format("model '{}' is neither a file nor a built-in model; built-in: {}",
                                 name_or_path, fmt::join(names, ", ")));
  }
  ModelConfig cfg = parse_model_config(it->second, "builtin:" + unscaled, scale, nc);
  cfg.name = stem;
  return cfg;
}

}  // namespace yolo
