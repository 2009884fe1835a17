// yolo-trainer as a user runs it: exit codes and the messages the Foundation issue promises.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_command.h"
#include "test_files.h"
#include "yolo/core/cpu_features.h"
#include "yolo/core/device.h"

namespace {

using Result = yolo::testing::CommandResult;

Result run_trainer(const std::string& args, const std::string& cwd = ".") {
  return yolo::testing::run_command("cd '" + cwd + "' && " + std::string(YOLO_TRAINER_BIN) + " " +
                                    args);
}

// No GPU visible: a CPU LibTorch, or a GPU build (the CUDA torch wheel) on a machine without one.
bool no_gpu() {
  return yolo::query_backend().gpus.empty();
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
  const yolo::BackendInfo backend = yolo::query_backend();
  EXPECT_NE(r.output.find(backend.torch_version + " (" + backend.flavour_name() + " build)"),
            std::string::npos)
      << r.output;
  if (no_gpu()) {
    EXPECT_NE(r.output.find("GPUs          0"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Ready for CPU"), std::string::npos) << r.output;
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
  if (!no_gpu()) GTEST_SKIP() << "needs a machine without GPUs";
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

TEST(TrainerCli, InfoPrintsTableAndBothSummaries) {
  Result r = run_trainer("info model=yolo26n.yaml imgsz=640");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("YOLO26n summary: 24 layers, 2,572,280 parameters"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("YOLO26n summary (fused)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("5.4 GFLOPs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("C2PSA"), std::string::npos) << r.output;
}

TEST(TrainerCli, ExportWritesALoadableFileAndRejectsOtherFormats) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "yolo_cli_export";
  fs::remove_all(dir);
  fs::create_directories(dir);
  Result r = run_trainer("export model=yolov8n.yaml imgsz=160 device=cpu", dir.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir / "yolov8n.torchscript")) << r.output;
  EXPECT_NE(r.output.find("export success"), std::string::npos) << r.output;
  // The exported file is a valid model= for info (unfused back into the architecture).
  r = run_trainer("info model=yolov8n.torchscript imgsz=160", dir.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("3,157,200 parameters"), std::string::npos) << r.output;

  r = run_trainer("export model=yolov8n.yaml format=onnx", dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("torchscript"), std::string::npos) << r.output;
  r = run_trainer("export model=yolov8n.yaml format=migraphx", dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("MIGraphX is AMD's inference graph compiler"), std::string::npos);
}

TEST(TrainerCli, BadModelFilesFailCleanly) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "yolo_cli_bad_models";
  fs::create_directories(dir);
  std::ofstream(dir / "junk.torchscript") << "not a model";
  std::ofstream(dir / "bad.yaml") << "nc: 2\nbackbone:\n  - [-1, 1, Nope, [16]]\nhead: []\n";
  Result r = run_trainer("info model=junk.torchscript", dir.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("not a TorchScript model"), std::string::npos) << r.output;
  r = run_trainer("info model=bad.yaml", dir.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("layer 0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("unknown module 'Nope'"), std::string::npos) << r.output;
  r = run_trainer("info model=missing.pt", dir.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
}

TEST(TrainerCli, SynthWritesAUsableDataset) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "yolo_cli_synth";
  fs::remove_all(dir);
  Result r = run_trainer("synth dir=" + dir.string() + " images=8 imgsz=96 nc=2 seed=3");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir / "data.yaml")) << r.output;
  EXPECT_NE(r.output.find("8 train + 2 val images"), std::string::npos) << r.output;
  size_t n = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(dir / "labels" / "train")) ++n;
  EXPECT_EQ(n, 8u);
  r = run_trainer("synth dir=" + dir.string() + " nc=12");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// The log says which arithmetic a CPU training uses: BF16 autocast where the CPU computes BF16
// natively (and amp=True, the default), FP32 with the reason otherwise.
TEST(TrainerCli, TrainingSaysItsPrecision) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() /
                       ("yolo_cli_precision_" + std::to_string(static_cast<long>(::getpid())));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ASSERT_EQ(run_trainer("synth dir=data images=8 imgsz=96 nc=2", dir.string()).exit_code, 0);
  const std::string common =
      "train model=yolov8n.yaml data=data/data.yaml imgsz=64 epochs=1 batch=4 device=cpu "
      "plots=False val=False exist_ok=True ";
  Result on = run_trainer(common + "name=amp", dir.string());
  EXPECT_EQ(on.exit_code, 0) << on.output;
  if (yolo::cpu_features().native_bf16()) {
    EXPECT_NE(on.output.find("BF16 autocast on the CPU (" + yolo::cpu_features().describe() + ")"),
              std::string::npos)
        << on.output;
  } else {
    EXPECT_NE(on.output.find("no native BF16"), std::string::npos) << on.output;
    EXPECT_NE(on.output.find("training runs in FP32"), std::string::npos) << on.output;
  }
  Result off = run_trainer(common + "name=fp32 amp=False", dir.string());
  EXPECT_EQ(off.exit_code, 0) << off.output;
  EXPECT_NE(off.output.find("AMP is off (amp=False): training runs in FP32"), std::string::npos)
      << off.output;
  EXPECT_EQ(off.output.find("BF16"), std::string::npos) << off.output;
  fs::remove_all(dir);
}

// Settings that leave nothing to train or measure are refused before any work, naming the
// setting and the numbers (#57): a class the dataset lacks, a class with no labelled object in
// the split, a fraction that keeps no image; in train and in val.
TEST(TrainerCli, SubsetSettingsThatLeaveNothingSaySo) {
  const yolo::testing::TempDir tmp("cli_subsets");
  const std::filesystem::path& dir = tmp.path;
  ASSERT_EQ(run_trainer("synth dir=data images=8 imgsz=96 nc=2", dir.string()).exit_code, 0);
  // The synthetic labels use classes 0 and 1; class 2 is named but never labelled.
  {
    std::ofstream yaml(dir / "three.yaml");
    yaml << "path: " << (dir / "data").string()
         << "\ntrain: images/train\nval: images/val\nnames: {0: a, 1: b, 2: never}\n";
  }
  const std::string train =
      "train model=yolov8n.yaml data=three.yaml imgsz=64 epochs=1 batch=4 device=cpu "
      "plots=False exist_ok=True ";
  Result r = run_trainer(train + "classes=2", dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("classes=2 keeps no labelled object of the 'train' split"),
            std::string::npos)
      << r.output;
  r = run_trainer(train + "classes=[1,7]", dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("classes=1,7: 7 is not a class of"), std::string::npos) << r.output;
  r = run_trainer(train + "fraction=0.01", dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("fraction=0.01 of the "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("leaves 0"), std::string::npos) << r.output;

  ASSERT_EQ(run_trainer("export model=yolov8n.yaml imgsz=64 device=cpu", dir.string()).exit_code,
            0);
  r = run_trainer("val model=yolov8n.torchscript data=three.yaml classes=2 plots=False",
                  dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("classes=2 keeps no labelled object of the 'val' split"),
            std::string::npos)
      << r.output;
}

// Ctrl-C (SIGINT) during training: the current batch finishes, last.pt is saved, exit 0, and the
// message says how to resume.
TEST(TrainerCli, SigintSavesLastPtAndExitsCleanly) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("yolo_cli_sigint_" + std::to_string(static_cast<long>(::getpid())));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Result synth = run_trainer("synth dir=data images=16 imgsz=96 nc=2", dir.string());
  ASSERT_EQ(synth.exit_code, 0) << synth.output;
  // Start training as our child, send SIGINT once the first epoch is under way.
  const std::string log = (dir / "train.log").string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) std::_Exit(126);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execl(YOLO_TRAINER_BIN, YOLO_TRAINER_BIN, "train", "model=yolov8n.yaml",
            "data=data/data.yaml", "imgsz=64", "epochs=50", "batch=2", "workers=1", "device=cpu",
            "plots=False", static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  // Wait (up to 120 s) until the first epoch has written last.pt, then interrupt.
  const auto last = dir / "runs/detect/train/weights/last.pt";
  for (int i = 0; i < 1200 && !std::filesystem::exists(last); ++i) ::usleep(100 * 1000);
  ASSERT_TRUE(std::filesystem::exists(last));
  ::kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::ifstream in(log);
  const std::string output((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(output.find("saving last.pt"), std::string::npos) << output;
  EXPECT_NE(output.find("resume="), std::string::npos) << output;
  EXPECT_NE(output.find("Training stopped after"), std::string::npos) << output;
  std::filesystem::remove_all(dir);
}
