// Private: a YAML document as JSON, so that monitor.yaml and the JSON stream objects of the HTTP
// API go through one validator.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

namespace yolo::monitor {

// Plain (unquoted) scalars become null, booleans, integers or doubles when they read as such
// in YAML 1.2's core schema (null/~/empty, true/false, 12, -3, 1.5, 1e3); quoted scalars always
// stay strings. Maps keep their keys as strings.
nlohmann::json yaml_to_json(const YAML::Node& node);

}  // namespace yolo::monitor
