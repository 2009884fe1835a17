#include "yolo/core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace yolo {
namespace fs = std::filesystem;
namespace {

void fsync_path(const fs::path& p, bool directory) {
  int fd = ::open(p.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return;  // best effort: some filesystems do not allow opening folders
  ::fsync(fd);
  ::close(fd);
}

fs::path temp_name(const fs::path& path) {
  std::random_device rd;
  return path.parent_path() /
         fmt::format(".{}.tmp.{}.{:08x}", path.filename().string(), ::getpid(), rd());
}

}  // namespace

void write_atomically(const fs::path& path, const std::function<void(const fs::path&)>& write) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw std::runtime_error(fmt::format("cannot create folder '{}' for '{}': {}", dir.string(),
                                         path.string(), ec.message()));
  }
  const fs::path tmp = temp_name(dir / path.filename());
  try {
    write(tmp);
    fsync_path(tmp, false);
    fs::rename(tmp, path);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  fsync_path(dir, true);
}

void write_file_atomically(const fs::path& path, std::string_view content) {
  write_atomically(path, [&](const fs::path& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      throw std::runtime_error(
          fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
    }
  });
}

}  // namespace yolo
