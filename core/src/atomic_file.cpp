#include "yolo/core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace yolo {
namespace fs = std::filesystem;
namespace {

void fsync_dir(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // best effort: some filesystems do not allow opening folders
  ::fsync(fd);
  ::close(fd);
}

double megabytes(uintmax_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// Throws the error for a failed write of `size` bytes to `path` (errno `err`) through the
// temporary file `tmp` (closed by the caller). The temporary goes first: the free space it held
// is free again, and saying "0.0 MB are free" while it still filled the disk pointed the wrong way.
[[noreturn]] void throw_write_error(const fs::path& path, size_t size, int err,
                                    const fs::path& tmp = {}) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (!tmp.empty()) fs::remove(tmp, ec);
  if (err == ENOSPC || err == EDQUOT) {
    const fs::space_info space = fs::space(dir, ec);
    const std::string left =
        ec ? std::string()
           : fmt::format(" and {:.1f} MB are free there", megabytes(space.available));
    throw SpaceError(fmt::format(
        "no space left on the device of '{}' ({}): writing it needs {:.1f} MB{}; free some space "
        "(or write elsewhere) and try again",
        path.string(), std::strerror(err), megabytes(size), left));
  }
  if (err == EFBIG) {
    throw SpaceError(fmt::format(
        "'{}' would exceed this process's file size limit ({}; see ulimit -f): writing it "
        "needs {:.1f} MB",
        path.string(), std::strerror(err), megabytes(size)));
  }
  throw std::runtime_error(fmt::format("cannot write '{}' ({:.1f} MB): {}", path.string(),
                                       megabytes(size), std::strerror(err)));
}

// Flushes the temporary file `tmp` of `path` to the disk. With delayed allocation a full disk may
// show only here, so the error is thrown like a failed write.
void sync_file(const fs::path& tmp, const fs::path& path) {
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // the writer already reported what stopped it from writing
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    const int err = errno;
    ::close(fd);
    std::error_code ec;
    const uintmax_t size = fs::file_size(tmp, ec);
    throw_write_error(path, ec ? 0 : size, err, tmp);
  }
  ::close(fd);
}

fs::path temp_name(const fs::path& path) {
  std::random_device rd;
  return path.parent_path() /
         fmt::format(".{}.tmp.{}.{:08x}", path.filename().string(), ::getpid(), rd());
}

// Removes temporary files of `path` left by processes that died mid-write (kill -9, power loss):
// ".<name>.tmp.<pid>.<hex>" whose pid no longer runs. Without this a trainer killed during saves
// would leave a checkpoint-sized file behind each time. Best effort: errors are ignored.
void remove_stale_temporaries(const fs::path& path) {
  const std::string prefix = "." + path.filename().string() + ".tmp.";
  std::error_code ec;
  for (fs::directory_iterator it(path.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    char* stop = nullptr;
    const long pid = std::strtol(rest.c_str(), &stop, 10);
    if (pid <= 0 || stop == rest.c_str() || *stop != '.' || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // still running
    std::error_code remove_ec;
    fs::remove(it->path(), remove_ec);
  }
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
  remove_stale_temporaries(dir / path.filename());
  const fs::path tmp = temp_name(dir / path.filename());
  try {
    write(tmp);
    sync_file(tmp, path);
    fs::rename(tmp, path);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  fsync_dir(dir);
}

void write_file_atomically(const fs::path& path, std::string_view content) {
  write_atomically(path, [&](const fs::path& tmp) {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw_write_error(path, content.size(), errno);
    size_t done = 0;
    while (done < content.size()) {
      const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int err = n < 0 ? errno : ENOSPC;
        ::close(fd);
        throw_write_error(path, content.size(), err, tmp);
      }
      done += static_cast<size_t>(n);
    }
    if (::close(fd) != 0) throw_write_error(path, content.size(), errno, tmp);
  });
}

void link_or_copy_atomically(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  if (fs::equivalent(from, to, ec)) return;  // already one file (rename would keep both names)
  const fs::path dir = to.has_parent_path() ? to.parent_path() : fs::path(".");
  fs::create_directories(dir, ec);
  remove_stale_temporaries(dir / to.filename());
  const fs::path tmp = temp_name(dir / to.filename());
  // EXDEV (another filesystem), EPERM/ENOTSUP (no hard links there), ...: copy instead.
  if (::link(from.c_str(), tmp.c_str()) != 0) return copy_file_atomically(from, to);
  if (::rename(tmp.c_str(), to.c_str()) != 0) {
    const int err = errno;
    fs::remove(tmp, ec);
    throw std::runtime_error(fmt::format("cannot replace '{}' with '{}': {}", to.string(),
                                         from.string(), std::strerror(err)));
  }
  fsync_dir(dir);
}

void copy_file_atomically(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(from, ec);
  if (ec) {
    throw std::runtime_error(fmt::format("cannot read '{}' to copy it to '{}': {}", from.string(),
                                         to.string(), ec.message()));
  }
  write_atomically(to, [&](const fs::path& tmp) {
    // The kernel copies (copy_file_range/sendfile): no pass through this process's memory.
    std::error_code copy_ec;
    fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, copy_ec);
    if (copy_ec) throw_write_error(to, size, copy_ec.value(), tmp);
  });
}

}  // namespace yolo
