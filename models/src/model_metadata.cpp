#include "yolo/models/model_metadata.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <regex>

#include "yolo/core/whole_number.h"

namespace yolo {
using nlohmann::json;

json ModelMetadata::to_json() const {
  json names_json = json::object();
  for (const auto& [id, name] : names) names_json[std::to_string(id)] = name;
  return json{{"description", description},
              {"author", author},
              {"date", date},
              {"version", version},
              {"license", license},
              {"docs", docs},
              {"stride", stride},
              {"task", task},
              {"batch", batch},
              {"imgsz", imgsz},
              {"names", names_json},
              {"args", args},
              {"channels", channels},
              {"end2end", end2end}};
}

namespace {

// A Python literal such as "{0: 'person', 1: 'car'}" or "[640, 640]" -> JSON.
json parse_python_literal(std::string text) {
  static const std::regex int_key(R"(([\{,]\s*)(-?\d+)\s*:)");
  text = std::regex_replace(text, int_key, "$1\"$2\":");
  std::string out;
  bool in_double = false;
  for (char c : text) {
    if (c == '"') in_double = !in_double;
    out.push_back(c == '\'' && !in_double ? '"' : c);
  }
  out = std::regex_replace(out, std::regex(R"(\bTrue\b)"), "true");
  out = std::regex_replace(out, std::regex(R"(\bFalse\b)"), "false");
  out = std::regex_replace(out, std::regex(R"(\bNone\b)"), "null");
  return json::parse(out);
}

json maybe_literal(const json& j) {
  return j.is_string() ? parse_python_literal(j.get<std::string>()) : j;
}

int64_t to_int(const json& j) {
  constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
  if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(kInt64Max))
    throw std::invalid_argument(out_of_range_problem(
        j.dump(), j.get<uint64_t>(), std::numeric_limits<int64_t>::min(), kInt64Max));
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_float()) {
    // A float far outside int64 would be undefined behaviour to convert.
    constexpr int64_t kLimit = 1000000000000000;  // 1e15, far beyond any size a file holds
    const double d = j.get<double>();
    if (!std::isfinite(d) || d != std::floor(d))
      throw std::invalid_argument(fmt::format("{} is not a whole number", j.dump()));
    if (!(d >= -kLimit && d <= kLimit))
      throw std::invalid_argument(out_of_range_problem(j.dump(), d, -kLimit, kLimit));
    return static_cast<int64_t>(d);
  }
  if (j.is_string()) {
    const WholeNumber n =
        read_whole_number(j.get<std::string>(), std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max());
    if (!n.value) throw std::invalid_argument(n.problem);
    return *n.value;
  }
  if (j.is_array() && !j.empty()) return to_int(j.back());  // Ultralytics' stride may be a list
  throw std::invalid_argument("not an integer");
}

// `value` of `key`, refused outside [lo, hi] (a damaged or hand-edited file must not size
// buffers or loops from it).
int64_t in_range(const char* key, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi)
    throw std::invalid_argument(fmt::format("{} is {}, outside {}..{}", key, value, lo, hi));
  return value;
}

}  // namespace

ModelMetadata ModelMetadata::from_json_text(const std::string& text, const std::string& source) {
  ModelMetadata m;
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw CheckpointError(
        fmt::format("'{}': metadata config.txt is not valid JSON ({})", source, e.what()));
  }
  try {
    auto str = [&](const char* key, std::string& out) {
      if (j.contains(key) && j[key].is_string()) out = j[key].get<std::string>();
    };
    str("description", m.description);
    str("author", m.author);
    str("date", m.date);
    str("version", m.version);
    str("task", m.task);
    if (j.contains("stride")) m.stride = in_range("stride", to_int(j["stride"]), 1, 1024);
    if (j.contains("batch")) m.batch = in_range("batch", to_int(j["batch"]), 1, 4096);
    if (j.contains("channels")) m.channels = in_range("channels", to_int(j["channels"]), 1, 64);
    if (j.contains("imgsz")) {
      json s = maybe_literal(j["imgsz"]);
      if (s.is_number()) {
        m.imgsz = {to_int(s), to_int(s)};
      } else if (s.is_array() && s.size() == 2) {
        m.imgsz = {to_int(s[0]), to_int(s[1])};
      } else if (s.is_array() && s.size() == 1) {
        m.imgsz = {to_int(s[0]), to_int(s[0])};
      } else {
        throw std::invalid_argument("imgsz must be [h, w] or an int");
      }
      for (int64_t& v : m.imgsz) v = in_range("imgsz", v, 1, 16384);
    }
    if (j.contains("names")) {
      json n = maybe_literal(j["names"]);
      if (n.is_object()) {
        for (auto it = n.begin(); it != n.end(); ++it)
          m.names[static_cast<int>(in_range("a class id", std::stoll(it.key()), 0, 99999))] =
              it.value().get<std::string>();
      } else if (n.is_array()) {
        for (size_t i = 0; i < n.size(); ++i)
          m.names[static_cast<int>(i)] = n[i].get<std::string>();
      } else {
        throw std::invalid_argument("names must be a mapping or a list");
      }
    }
    if (j.contains("end2end")) {
      json e = maybe_literal(j["end2end"]);
      m.end2end = e.is_boolean() ? e.get<bool>() : false;
    }
    if (j.contains("args")) m.args = maybe_literal(j["args"]);
  } catch (const std::exception& e) {
    throw CheckpointError(
        fmt::format("'{}': unusable metadata in config.txt: {}", source, e.what()));
  }
  if (m.task != "detect") {
    throw CheckpointError(
        fmt::format("'{}' is a '{}' model; only detection models are supported", source, m.task));
  }
  return m;
}

std::string describe_classes(const std::map<int, std::string>& names) {
  std::string out;
  int listed = 0;
  for (const auto& [id, name] : names) {
    if (listed++ == 20) return out + ", ...";
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", id, name);
  }
  return out;
}

}  // namespace yolo
