// Atomic writes: complete content under the final name, nothing left behind on failure.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

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

// Out of space (here a file size limit, EFBIG; a full disk is ENOSPC, same path): a SpaceError
// naming the file and the size, the old file intact, no temporary left. In a child process,
// because the limit is process-wide.
TEST_F(AtomicFile, NoSpaceIsASpaceErrorAndLosesNothing) {
  const fs::path p = dir_ / "last.pt";
  yolo::write_file_atomically(p, "old");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) std::_Exit(2);
    try {
      yolo::write_file_atomically(p, std::string(3 << 20, 'x'));
    } catch (const yolo::SpaceError& e) {
      const std::string what = e.what();
      const bool named = what.find(p.string()) != std::string::npos &&
                         what.find("3.0 MB") != std::string::npos &&
                         what.find("file size limit") != std::string::npos;
      std::_Exit(named ? 0 : 3);
    } catch (...) {
      std::_Exit(4);
    }
    std::_Exit(5);  // the write did not fail
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: setrlimit, 3: message, 4: other error, 5: no error";
  EXPECT_EQ(slurp(p), "old");
  EXPECT_EQ(files_in(dir_), 1u);
}

TEST_F(AtomicFile, CopyIsAtomicAndComplete) {
  const fs::path from = dir_ / "last.pt", to = dir_ / "best.pt";
  yolo::write_file_atomically(from, std::string(100000, 'z'));
  yolo::write_file_atomically(to, "old best");
  yolo::copy_file_atomically(from, to);
  EXPECT_EQ(slurp(to), slurp(from));
  EXPECT_THROW(yolo::copy_file_atomically(dir_ / "missing.pt", to), std::runtime_error);
  EXPECT_EQ(slurp(to), slurp(from));
  EXPECT_EQ(files_in(dir_), 2u);
}

// best.pt from last.pt: the same bytes under both names, and the next atomic write of last.pt
// (a rename) leaves best.pt as it was -- the property that makes a hard link safe here.
TEST_F(AtomicFile, LinkKeepsItsBytesWhenTheSourceIsRewritten) {
  const fs::path from = dir_ / "last.pt", to = dir_ / "best.pt";
  yolo::write_file_atomically(from, std::string(100000, 'a'));
  yolo::write_file_atomically(to, "old best");
  yolo::link_or_copy_atomically(from, to);
  EXPECT_EQ(slurp(to), std::string(100000, 'a'));
  yolo::write_file_atomically(from, "epoch 2");
  EXPECT_EQ(slurp(to), std::string(100000, 'a'));
  EXPECT_EQ(slurp(from), "epoch 2");
  yolo::link_or_copy_atomically(to, to);  // one file already: nothing to do, nothing left over
  EXPECT_EQ(slurp(to), std::string(100000, 'a'));
  EXPECT_THROW(yolo::link_or_copy_atomically(dir_ / "missing.pt", to), std::runtime_error);
  EXPECT_EQ(slurp(to), std::string(100000, 'a'));
  EXPECT_EQ(files_in(dir_), 2u);
}

// A process killed mid-write (kill -9) leaves its temporary file; the next write of the same file
// removes it, and leaves alone the temporaries of writers that still run and other files.
TEST_F(AtomicFile, TemporariesOfDeadWritersAreRemoved) {
  fs::create_directories(dir_);
  const fs::path p = dir_ / "last.pt";
  // A pid that surely ran and is gone: a child that has exited and been reaped.
  const pid_t dead = ::fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) std::_Exit(0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  const fs::path stale = dir_ / (".last.pt.tmp." + std::to_string(dead) + ".0badf00d");
  const fs::path live = dir_ / (".last.pt.tmp." + std::to_string(::getppid()) + ".00c0ffee");
  const fs::path other = dir_ / (".best.pt.tmp." + std::to_string(dead) + ".0badf00d");
  for (const auto& f : {stale, live, other}) std::ofstream(f) << "half a checkpoint";
  yolo::write_file_atomically(p, "whole");
  EXPECT_EQ(slurp(p), "whole");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live)) << "a running writer's temporary was removed";
  EXPECT_TRUE(fs::exists(other)) << "another file's temporary was removed";
}
