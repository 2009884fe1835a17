// Atomic writes: complete content under the final name, nothing left behind on failure.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_files.h"
#include "yolo/core/atomic_file.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  return yolo::testing::read_file(p);
}

size_t files_in(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("yolo_atomic_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

}  // namespace

TEST_F(AtomicFile, WritesContentAndCreatesFolders) {
  fs::path p = dir_ / "a" / "b" / "result.json";
  yolo::write_file_atomically(p, "{\"x\": 1}");
  EXPECT_EQ(slurp(p), "{\"x\": 1}");
  EXPECT_EQ(files_in(p.parent_path()), 1u);
}

TEST_F(AtomicFile, ReplacesExistingFileWhole) {
  fs::path p = dir_ / "last.pt";
  yolo::write_file_atomically(p, std::string(1000, 'a'));
  yolo::write_file_atomically(p, "short");
  EXPECT_EQ(slurp(p), "short");
}

TEST_F(AtomicFile, FailedWriteLeavesOldFileAndNoTemporary) {
  fs::path p = dir_ / "best.pt";
  yolo::write_file_atomically(p, "old");
  EXPECT_THROW(yolo::write_atomically(p,
                                      [](const fs::path& tmp) {
                                        std::ofstream(tmp) << "partial";
                                        throw std::runtime_error("disk full");
                                      }),
               std::runtime_error);
  EXPECT_EQ(slurp(p), "old");
  EXPECT_EQ(files_in(dir_), 1u);
}
