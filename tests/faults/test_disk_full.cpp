// A checkpoint save that runs out of space (label `faults`): the training stops with a message
// that names the file and the space it needs, the checkpoints saved before stay byte for byte
// what they were (and loadable), no temporary file is left behind, and resume=True continues once
// there is space. The shortage is a file size limit (`ulimit -f`, RLIMIT_FSIZE: writes beyond it
// fail with EFBIG, SIGXFSZ ignored), which needs no privileges or small filesystem; a real full
// disk (ENOSPC, also when only fsync reports it) takes the same path in write_file_atomically.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_command.h"
#include "test_files.h"
#include "trainer_process.h"

namespace fs = std::filesystem;

TEST(DiskFull, ACheckpointThatDoesNotFitLosesNothing) {
  yolo::testing::TempDir tmp("disk_full");
  const fs::path dir = tmp.path;
  const std::string bin = YOLO_TRAINER_BIN;
  const auto synth = yolo::testing::make_tiny_dataset(bin, dir);
  ASSERT_EQ(synth.exit_code, 0) << synth.output;

  // 1. A run interrupted after its first epoch: a resumable last.pt and a best.pt.
  const fs::path weights = dir / "runs/train/weights";
  const pid_t pid =
      yolo::testing::start_process(bin, dir, yolo::testing::tiny_train_args(12), "first.log");
  ASSERT_GE(pid, 0);
  ASSERT_TRUE(yolo::testing::wait_for_file(weights / "last.pt"))
      << yolo::testing::read_file(dir / "first.log");
  ::kill(pid, SIGTERM);  // saves last.pt after the current batch and exits 0
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << yolo::testing::read_file(dir / "first.log");
  const std::string last_before = yolo::testing::read_file(weights / "last.pt");
  const std::string best_before = yolo::testing::read_file(weights / "best.pt");
  ASSERT_GT(last_before.size(), 1u << 20);

  // 2. Resumed with files limited to 1 MB: the next checkpoint cannot be written. SIGXFSZ is
  // left as a shell under such a limit leaves it (it would end a process mid-write): the trainer
  // itself must turn it into an error it can report.
  const auto full = yolo::testing::run_command("cd '" + dir.string() + "' && ulimit -f 1024 && " +
                                               bin + " train resume=runs/train/weights/last.pt");
  EXPECT_NE(full.exit_code, 0) << full.output;
  EXPECT_NE(full.output.find("file size limit"), std::string::npos) << full.output;
  EXPECT_NE(full.output.find("last.pt"), std::string::npos) << full.output;
  EXPECT_NE(full.output.find("MB"), std::string::npos) << "the size needed\n" << full.output;
  EXPECT_NE(full.output.find("resume=True"), std::string::npos) << full.output;
  EXPECT_EQ(full.output.find("terminate called"), std::string::npos) << full.output;
  EXPECT_EQ(yolo::testing::read_file(weights / "last.pt"), last_before) << "last.pt changed";
  EXPECT_EQ(yolo::testing::read_file(weights / "best.pt"), best_before) << "best.pt changed";
  for (const auto& e : fs::directory_iterator(weights))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos)
        << "left behind: " << e.path();

  // 3. With space again, resume finishes the run from the kept checkpoint.
  const auto resumed = yolo::testing::run_command("cd '" + dir.string() + "' && " + bin +
                                                  " train resume=runs/train/weights/last.pt");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("12 epochs completed"), std::string::npos) << resumed.output;
}

// The very first checkpoint does not fit: nothing was ever saved, so the message must not offer
// a resume from a file that does not exist, and no temporary file is left.
TEST(DiskFull, AFirstCheckpointThatDoesNotFitOffersNoResume) {
  yolo::testing::TempDir tmp("disk_full_first");
  const fs::path dir = tmp.path;
  const std::string bin = YOLO_TRAINER_BIN;
  const auto synth = yolo::testing::make_tiny_dataset(bin, dir);
  ASSERT_EQ(synth.exit_code, 0) << synth.output;
  const auto full = yolo::testing::run_command(
      "cd '" + dir.string() + "' && ulimit -f 1024 && " +
      yolo::testing::command_line(bin, yolo::testing::tiny_train_args(2)));
  EXPECT_EQ(full.exit_code, 1) << full.output;
  EXPECT_NE(full.output.find("file size limit"), std::string::npos) << full.output;
  EXPECT_NE(full.output.find("nothing to resume from"), std::string::npos) << full.output;
  EXPECT_EQ(full.output.find("resume=True continues"), std::string::npos) << full.output;
  const fs::path weights = dir / "runs/train/weights";
  if (fs::exists(weights)) {
    for (const auto& e : fs::directory_iterator(weights))
      EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos)
          << "left behind: " << e.path();
  }
}
