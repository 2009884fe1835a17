// Streams added or removed over HTTP at run time, persisted so that a restart keeps them.
//
// The file records changes relative to monitor.yaml, not a full copy of it, so that editing the
// configuration still works: `added` streams (full objects, overriding a configured stream of
// the same id) and `removed` ids (configured streams deleted over the API). At start the
// service runs apply(config.streams). Written atomically (core's write_file_atomically) after
// every change:
//   {"version": 1, "added": [{"id": "cam2", "uri": "rtsp://..."}], "removed": ["cam1"]}
// Thread-safe.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "yolo/monitor/monitor_config.h"

namespace yolo::monitor {

class StreamStateFile {
 public:
  // Reads `path` when it exists (a missing file is an empty state). Throws ConfigError naming the
  // file and the problems when it is unreadable or invalid, so that a corrupt state is noticed
  // rather than silently dropped.
  explicit StreamStateFile(std::filesystem::path path);

  // The configured streams with the recorded changes applied: removed ids left out, added
  // streams replacing configured ones of the same id or appended, in the order they were added.
  std::vector<StreamConfig> apply(const std::vector<StreamConfig>& configured) const;

  // Records a stream added at run time and saves. Throws std::runtime_error when saving fails
  // (the change is then not recorded).
  void record_added(const StreamConfig& stream);
  // Records a stream removed at run time and saves. `configured`: whether monitor.yaml has it
  // (only then is the removal remembered; an added stream is simply forgotten).
  void record_removed(const std::string& id, bool configured);

  std::vector<StreamConfig> added() const;
  std::vector<std::string> removed() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  void save_locked() const;

  const std::filesystem::path path_;
  mutable std::mutex mutex_;
  std::vector<StreamConfig> added_;
  std::vector<std::string> removed_;
};

}  // namespace yolo::monitor
