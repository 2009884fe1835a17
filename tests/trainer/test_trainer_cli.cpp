// yolo-trainer as a user runs it: exit codes and the messages the Foundation issue promises.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "yolo/core/device.h"

namespace {

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

Result run_trainer(const std::string& args) {
  Result r;
  std::string cmd = std::string(YOLO_TRAINER_BIN) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool cpu_build() {
  return yolo::query_backend().flavour == yolo::BackendInfo::Flavour::kCpu;
}

}  // namespace

TEST(TrainerCli, ChecksReportsAndExitsZero) {
  Result r = run_trainer("checks");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* fact :
       {"yolo-edge", "LibTorch", "GPUs", "CPU threads", "BLAS", "OpenCV", "GStreamer"}) {
    EXPECT_NE(r.output.find(fact), std::string::npos) << fact << "\n" << r.output;
  }
  EXPECT_NE(r.output.find("Ready"), std::string::npos) << r.output;
  if (cpu_build()) {
    EXPECT_NE(r.output.find("(CPU build)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("GPUs          0"), std::string::npos) << r.output;
  }
}

TEST(TrainerCli, ThreadsKeyIsApplied) {
  Result r = run_trainer("checks threads=1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 intra-op"), std::string::npos) << r.output;
}

TEST(TrainerCli, UnsupportedDevicesExplainAndFail) {
  for (const char* dev : {"directml", "migraphx", "npu", "ryzenai", "vitis", "mps"}) {
    Result r = run_trainer(std::string("train device=") + dev);
    EXPECT_EQ(r.exit_code, 2) << dev << "\n" << r.output;
    EXPECT_NE(r.output.find("is not supported"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("because"), std::string::npos) << r.output;
  }
}

TEST(TrainerCli, MissingGpuIndexNamesWhatExists) {
  if (!cpu_build()) GTEST_SKIP() << "needs the CPU build";
  Result r = run_trainer("train device=3");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("GPU 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sees no GPU"), std::string::npos) << r.output;
}

TEST(TrainerCli, TypoSuggestsKey) {
  Result r = run_trainer("train epocs=3");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("did you mean 'epochs'"), std::string::npos) << r.output;
}

TEST(TrainerCli, HelpListsKeysWithDefaults) {
  Result r = run_trainer("help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("epochs"), std::string::npos);
  EXPECT_NE(r.output.find("number of epochs to train for"), std::string::npos);
  r = run_trainer("train help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("yolo-trainer train:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("lr0"), std::string::npos) << r.output;
}

TEST(TrainerCli, BadValueAndBadCfgFail) {
  Result r = run_trainer("train batch=abc");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("batch=abc"), std::string::npos) << r.output;
  r = run_trainer("train cfg=/nonexistent.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/nonexistent.yaml"), std::string::npos) << r.output;
}

TEST(TrainerCli, VersionPrints) {
  Result r = run_trainer("version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find('.'), std::string::npos);
}
