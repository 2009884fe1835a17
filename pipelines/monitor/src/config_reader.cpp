#include "config_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "yolo/core/strings.h"

namespace yolo::monitor {
namespace {

using json = nlohmann::json;

std::string type_name(const json& j) {
  if (j.is_number_integer()) return "an integer";
  if (j.is_number()) return "a number";
  if (j.is_string()) return fmt::format("the string \"{}\"", j.get<std::string>());
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_array()) return "a list";
  if (j.is_object()) return "a mapping";
  return "null";
}

}  // namespace

std::string nearest_key(const std::string& key, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const auto& c : candidates) {
    const size_t d = edit_distance(key, c);
    if (d < best_distance) best_distance = d, best = c;
  }
  // Up to a third of the key's length: "stall_timout" finds "stall_timeout", "bnd" finds
  // "bind", "foo" finds nothing.
  return best_distance <= std::max<size_t>(1, key.size() / 3) ? best : std::string();
}

void ConfigReader::problem(const std::string& path, const std::string& message) {
  problems_.push_back({path, message});
}

std::string ConfigReader::join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string ConfigReader::index(const std::string& path, size_t i) {
  return fmt::format("{}[{}]", path, i);
}

bool ConfigReader::object(const json& j, const std::string& path,
                          const std::vector<std::string>& allowed) {
  if (!j.is_object()) {
    problem(path, fmt::format("expected a mapping of keys ({}), got {}", fmt::join(allowed, ", "),
                              type_name(j)));
    return false;
  }
  for (const auto& [key, value] : j.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const std::string near = nearest_key(key, allowed);
    problem(join(path, key), near.empty() ? fmt::format("unknown key (valid keys here: {})",
                                                        fmt::join(allowed, ", "))
                                          : fmt::format("unknown key; did you mean \"{}\"?", near));
  }
  return true;
}

std::optional<std::string> ConfigReader::string(const json& obj, const std::string& path,
                                                const std::string& key, bool allow_empty) {
  if (!obj.contains(key) || obj[key].is_null()) return std::nullopt;
  const json& v = obj[key];
  std::string s;
  if (v.is_string()) {
    s = v.get<std::string>();
  } else if (v.is_number_integer()) {
    s = std::to_string(v.get<int64_t>());  // device: 0, port-like ids
  } else {
    problem(join(path, key), fmt::format("expected a string, got {}", type_name(v)));
    return std::nullopt;
  }
  if (s.empty() && !allow_empty) {
    problem(join(path, key), "must not be empty");
    return std::nullopt;
  }
  return s;
}

std::optional<int64_t> ConfigReader::integer(const json& obj, const std::string& path,
                                             const std::string& key, int64_t min, int64_t max) {
  if (!obj.contains(key) || obj[key].is_null()) return std::nullopt;
  const json& v = obj[key];
  // A whole number too long for 64 bits comes as a float (or an unsigned above int64): out of
  // range, as any other value past the limits, not "not a whole number".
  const bool whole_float = v.is_number_float() && std::isfinite(v.get<double>()) &&
                           std::floor(v.get<double>()) == v.get<double>();
  if (!v.is_number_integer() && !whole_float) {
    problem(join(path, key),
            fmt::format("expected a whole number in {}..{}, got {}", min, max, type_name(v)));
    return std::nullopt;
  }
  const long double value = v.is_number_unsigned()  ? v.get<uint64_t>()
                            : v.is_number_integer() ? v.get<int64_t>()
                                                    : v.get<double>();
  if (value < min || value > max) {
    problem(join(path, key), fmt::format("{} is out of range; use {}..{}", v.dump(), min, max));
    return std::nullopt;
  }
  return static_cast<int64_t>(value);
}

std::optional<double> ConfigReader::number(const json& obj, const std::string& path,
                                           const std::string& key, double min, double max) {
  if (!obj.contains(key) || obj[key].is_null()) return std::nullopt;
  const json& v = obj[key];
  if (!v.is_number()) {
    problem(join(path, key),
            fmt::format("expected a number in {}..{}, got {}", min, max, type_name(v)));
    return std::nullopt;
  }
  const double d = v.get<double>();
  if (!(d >= min && d <= max)) {
    problem(join(path, key), fmt::format("{} is out of range; use {}..{}", d, min, max));
    return std::nullopt;
  }
  return d;
}

std::optional<bool> ConfigReader::boolean(const json& obj, const std::string& path,
                                          const std::string& key) {
  if (!obj.contains(key) || obj[key].is_null()) return std::nullopt;
  if (!obj[key].is_boolean()) {
    problem(join(path, key), fmt::format("expected true or false, got {}", type_name(obj[key])));
    return std::nullopt;
  }
  return obj[key].get<bool>();
}

std::optional<std::chrono::milliseconds> ConfigReader::duration(const json& obj,
                                                                const std::string& path,
                                                                const std::string& key,
                                                                std::chrono::milliseconds min) {
  if (!obj.contains(key) || obj[key].is_null()) return std::nullopt;
  const json& v = obj[key];
  std::chrono::milliseconds d{0};
  try {
    if (v.is_number()) {
      const double seconds = v.get<double>();
      if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e9) throw std::invalid_argument("");
      d = std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000)));
    } else if (v.is_string()) {
      d = parse_duration(v.get<std::string>());
    } else {
      throw std::invalid_argument("");
    }
  } catch (const std::invalid_argument&) {
    problem(join(path, key), fmt::format("expected a duration such as 500ms, 10s, 2m or a number "
                                         "of seconds, got {}",
                                         type_name(v)));
    return std::nullopt;
  }
  if (d < min) {
    problem(join(path, key),
            fmt::format("{} ms is too short; use at least {} ms", d.count(), min.count()));
    return std::nullopt;
  }
  return d;
}

std::optional<std::uint64_t> ConfigReader::bytes(const json& obj, const std::string& path,
                                                 const std::string& key) {
  if (!obj.contains(key) || obj[key].is_null()) return std::nullopt;
  const json& v = obj[key];
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<std::uint64_t>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    size_t digits = 0;
    while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
    std::string unit = s.substr(digits);
    std::transform(unit.begin(), unit.end(), unit.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    const std::vector<std::pair<std::vector<std::string>, int>> units = {{{"", "B"}, 0},
                                                                         {{"K", "KB", "KIB"}, 10},
                                                                         {{"M", "MB", "MIB"}, 20},
                                                                         {{"G", "GB", "GIB"}, 30}};
    if (digits > 0 && digits <= 12) {
      for (const auto& [names, shift] : units) {
        if (std::find(names.begin(), names.end(), unit) != names.end()) {
          return std::stoull(s.substr(0, digits)) << shift;
        }
      }
    }
  }
  problem(join(path, key),
          fmt::format("expected a size in bytes such as 1048576, \"512K\", \"100M\" or \"1G\", "
                      "got {}",
                      type_name(v)));
  return std::nullopt;
}

std::optional<std::vector<int>> ConfigReader::class_list(const json& obj, const std::string& path,
                                                         const std::string& key) {
  if (!obj.contains(key) || obj[key].is_null()) return std::nullopt;
  const json& v = obj[key];
  if (!v.is_array()) {
    problem(join(path, key),
            fmt::format("expected a list of class ids such as [0, 2], got {}", type_name(v)));
    return std::nullopt;
  }
  std::vector<int> out;
  bool ok = true;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_integer() || v[i].get<int64_t>() < 0 || v[i].get<int64_t>() > 100000) {
      problem(index(join(path, key), i),
              fmt::format("expected a class id (a whole number >= 0), got {}", type_name(v[i])));
      ok = false;
      continue;
    }
    out.push_back(v[i].get<int>());
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace yolo::monitor
