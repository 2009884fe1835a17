// Saved snapshots with retention (outputs.snapshots in monitor.yaml): at most one annotated JPEG
// per stream per interval, written atomically to
//   <directory>/<stream id>/<UTC time>.jpg     e.g. cam1/20261130T054425.123Z.jpg
// and only the newest keep_per_stream files of a stream are kept (names sort by time, so the
// oldest go first). The in-memory latest snapshot for the HTTP API is SnapshotStore's job; this
// is the history on disk. Thread-safe.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "yolo/monitor/monitor_config.h"

namespace yolo::monitor {

struct SnapshotArchiveOptions {
  std::filesystem::path directory;            // required; created when missing
  std::chrono::milliseconds interval{10000};  // per stream, between saved snapshots (> 0)
  int keep_per_stream = 100;                  // newest files kept per stream (>= 1)
};
SnapshotArchiveOptions snapshot_archive_options(const SnapshotOutputConfig& config);

class SnapshotArchive {
 public:
  using SteadyClock = std::chrono::steady_clock;
  using WallClock = std::chrono::system_clock;

  // Throws std::invalid_argument for options outside the ranges above.
  explicit SnapshotArchive(SnapshotArchiveOptions options);

  // Whether the stream is due for a saved snapshot at `now`: never saved, or `interval` has
  // passed since its last one. Cheap: call it per frame, and encode only when it says so.
  bool due(const std::string& stream_id, SteadyClock::time_point now) const;

  // Saves `jpeg` for the stream as taken at `taken` (names the file), counts it as the stream's
  // latest at `now`, and deletes the stream's oldest files beyond keep_per_stream. Returns the
  // file's path. Throws std::runtime_error naming the file when it cannot be written.
  std::filesystem::path save(const std::string& stream_id, const std::vector<unsigned char>& jpeg,
                             WallClock::time_point taken, SteadyClock::time_point now);

  // A stream that was removed: its timer goes (its files stay, and age out if it comes back).
  void forget(const std::string& stream_id);

 private:
  void prune(const std::filesystem::path& folder) const;

  const SnapshotArchiveOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, SteadyClock::time_point> last_saved_;
};

}  // namespace yolo::monitor
