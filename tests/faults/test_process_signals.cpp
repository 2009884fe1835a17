// Signals a real system sends to a training run (label `faults`), none of them masked by the
// test: the terminal closing (SIGHUP) stops the run like SIGTERM, with last.pt saved and a resume
// line; Ctrl-C during a save lets the save finish; a second SIGTERM ends the run at once with a
// complete checkpoint left; output into a pipe whose reader has gone (SIGPIPE) does not end the
// run half-way; SIGTERM during the final evaluation lets the complete run finish. The file size
// limit (SIGXFSZ) is covered by test_disk_full.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "run_command.h"
#include "test_files.h"
#include "trainer_process.h"

namespace fs = std::filesystem;

TEST(ProcessSignals, HangupStopsTrainingWithLastPtSaved) {
  yolo::testing::TempDir tmp("signals_hup");
  const fs::path dir = tmp.path;
  const std::string bin = YOLO_TRAINER_BIN;
  ASSERT_EQ(yolo::testing::make_tiny_dataset(bin, dir).exit_code, 0);
  const fs::path weights = dir / "runs/train/weights";
  const pid_t pid =
      yolo::testing::start_process(bin, dir, yolo::testing::tiny_train_args(40), "train.log");
  ASSERT_GE(pid, 0);
  ASSERT_TRUE(yolo::testing::wait_for_file(weights / "last.pt"))
      << yolo::testing::read_file(dir / "train.log");
  ::kill(pid, SIGHUP);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string log = yolo::testing::read_file(dir / "train.log");
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status) << "\n" << log;
  EXPECT_EQ(WEXITSTATUS(status), 0) << log;
  EXPECT_NE(log.find("SIGHUP (terminal closed) received"), std::string::npos) << log;
  EXPECT_NE(log.find("continue with: yolo-trainer train resume="), std::string::npos) << log;
  const auto info = yolo::testing::run_command("cd '" + dir.string() + "' && " + bin +
                                               " info model=runs/train/weights/last.pt");
  EXPECT_EQ(info.exit_code, 0) << info.output;
}

// A second SIGTERM (or Ctrl-C) while the first one's save runs ends the process at once, as it
// promises; the checkpoint on disk is still a complete one (saves are atomic), and the run
// resumes from it.
TEST(ProcessSignals, ASecondTermEndsAtOnceAndLeavesACompleteCheckpoint) {
  yolo::testing::TempDir tmp("signals_term_twice");
  const fs::path dir = tmp.path;
  const std::string bin = YOLO_TRAINER_BIN;
  ASSERT_EQ(yolo::testing::make_tiny_dataset(bin, dir).exit_code, 0);
  const fs::path weights = dir / "runs/train/weights";
  const pid_t pid =
      yolo::testing::start_process(bin, dir, yolo::testing::tiny_train_args(6), "train.log");
  ASSERT_GE(pid, 0);
  ASSERT_TRUE(yolo::testing::wait_for_file(weights / "last.pt"))
      << yolo::testing::read_file(dir / "train.log");
  ::kill(pid, SIGTERM);
  ::usleep(20 * 1000);
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string log = yolo::testing::read_file(dir / "train.log");
  // Either the second signal came while the first was still being handled (exit 128 + 15), or
  // the run had already saved and exited cleanly; never a crash.
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status) << "\n" << log;
  EXPECT_TRUE(WEXITSTATUS(status) == 128 + SIGTERM || WEXITSTATUS(status) == 0)
      << WEXITSTATUS(status) << "\n"
      << log;
  const auto resumed = yolo::testing::run_command("cd '" + dir.string() + "' && " + bin +
                                                  " train resume=runs/train/weights/last.pt");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
}

// Ctrl-C while last.pt is being written (its temporary file has just appeared): the save
// finishes, the run stops after it with exit 0, the checkpoint is complete and no temporary is
// left behind.
TEST(ProcessSignals, CtrlCDuringASaveLetsTheSaveFinish) {
  yolo::testing::TempDir tmp("signals_int_save");
  const fs::path dir = tmp.path;
  const std::string bin = YOLO_TRAINER_BIN;
  ASSERT_EQ(yolo::testing::make_tiny_dataset(bin, dir).exit_code, 0);
  const fs::path weights = dir / "runs/train/weights";
  fs::create_directories(weights);
  const int watch = ::inotify_init1(IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(::inotify_add_watch(watch, weights.c_str(), IN_CREATE), 0);
  const pid_t pid =
      yolo::testing::start_process(bin, dir, yolo::testing::tiny_train_args(6), "train.log");
  ASSERT_GE(pid, 0);
  // The first .last.pt.tmp.* is the first save.
  ASSERT_TRUE(yolo::testing::wait_for_created(watch, ".last.pt.tmp."));
  ::kill(pid, SIGINT);
  ::close(watch);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string log = yolo::testing::read_file(dir / "train.log");
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status) << "\n" << log;
  EXPECT_EQ(WEXITSTATUS(status), 0) << log;
  EXPECT_NE(log.find("Ctrl-C received"), std::string::npos) << log;
  for (const auto& e : fs::directory_iterator(weights))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos)
        << "left behind: " << e.path();
  const auto resumed = yolo::testing::run_command("cd '" + dir.string() + "' && " + bin +
                                                  " train resume=runs/train/weights/last.pt");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("6 epochs completed"), std::string::npos) << resumed.output;
}

TEST(ProcessSignals, AClosedOutputPipeDoesNotEndTheRun) {
  yolo::testing::TempDir tmp("signals_pipe");
  const fs::path dir = tmp.path;
  const std::string bin = YOLO_TRAINER_BIN;
  ASSERT_EQ(yolo::testing::make_tiny_dataset(bin, dir).exit_code, 0);
  // `head -1` reads the first line and exits; every later write of the trainer meets a pipe
  // without a reader. The trainer's own exit status is what counts (PIPESTATUS).
  const std::string command =
      yolo::testing::command_line(bin, yolo::testing::tiny_train_args(2, "pipe"));
  const auto r =
      yolo::testing::run_command("bash -c \"cd '" + dir.string() + "' && " + command +
                                 " 2>&1 | head -1; echo trainer exit \\${PIPESTATUS[0]}\"");
  EXPECT_NE(r.output.find("trainer exit 0"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(dir / "runs/pipe/weights/best.pt")) << r.output;
}

// SIGTERM once every epoch has run, while the final evaluation saves last.pt without its
// optimiser (the third save of last.pt in a 2-epoch run): nothing is left to interrupt, so the
// run completes (best.pt validated, exit 0), says so instead of promising a resume, and leaves
// complete checkpoints and no temporary files.
TEST(ProcessSignals, ATermDuringTheFinalEvaluationLetsTheRunComplete) {
  yolo::testing::TempDir tmp("signals_final_eval");
  const fs::path dir = tmp.path;
  const std::string bin = YOLO_TRAINER_BIN;
  ASSERT_EQ(yolo::testing::make_tiny_dataset(bin, dir).exit_code, 0);
  const fs::path weights = dir / "runs/train/weights";
  fs::create_directories(weights);
  const int watch = ::inotify_init1(IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(::inotify_add_watch(watch, weights.c_str(), IN_CREATE), 0);
  const pid_t pid =
      yolo::testing::start_process(bin, dir, yolo::testing::tiny_train_args(2), "train.log");
  ASSERT_GE(pid, 0);
  ASSERT_TRUE(yolo::testing::wait_for_created(watch, ".last.pt.tmp.", 3))
      << yolo::testing::read_file(dir / "train.log");
  ::kill(pid, SIGTERM);
  ::close(watch);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string log = yolo::testing::read_file(dir / "train.log");
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status) << "\n" << log;
  EXPECT_EQ(WEXITSTATUS(status), 0) << log;
  EXPECT_NE(log.find("SIGTERM received: every epoch has run"), std::string::npos) << log;
  EXPECT_NE(log.find("Training finished: 2 epochs"), std::string::npos) << log;
  EXPECT_EQ(log.find("resume="), std::string::npos) << "a complete run offers no resume\n" << log;
  for (const auto& e : fs::directory_iterator(weights))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos)
        << "left behind: " << e.path();
  for (const char* file : {"last.pt", "best.pt"}) {
    const auto info = yolo::testing::run_command("cd '" + dir.string() + "' && " + bin +
                                                 " info model=runs/train/weights/" + file);
    EXPECT_EQ(info.exit_code, 0) << file << "\n" << info.output;
  }
}
