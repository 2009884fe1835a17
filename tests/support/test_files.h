// Small file helpers shared by the test suites: a temporary folder that cleans up after itself,
// and whole-file reads and writes.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace yolo::testing {

// A fresh folder under the system temp dir, unique per test name and process, removed at scope
// exit.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("yolo_test_" + name + "_" + std::to_string(static_cast<long>(::getpid())))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path path;
};

// Writes bytes to p, creating parent folders.
inline void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace yolo::testing
