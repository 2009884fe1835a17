#include "yolo/monitor/stream_state_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "yolo/core/atomic_file.h"

namespace yolo::monitor {
namespace {

using json = nlohmann::json;
constexpr int kVersion = 1;

}  // namespace

StreamStateFile::StreamStateFile(std::filesystem::path path) : path_(std::move(path)) {
  if (!std::filesystem::exists(path_)) return;
  const std::string source = "stream state file " + path_.string();
  const std::string fix =
      "fix or delete the file (it only holds streams added or removed over "
      "the HTTP API)";
  std::ifstream in(path_, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw ConfigError(source, {{"", "cannot read it; " + fix}});
  const json doc = json::parse(text.str(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    throw ConfigError(source, {{"", "not a JSON object; " + fix}});
  }
  std::vector<ConfigProblem> problems;
  if (doc.value("version", 0) != kVersion) {
    problems.push_back({"version", fmt::format("expected {}; {}", kVersion, fix)});
  }
  if (doc.contains("added") && doc["added"].is_array()) {
    for (size_t i = 0; i < doc["added"].size(); ++i) {
      try {
        added_.push_back(stream_from_json(doc["added"][i]));
      } catch (const ConfigError& e) {
        for (const auto& p : e.problems()) {
          problems.push_back(
              {fmt::format("added[{}]{}{}", i, p.path.empty() ? "" : ".", p.path), p.message});
        }
      }
    }
  }
  if (doc.contains("removed") && doc["removed"].is_array()) {
    for (const auto& id : doc["removed"]) {
      if (id.is_string()) {
        removed_.push_back(id.get<std::string>());
      } else {
        problems.push_back({"removed", "expected a list of stream ids"});
      }
    }
  }
  if (!problems.empty()) throw ConfigError(source, problems);
}

std::vector<StreamConfig> StreamStateFile::apply(
    const std::vector<StreamConfig>& configured) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<StreamConfig> out;
  for (const auto& s : configured) {
    if (std::find(removed_.begin(), removed_.end(), s.id) == removed_.end()) out.push_back(s);
  }
  for (const auto& a : added_) {
    const auto it =
        std::find_if(out.begin(), out.end(), [&](const auto& s) { return s.id == a.id; });
    if (it != out.end()) {
      *it = a;
    } else {
      out.push_back(a);
    }
  }
  return out;
}

void StreamStateFile::record_added(const StreamConfig& stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto added = added_;
  auto removed = removed_;
  added.erase(
      std::remove_if(added.begin(), added.end(), [&](const auto& s) { return s.id == stream.id; }),
      added.end());
  added.push_back(stream);
  removed.erase(std::remove(removed.begin(), removed.end(), stream.id), removed.end());
  std::swap(added, added_);
  std::swap(removed, removed_);
  try {
    save_locked();
  } catch (...) {
    std::swap(added, added_);  // not saved: not recorded
    std::swap(removed, removed_);
    throw;
  }
}

void StreamStateFile::record_removed(const std::string& id, bool configured) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto added = added_;
  auto removed = removed_;
  added.erase(std::remove_if(added.begin(), added.end(), [&](const auto& s) { return s.id == id; }),
              added.end());
  if (configured && std::find(removed.begin(), removed.end(), id) == removed.end()) {
    removed.push_back(id);
  }
  std::swap(added, added_);
  std::swap(removed, removed_);
  try {
    save_locked();
  } catch (...) {
    std::swap(added, added_);
    std::swap(removed, removed_);
    throw;
  }
}

std::vector<StreamConfig> StreamStateFile::added() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return added_;
}

std::vector<std::string> StreamStateFile::removed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return removed_;
}

void StreamStateFile::save_locked() const {
  json added = json::array();
  for (const auto& s : added_) added.push_back(to_json(s));
  const json doc = {{"version", kVersion}, {"added", added}, {"removed", removed_}};
  write_file_atomically(path_, doc.dump(2) + "\n");
}

}  // namespace yolo::monitor
