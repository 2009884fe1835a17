// Private: typed reads from a JSON document that collect problems (with key paths) instead of
// throwing, so that validation reports everything wrong in one go.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "yolo/monitor/monitor_config.h"

namespace yolo::monitor {

class ConfigReader {
 public:
  using json = nlohmann::json;

  void problem(const std::string& path, const std::string& message);
  const std::vector<ConfigProblem>& problems() const { return problems_; }

  static std::string join(const std::string& path, const std::string& key);
  static std::string index(const std::string& path, size_t i);

  // True when `j` is an object; reports a non-object and every key not in `allowed` (with the
  // nearest allowed key suggested).
  bool object(const json& j, const std::string& path, const std::vector<std::string>& allowed);

  // Reads obj[key] when present and not null; nullopt otherwise (and a problem when present
  // with the wrong type or out of range).
  std::optional<std::string> string(const json& obj, const std::string& path,
                                    const std::string& key, bool allow_empty = false);
  std::optional<int64_t> integer(const json& obj, const std::string& path, const std::string& key,
                                 int64_t min, int64_t max);
  std::optional<double> number(const json& obj, const std::string& path, const std::string& key,
                               double min, double max);
  std::optional<bool> boolean(const json& obj, const std::string& path, const std::string& key);
  // A number of seconds or a string such as "500ms", "10s", "2m", "1h"; >= min.
  std::optional<std::chrono::milliseconds> duration(const json& obj, const std::string& path,
                                                    const std::string& key,
                                                    std::chrono::milliseconds min);
  // Bytes as an integer or a string with a binary suffix: "512K", "100M", "1G" (also KiB...).
  std::optional<std::uint64_t> bytes(const json& obj, const std::string& path,
                                     const std::string& key);
  std::optional<std::vector<int>> class_list(const json& obj, const std::string& path,
                                             const std::string& key);

 private:
  std::vector<ConfigProblem> problems_;
};

// The key in `candidates` closest to `key` by edit distance, when it is close enough to be a
// likely typo; empty otherwise.
std::string nearest_key(const std::string& key, const std::vector<std::string>& candidates);

}  // namespace yolo::monitor
