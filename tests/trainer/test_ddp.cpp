// Data-parallel training on the CPU: two Gloo worker processes on 127.0.0.1, started by
// `yolo-trainer train device=cpu world=2`, against one process on the same global batch.
//
// The reference is one process with batch 2 and gradient accumulation over the same four images
// (nbs=4 -> two micro-batches per step): BatchNorm statistics are per rank in DDP (as in
// Ultralytics, which has no SyncBatchNorm), so the one-process equivalent of a 2 x 2 DDP step is
// two micro-batches of 2 accumulated into one step, not one batch of 4.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "run_command.h"
#include "test_files.h"
#include "yolo/models/checkpoint.h"
#include "yolo/synth/synthetic_data.h"

namespace fs = std::filesystem;

namespace {

using Result = yolo::testing::CommandResult;

Result run(const std::string& cmd) {
  return yolo::testing::run_command(cmd);
}

}  // namespace

TEST(Ddp, TwoGlooProcessesMatchOneProcessOnTheSameBatch) {
  yolo::testing::TempDir tmp("ddp");
  yolo::synth::SynthOptions o;
  o.dir = tmp.path / "data";
  o.train_images = 4;  // one global batch: exactly one optimiser step
  o.val_images = 2;
  o.imgsz = 96;
  o.num_classes = 2;
  o.threads = 1;
  const fs::path yaml = yolo::synth::generate_synthetic_dataset(o).yaml;

  const std::string common =
      std::string(YOLO_TRAINER_BIN) + " train model=yolov8n.yaml data=" + yaml.string() +
      " imgsz=64 epochs=1 device=cpu workers=1 val=False plots=False nbs=4 warmup_epochs=0 "
      "verbose=False threads=1 project=" +
      (tmp.path / "runs").string();
  Result ddp = run(common + " batch=4 world=2 name=ddp");
  ASSERT_EQ(ddp.exit_code, 0) << ddp.output;
  EXPECT_NE(ddp.output.find("DDP: 2 processes, backend gloo"), std::string::npos) << ddp.output;
  Result single = run(common + " batch=2 name=single");
  ASSERT_EQ(single.exit_code, 0) << single.output;

  auto a = yolo::load_eager_model((tmp.path / "runs/ddp/weights/last.pt").string());
  auto b = yolo::load_eager_model((tmp.path / "runs/single/weights/last.pt").string());
  auto pa = a->named_parameters(), pb = b->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  double max_diff = 0, max_change = 0;
  for (const auto& item : pa) {
    max_diff = std::max(max_diff, (item.value() - pb[item.key()]).abs().max().item<double>());
  }
  // The step really changed the weights (else equality would prove nothing): with half the
  // images, the one-process run has a single micro-batch and never steps, so it keeps the
  // initial weights.
  Result other = run(common + " batch=2 name=other fraction=0.5");
  ASSERT_EQ(other.exit_code, 0) << other.output;
  auto c = yolo::load_eager_model((tmp.path / "runs/other/weights/last.pt").string());
  for (const auto& item : c->named_parameters())
    max_change = std::max(max_change, (item.value() - pb[item.key()]).abs().max().item<double>());
  EXPECT_LT(max_diff, 1e-5) << "DDP and single-process weights differ";
  std::printf("max |DDP - single| = %.3g, max |trained - initial| = %.3g\n", max_diff, max_change);
  EXPECT_GT(max_change, 1e-4) << "training on other images should give other weights";
}

TEST(Ddp, BatchMustSplitOverTheProcesses) {
  yolo::testing::TempDir tmp("ddp_batch");
  yolo::synth::SynthOptions o;
  o.dir = tmp.path / "data";
  o.train_images = 4;
  o.val_images = 2;
  o.imgsz = 64;
  o.threads = 1;
  const fs::path yaml = yolo::synth::generate_synthetic_dataset(o).yaml;
  Result r = run(std::string(YOLO_TRAINER_BIN) + " train model=yolov8n.yaml data=" + yaml.string() +
                 " batch=3 world=2 device=cpu imgsz=64 project=" + (tmp.path / "runs").string());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("must be a multiple of the 2 DDP processes"), std::string::npos)
      << r.output;
}
