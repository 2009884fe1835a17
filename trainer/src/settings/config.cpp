#include "yolo/trainer/settings/config.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <regex>
#include <sstream>

#include "yolo/core/strings.h"
#include "yolo/core/text_file.h"
#include "yolo/core/whole_number.h"

namespace yolo {

// Defined in the file CMake generates from config/default.yaml.
extern const char* const kDefaultConfigYaml;

namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

ValueType parse_type_name(const std::string& name) {
  if (name == "bool") return ValueType::kBool;
  if (name == "int") return ValueType::kInt;
  if (name == "float") return ValueType::kFloat;
  if (name == "str") return ValueType::kString;
  if (name == "list") return ValueType::kList;
  throw ConfigError(fmt::format("default.yaml: unknown type '{}' in a key comment", name));
}

bool is_int_text(const std::string& s) {
  static const std::regex re(R"([-+]?\d+)");
  return std::regex_match(s, re);
}

bool is_float_text(const std::string& s) {
  static const std::regex re(R"([-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf|nan))");
  return std::regex_match(lower(s), re);
}

// The type of a value as parse_cli_value() or a YAML file produced it.
ValueType classify(const YAML::Node& node) {
  if (!node || node.IsNull()) return ValueType::kNull;
  if (node.IsSequence()) return ValueType::kList;
  if (!node.IsScalar()) return ValueType::kString;  // maps are rejected by coerce()
  // A quoted YAML scalar ('0') has tag "!" and stays a string.
  if (node.Tag() == "!") return ValueType::kString;
  const std::string s = node.Scalar();
  const std::string l = lower(s);
  if (l == "true" || l == "false") return ValueType::kBool;
  if (l == "none" || l == "null" || l == "~") return ValueType::kNull;
  if (is_int_text(s)) return ValueType::kInt;
  if (is_float_text(s)) return ValueType::kFloat;
  return ValueType::kString;
}

// Why whole-number text does not fit a long long, with the key's own range when it has one (what
// the user can give instead); empty when it fits.
std::string int_range_problem(const KeySpec& spec, const std::string& text) {
  constexpr long long kMin = std::numeric_limits<long long>::min();
  constexpr long long kMax = std::numeric_limits<long long>::max();
  const WholeNumber n = read_whole_number(text, kMin, kMax);
  if (n.value) return "";
  const bool large = text.find('-') == std::string::npos;
  const std::string bound = large
                                ? (spec.max ? fmt::format("{}", *spec.max) : std::to_string(kMax))
                                : (spec.min ? fmt::format("{}", *spec.min) : std::to_string(kMin));
  return fmt::format("it is too {} (at {} {})", large ? "large" : "small", large ? "most" : "least",
                     bound);
}

// Numbers as written ("1e-3", "nan", "inf"); yaml-cpp's own conversion only knows ".nan"/".inf".
double to_double(const YAML::Node& node) {
  return std::strtod(node.Scalar().c_str(), nullptr);
}

std::string describe_types(const KeySpec& spec) {
  std::vector<std::string> names;
  for (auto t : spec.types) names.emplace_back(to_string(t));
  std::string out = fmt::format("{}", fmt::join(names, " or "));
  if (spec.optional) out += " (or empty)";
  return out;
}

}  // namespace

std::string render_value(const YAML::Node& node) {
  if (!node || node.IsNull()) return "null";
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter e;
  e.SetSeqFormat(YAML::Flow);
  e << node;
  return e.c_str();
}

std::string_view to_string(ValueType type) {
  switch (type) {
    case ValueType::kNull:
      return "null";
    case ValueType::kBool:
      return "bool";
    case ValueType::kInt:
      return "int";
    case ValueType::kFloat:
      return "float";
    case ValueType::kString:
      return "str";
    case ValueType::kList:
      return "list";
  }
  return "?";
}

ConfigSchema ConfigSchema::parse(std::string_view yaml_text) {
  ConfigSchema schema;
  static const std::regex key_line(R"(^([a-z][a-z0-9_]*):(.*)$)");
  static const std::regex comment_re(
      R"(^\(([a-z |]+?)(, optional)?(, (-?[0-9.e]+)?\.\.(-?[0-9.e]+)?)?\)\s*(.*)$)");
  static const std::regex section_re(R"(^#\s+(.+?)\s+-{3,}\s*$)");
  std::istringstream in{std::string(yaml_text)};
  std::string line, section = "General";
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::smatch m;
    if (std::regex_match(line, m, section_re)) {
      section = m[1].str();
      continue;
    }
    if (!std::regex_match(line, m, key_line)) continue;
    KeySpec spec;
    spec.name = m[1].str();
    spec.section = section;
    std::string rest = m[2].str();
    size_t hash = rest.find(" #");
    if (hash == std::string::npos) {
      throw ConfigError(fmt::format(
          "default.yaml line {}: key '{}' has no '# (type) meaning' comment", line_no, spec.name));
    }
    std::string value_text = trim(rest.substr(0, hash));
    std::string comment = trim(rest.substr(hash + 2));
    std::smatch c;
    if (!std::regex_match(comment, c, comment_re)) {
      throw ConfigError(fmt::format(
          "default.yaml line {}: comment of '{}' must start with '(type)'", line_no, spec.name));
    }
    std::stringstream types(c[1].str());
    for (std::string t; std::getline(types, t, '|');)
      spec.types.push_back(parse_type_name(trim(t)));
    spec.optional = c[2].matched;
    if (c[4].matched) spec.min = std::stod(c[4].str());
    if (c[5].matched) spec.max = std::stod(c[5].str());
    spec.help = c[6].str();
    spec.default_value =
        value_text.empty() ? YAML::Node(YAML::NodeType::Null) : YAML::Load(value_text);
    if (schema.index_.count(spec.name)) {
      throw ConfigError(
          fmt::format("default.yaml line {}: key '{}' defined twice", line_no, spec.name));
    }
    schema.index_[spec.name] = schema.keys_.size();
    schema.keys_.push_back(std::move(spec));
  }
  return schema;
}

const ConfigSchema& ConfigSchema::builtin() {
  static const ConfigSchema schema = parse(kDefaultConfigYaml);
  return schema;
}

const KeySpec* ConfigSchema::find(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &keys_[it->second];
}

std::vector<std::string> ConfigSchema::suggest(std::string_view key, size_t max) const {
  std::vector<std::string> names;
  for (const auto& k : keys_) names.push_back(k.name);
  return closest_matches(key, names, max);
}

YAML::Node parse_cli_value(std::string_view text) {
  std::string s = trim(text);
  std::string l = lower(s);
  if (s.empty() || l == "none" || l == "null") return YAML::Node(YAML::NodeType::Null);
  if (l == "true") return YAML::Node(true);
  if (l == "false") return YAML::Node(false);
  if (s.front() == '[' && s.back() == ']') {
    try {
      return YAML::Load(s);
    } catch (const YAML::Exception&) {
      // not a valid list: keep it as a string, the type check will report it
    }
  }
  return YAML::Node(s);
}

Config::Config(const ConfigSchema& schema) : schema_(&schema) {
  for (const auto& k : schema.keys()) {
    // Clone: assigning to a YAML::Node writes through to the node it refers to, so sharing the
    // schema's nodes would let set() change the defaults.
    values_.emplace(k.name, YAML::Clone(k.default_value));
    types_[k.name] = classify(k.default_value);
  }
}

const KeySpec& Config::spec(std::string_view key) const {
  const KeySpec* s = schema_->find(key);
  if (!s) {
    auto near = schema_->suggest(key);
    throw ConfigError(
        fmt::format("'{}' is not a valid key{}; see all keys with `yolo-trainer help`.", key,
                    near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near[0])));
  }
  return *s;
}

YAML::Node Config::coerce(const KeySpec& spec, const YAML::Node& value, std::string& error) const {
  YAML::Node v = coerce_type(spec, value, error);
  if (!error.empty() || (!spec.min && !spec.max)) return v;
  auto outside = [&](const YAML::Node& n) {
    const ValueType t = classify(n);
    if (t != ValueType::kInt && t != ValueType::kFloat) return false;
    const double d = to_double(n);
    return (spec.min && d < *spec.min) || (spec.max && d > *spec.max);
  };
  bool bad = outside(v);
  if (v.IsSequence())
    for (const auto& item : v) bad = bad || outside(item);
  if (bad) {
    auto bound = [](double b) { return fmt::format("{}", b); };
    const std::string range = spec.min && spec.max
                                  ? fmt::format("from {} to {}", bound(*spec.min), bound(*spec.max))
                              : spec.min ? fmt::format("of at least {}", bound(*spec.min))
                                         : fmt::format("of at most {}", bound(*spec.max));
    error = fmt::format("{}={} is out of range: '{}' takes values {} ({})", spec.name,
                        render_value(value), spec.name, range, spec.help);
    return YAML::Node();
  }
  return v;
}

YAML::Node Config::coerce_type(const KeySpec& spec, const YAML::Node& value,
                               std::string& error) const {
  const ValueType got = classify(value);
  auto accepts = [&](ValueType t) {
    return std::find(spec.types.begin(), spec.types.end(), t) != spec.types.end();
  };
  auto fail = [&](std::string_view why) {
    error = fmt::format("'{}={}' is invalid: {}. '{}' takes {}: {}", spec.name, render_value(value),
                        why, spec.name, describe_types(spec), spec.help);
    return YAML::Node();
  };
  if (value && value.IsMap()) return fail("a mapping is not a value");
  if (got == ValueType::kNull) {
    if (spec.optional) return YAML::Node(YAML::NodeType::Null);
    return fail("it cannot be empty");
  }
  if (accepts(got)) {
    if (got == ValueType::kList) {
      for (const auto& item : value) {
        if (!item.IsScalar()) return fail("lists may only hold plain values");
        if (classify(item) == ValueType::kInt)
          if (const std::string why = int_range_problem(spec, item.Scalar()); !why.empty())
            return fail(why);
      }
    }
    // More digits than an integer holds: too large (or small), not a parse failure later.
    if (got == ValueType::kInt)
      if (const std::string why = int_range_problem(spec, value.Scalar()); !why.empty())
        return fail(why);
    if (got == ValueType::kFloat && !std::isfinite(to_double(value)))
      return fail("it must be finite");
    return value;
  }
  if (got == ValueType::kInt && accepts(ValueType::kFloat)) return YAML::Node(value.Scalar());
  if (got == ValueType::kFloat && accepts(ValueType::kInt)) {
    const double d = to_double(value);
    if (std::isfinite(d) && std::floor(d) == d) {
      if (const std::string why = int_range_problem(spec, value.Scalar()); !why.empty())
        return fail(why);
      return YAML::Node(static_cast<long long>(d));
    }
    return fail("it must be a whole number");
  }
  // Strings take anything scalar as written (name=1, device=0).
  if (accepts(ValueType::kString) && got != ValueType::kList) return YAML::Node(value.Scalar());
  if (accepts(ValueType::kBool) && got != ValueType::kBool) {
    return fail(fmt::format("it must be true or false (e.g. '{}=True')", spec.name));
  }
  return fail(fmt::format("{} is not {}", to_string(got), describe_types(spec)));
}

namespace {
// Ultralytics' deprecated key that set() maps onto `nms`.
constexpr std::string_view kDeprecatedEnd2end = "end2end";
}  // namespace

void Config::set(std::string_view key, const YAML::Node& value) {
  if (key == kDeprecatedEnd2end) {
    set_deprecated_end2end(value);
    return;
  }
  const KeySpec& s = spec(key);
  std::string error;
  YAML::Node v = coerce(s, value, error);
  if (!error.empty()) throw ConfigError(error);
  values_.erase(s.name);  // rebind, never assign through (see the constructor)
  values_.emplace(s.name, YAML::Clone(v));
  types_[s.name] = classify(v);
  explicit_keys_.insert(s.name);
}

bool Config::accepts_key(std::string_view key) const {
  return key == kDeprecatedEnd2end || schema_->find(key) != nullptr;
}

// Ultralytics 8.4 replaced `end2end` by the three-state `nms` and maps the old key the same way:
// end2end=True is nms=False (the NMS-free head), end2end=False is nms=None (NMS), unless nms=True
// was asked for. Old commands and the args.yaml of older checkpoints keep working.
void Config::set_deprecated_end2end(const YAML::Node& value) {
  const ValueType got = classify(value);
  if (got == ValueType::kNull) return;
  if (got != ValueType::kBool)
    throw ConfigError(
        fmt::format("'end2end={}' is invalid: the deprecated key takes true or false "
                    "(use nms=False for the NMS-free head)",
                    render_value(value)));
  const bool end2end = value.as<bool>();
  const bool embed = get_optional_bool("nms").value_or(false);
  const YAML::Node nms = end2end ? YAML::Node(false) : embed ? YAML::Node(true) : YAML::Node();
  set("nms", nms);
  spdlog::warn("'end2end={}' is deprecated and will be removed; use 'nms={}' instead",
               end2end ? "True" : "False",
               end2end ? "False"
               : embed ? "True"
                       : "None");
}

void Config::apply_text_overrides(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> errors;
  for (const auto& [key, text] : overrides) {
    try {
      set(key, parse_cli_value(text));
    } catch (const ConfigError& e) {
      errors.push_back(e.what());
    }
  }
  if (!errors.empty()) throw ConfigError(fmt::format("{}", fmt::join(errors, "\n")));
}

void Config::apply_file(const std::string& path) {
  std::string text;
  try {  // one reading of text files (core/text_file.h): UTF-8, a byte-order mark, CRLF
    text = read_text_file(path, "cfg file");
  } catch (const std::runtime_error& e) {
    throw ConfigError(e.what());
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("cfg='{}' is not valid YAML: {} (line {}, column {})", path,
                                  e.msg, e.mark.line + 1, e.mark.column + 1));
  }
  if (root.IsNull()) return;
  if (!root.IsMap())
    throw ConfigError(fmt::format("cfg='{}' must be a mapping of key: value", path));
  std::vector<std::string> errors;
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    try {
      // Scalars from a file are re-read with the command-line rules, so "True" means true in both.
      set(key, kv.second.IsScalar() && kv.second.Tag() != "!" ? parse_cli_value(kv.second.Scalar())
                                                              : kv.second);
    } catch (const ConfigError& e) {
      errors.push_back(fmt::format("{}: {}", path, e.what()));
    }
  }
  if (!errors.empty()) throw ConfigError(fmt::format("{}", fmt::join(errors, "\n")));
}

const YAML::Node& Config::node(std::string_view key) const {
  spec(key);
  return values_.find(key)->second;
}

ValueType Config::type_of(std::string_view key) const {
  spec(key);
  return types_.find(key)->second;
}

bool Config::is_null(std::string_view key) const {
  return type_of(key) == ValueType::kNull;
}

bool Config::get_bool(std::string_view key) const {
  const YAML::Node& n = node(key);
  if (type_of(key) != ValueType::kBool) {
    throw ConfigError(fmt::format("'{}' is {}, not a bool", key, render_value(n)));
  }
  return lower(n.Scalar()) == "true";
}

std::optional<bool> Config::get_optional_bool(std::string_view key) const {
  if (is_null(key)) return std::nullopt;
  return get_bool(key);
}

long long Config::get_int(std::string_view key) const {
  const YAML::Node& n = node(key);
  if (type_of(key) != ValueType::kInt) {
    throw ConfigError(fmt::format("'{}' is {}, not an int", key, render_value(n)));
  }
  return n.as<long long>();
}

double Config::get_float(std::string_view key) const {
  const YAML::Node& n = node(key);
  ValueType t = type_of(key);
  if (t != ValueType::kFloat && t != ValueType::kInt) {
    throw ConfigError(fmt::format("'{}' is {}, not a number", key, render_value(n)));
  }
  return to_double(n);
}

std::string Config::get_string(std::string_view key) const {
  const YAML::Node& n = node(key);
  if (!n || n.IsNull()) return {};
  return render_value(n);
}

std::vector<long long> Config::get_int_list(std::string_view key) const {
  const YAML::Node& n = node(key);
  std::vector<long long> out;
  try {
    if (n.IsSequence()) {
      for (const auto& item : n) out.push_back(item.as<long long>());
    } else if (n.IsScalar()) {
      out.push_back(n.as<long long>());
    }
  } catch (const YAML::Exception&) {
    throw ConfigError(
        fmt::format("'{}={}' must be an int or a list of ints", key, render_value(n)));
  }
  return out;
}

std::vector<std::string> Config::overrides() const {
  std::vector<std::string> out;
  for (const auto& k : schema_->keys()) {
    const YAML::Node& v = values_.find(k.name)->second;
    if (render_value(v) != render_value(k.default_value))
      out.push_back(fmt::format("{}={}", k.name, render_value(v)));
  }
  return out;
}

std::string Config::to_yaml() const {
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& k : schema_->keys()) {
    const YAML::Node& v = values_.find(k.name)->second;
    out << YAML::Key << k.name << YAML::Value;
    if (v.IsNull())
      out << YAML::Null;
    else if (v.IsSequence())
      out << YAML::Flow << v;
    else
      out << v;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace yolo
