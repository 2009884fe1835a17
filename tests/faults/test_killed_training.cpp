// Training killed without warning (label `faults`): kill -9 at several moments of a run, two of
// them while last.pt is being written (its temporary file exists), and each time `resume=`
// continues from the last complete last.pt. The finished run has every epoch once in results.csv,
// and no temporary file of the killed saves is left in the weights folder (the next save removes
// those of dead writers).
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "run_command.h"
#include "test_files.h"
#include "trainer_process.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

fs::file_time_type mtime(const fs::path& p) {
  std::error_code ec;
  const auto t = fs::last_write_time(p, ec);
  return ec ? fs::file_time_type::min() : t;
}

}  // namespace

TEST(KilledTraining, ResumesFromTheLastCompleteCheckpoint) {
  yolo::testing::TempDir tmp("killed_training");
  const fs::path dir = tmp.path;
  const std::string bin = YOLO_TRAINER_BIN;
  const auto synth = yolo::testing::make_tiny_dataset(bin, dir);
  ASSERT_EQ(synth.exit_code, 0) << synth.output;
  const fs::path weights = dir / "runs/train/weights";
  const std::vector<std::string> first = yolo::testing::tiny_train_args(30);
  const std::vector<std::string> resume = {"train", "resume=runs/train/weights/last.pt"};

  // Rounds 0 and 1: kill -9 a moment after a save, inside the next epoch. Rounds 2 and 3: kill -9
  // the moment the next save creates its temporary file (inotify), that is while last.pt is
  // being written.
  const auto temporaries = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(weights))
      n += e.path().filename().string().rfind(".last.pt.tmp.", 0) == 0;
    return n;
  };
  for (int round = 0; round < 4; ++round) {
    const bool mid_save = round >= 2;
    const auto before = mtime(weights / "last.pt");
    int watch = -1;
    if (mid_save) {
      watch = ::inotify_init1(IN_CLOEXEC);
      ASSERT_GE(watch, 0);
      ASSERT_GE(::inotify_add_watch(watch, weights.c_str(), IN_CREATE), 0);
    }
    const std::string log = "round" + std::to_string(round) + ".log";
    const pid_t pid = yolo::testing::start_process(bin, dir, round == 0 ? first : resume, log);
    ASSERT_GT(pid, 0);
    if (mid_save) {
      // The first .last.pt.tmp.* in the weights folder is the save.
      ASSERT_TRUE(yolo::testing::wait_for_created(watch, ".last.pt.tmp."));
      ::kill(pid, SIGKILL);
      ::close(watch);
    } else {
      bool saved = false;
      for (int i = 0; i < 6000 && !saved; ++i) {
        std::this_thread::sleep_for(10ms);
        saved = mtime(weights / "last.pt") > before;
      }
      ASSERT_TRUE(saved) << yolo::testing::read_file(dir / log);
      std::this_thread::sleep_for(std::chrono::milliseconds(50 + 100 * round));
      ::kill(pid, SIGKILL);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before the kill:\n"
                                     << yolo::testing::read_file(dir / log);
    if (mid_save) {
      EXPECT_GT(temporaries(), 0) << "not killed mid-save";
    }
  }

  // The last kill left a complete checkpoint: resume finishes the run.
  const auto done = yolo::testing::run_command("cd '" + dir.string() + "' && " + bin +
                                               " train resume=runs/train/weights/last.pt");
  ASSERT_EQ(done.exit_code, 0) << done.output;
  EXPECT_NE(done.output.find("30 epochs completed"), std::string::npos) << done.output;

  // Every epoch once, in order, in results.csv.
  std::istringstream csv(yolo::testing::read_file(dir / "runs/train/results.csv"));
  std::string line;
  std::getline(csv, line);  // header
  std::vector<int> epochs;
  while (std::getline(csv, line))
    if (!line.empty()) epochs.push_back(std::stoi(line.substr(0, line.find(','))));
  std::vector<int> expected;
  for (int e = 1; e <= 30; ++e) expected.push_back(e);
  EXPECT_EQ(epochs, expected);

  // No temporary file of a killed save is left.
  for (const auto& e : fs::directory_iterator(weights))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos)
        << "left behind: " << e.path();
  EXPECT_TRUE(fs::exists(weights / "best.pt"));
}
