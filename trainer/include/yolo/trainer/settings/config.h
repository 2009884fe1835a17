// Training/validation/prediction settings: the keys of config/default.yaml, typed and validated.
//
// The schema (key names, default values, types and one-line meanings) is read from
// config/default.yaml itself, compiled into the program, so there is exactly one place where a key
// is defined. Each key's line there carries a comment "(type) meaning", for example
//   epochs: 100 # (int) number of epochs to train for
//   device:     # (str | int, optional) cpu, 0, 0,1, ...
// and numbers may carry their sane range, checked whenever the key is set (a value outside it is
// a typo or would exhaust the machine, e.g. imgsz=100000):
//   batch: 16 # (int, 1..4096) images per batch
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "yolo/core/error.h"

namespace yolo {

// Thrown for unknown keys, values of the wrong type and unreadable cfg files. what() lists every
// problem found, one per line, each naming the key and what to do.
class ConfigError : public UsageError {
 public:
  using UsageError::UsageError;
};

enum class ValueType { kNull, kBool, kInt, kFloat, kString, kList };
std::string_view to_string(ValueType type);

struct KeySpec {
  std::string name;
  std::vector<ValueType> types;  // accepted types, in the order written in the comment
  bool optional = false;         // null allowed
  std::string help;              // one-line meaning
  std::string section;           // "Train settings", "Hyperparameters", ...
  YAML::Node default_value;      // as written in default.yaml (null for empty)
  // Inclusive bounds of numeric values (each number of a list), from "(int, 1..4096)".
  std::optional<double> min, max;
};

class ConfigSchema {
 public:
  // Parses default.yaml text; throws ConfigError when a key lacks its "(type) meaning" comment.
  static ConfigSchema parse(std::string_view yaml_text);
  // The schema compiled into this program from config/default.yaml.
  static const ConfigSchema& builtin();

  const KeySpec* find(std::string_view key) const;
  const std::vector<KeySpec>& keys() const { return keys_; }
  // Up to `max` known keys closest to `key` (edit distance), best first; empty if none is close.
  std::vector<std::string> suggest(std::string_view key, size_t max = 3) const;

 private:
  std::vector<KeySpec> keys_;
  std::map<std::string, size_t, std::less<>> index_;
};

// A value as a user would write it: scalars as written, lists in flow style ([480, 640]),
// null as "null".
std::string render_value(const YAML::Node& node);

// A value parsed from command-line text the way Ultralytics does it: none/null -> null,
// true/false (any case) -> bool, integers, floats, [a, b] lists, anything else a string.
YAML::Node parse_cli_value(std::string_view text);

// A full set of settings: every schema key has a value (default or overridden).
class Config {
 public:
  explicit Config(const ConfigSchema& schema = ConfigSchema::builtin());

  // Validates and sets one value; throws ConfigError naming the key and the expected type.
  void set(std::string_view key, const YAML::Node& value);
  // Applies key=value overrides from text; every problem is collected into one ConfigError.
  void apply_text_overrides(const std::vector<std::pair<std::string, std::string>>& overrides);
  // Applies every key of a YAML mapping file (cfg=...). Unknown keys are errors.
  void apply_file(const std::string& path);

  bool is_null(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  // A `(bool, optional)` key: nullopt when it is empty (nms: empty, true and false differ).
  std::optional<bool> get_optional_bool(std::string_view key) const;
  long long get_int(std::string_view key) const;
  double get_float(std::string_view key) const;
  // Strings; numbers and bools are returned as written (device=0 -> "0"); null -> "".
  std::string get_string(std::string_view key) const;
  std::vector<long long> get_int_list(std::string_view key) const;  // int or list of ints
  ValueType type_of(std::string_view key) const;
  // True when the key was given (command line or cfg file), even if equal to its default; modes
  // whose defaults differ from training's (export's batch is 1) use it.
  bool was_set(std::string_view key) const { return explicit_keys_.count(std::string(key)) > 0; }
  const YAML::Node& node(std::string_view key) const;

  // Keys whose value differs from the default, in schema order, as "key=value".
  std::vector<std::string> overrides() const;
  // Every key with its value, in schema order, as YAML (a run's args.yaml; read back by
  // apply_file for resume).
  std::string to_yaml() const;
  const ConfigSchema& schema() const { return *schema_; }
  // A schema key, or a deprecated one that set() still maps onto its successor (end2end).
  bool accepts_key(std::string_view key) const;

 private:
  void set_deprecated_end2end(const YAML::Node& value);
  const KeySpec& spec(std::string_view key) const;
  // Returns the coerced value or an error message (empty optional = accepted as is).
  YAML::Node coerce(const KeySpec& spec, const YAML::Node& value, std::string& error) const;
  YAML::Node coerce_type(const KeySpec& spec, const YAML::Node& value, std::string& error) const;

  const ConfigSchema* schema_;
  std::map<std::string, YAML::Node, std::less<>> values_;
  std::map<std::string, ValueType, std::less<>> types_;
  std::set<std::string> explicit_keys_;
};

}  // namespace yolo
