#include "yolo/monitor/snapshot_archive.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <stdexcept>
#include <string_view>

#include "yolo/core/atomic_file.h"

namespace yolo::monitor {
namespace {

namespace fs = std::filesystem;

// 20261130T054425.123Z: sortable, and free of ':' (not allowed in file names everywhere).
std::string file_stamp(std::chrono::system_clock::time_point t) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%S", &utc);
  return fmt::format("{}.{:03d}Z", buf, static_cast<int>(ms % 1000));
}

}  // namespace

SnapshotArchiveOptions snapshot_archive_options(const SnapshotOutputConfig& config) {
  return {config.directory, config.interval, config.keep_per_stream};
}

SnapshotArchive::SnapshotArchive(SnapshotArchiveOptions options) : options_(std::move(options)) {
  if (options_.directory.empty()) {
    throw std::invalid_argument(
        "snapshot archive: directory is empty; set "
        "outputs.snapshots.directory");
  }
  if (options_.interval.count() <= 0) {
    throw std::invalid_argument("snapshot archive: interval must be > 0");
  }
  if (options_.keep_per_stream < 1) {
    throw std::invalid_argument("snapshot archive: keep_per_stream must be >= 1");
  }
}

bool SnapshotArchive::due(const std::string& stream_id, SteadyClock::time_point now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = last_saved_.find(stream_id);
  return it == last_saved_.end() || now - it->second >= options_.interval;
}

fs::path SnapshotArchive::save(const std::string& stream_id, const std::vector<unsigned char>& jpeg,
                               WallClock::time_point taken, SteadyClock::time_point now) {
  // Stream ids are validated ([A-Za-z0-9_.-], no leading dot), so they are safe folder names;
  // checked again here because this class may be used on its own.
  if (stream_id.empty() || stream_id[0] == '.' || stream_id.find('/') != std::string::npos) {
    throw std::invalid_argument("snapshot archive: \"" + stream_id +
                                "\" cannot be used as a folder name");
  }
  const fs::path folder = options_.directory / stream_id;
  const fs::path file = folder / (file_stamp(taken) + ".jpg");
  try {
    write_file_atomically(
        file, std::string_view(reinterpret_cast<const char*>(jpeg.data()), jpeg.size()));
  } catch (const std::exception& e) {
    throw std::runtime_error(
        fmt::format("snapshot archive: cannot save {}: {}; check "
                    "outputs.snapshots.directory and its permissions",
                    file.string(), e.what()));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last_saved_[stream_id] = now;
  }
  prune(folder);
  return file;
}

void SnapshotArchive::forget(const std::string& stream_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_saved_.erase(stream_id);
}

void SnapshotArchive::prune(const fs::path& folder) const {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    // Only our own files: not temporaries of a write in progress (".name.tmp..."), not others.
    if (entry.is_regular_file() && name[0] != '.' && entry.path().extension() == ".jpg") {
      files.push_back(entry.path());
    }
  }
  if (files.size() <= static_cast<size_t>(options_.keep_per_stream)) return;
  std::sort(files.begin(), files.end());
  const size_t excess = files.size() - static_cast<size_t>(options_.keep_per_stream);
  for (size_t i = 0; i < excess; ++i) fs::remove(files[i], ec);
}

}  // namespace yolo::monitor
