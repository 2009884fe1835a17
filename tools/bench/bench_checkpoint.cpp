// What one epoch's checkpoint costs the trainer, part by part.
//
//   build/bin/bench_checkpoint [--model yolov8n.yaml] [--imgsz 320] [--rounds 7]
//                              [--out runs/bench/checkpoint]   (--help)
//
// The trainer writes last.pt after every epoch (and best.pt when the fitness improved): the
// training model's weights and the optimiser state (to resume exactly), and the EMA model traced
// for deployment with its unfused weights. On small sets this is a visible share of a run
// (`training N s ... checkpoints M s` in the log). This times each part -- the pickles, the
// archive in memory, the atomic write with its fsync, best.pt (copied or linked) -- on a model
// after one AdamW step, the median of --rounds, with each part's share of the whole save.
#include <fmt/format.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "yolo/core/atomic_file.h"
#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/core/system_info.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/detection_model.h"
#include "yolo/trainer/train/model_ema.h"
#include "yolo/trainer/train/optimizer.h"
#include "yolo/trainer/train/train_checkpoint.h"

namespace fs = std::filesystem;
using yolo::bench::Clock;
using yolo::bench::seconds_since;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Part {
  std::string name;
  std::vector<double> s;  // seconds, one per round
};

// The parts' medians with their share of the whole save (the last part).
void print_table(const std::vector<Part>& parts, const std::string& model_name, int imgsz,
                 size_t bytes, int rounds) {
  const double whole = median(parts.back().s);
  fmt::print(
      "\nOne epoch's checkpoint, {} at {} px, {:.1f} MB per file, {} threads, median of {} "
      "(ms)\n\n",
      model_name, imgsz, bytes / 1048576.0, yolo::torch_threads(), rounds);
  fmt::print("| {:<42} | {:>8} | {:>14} |\n", "part", "ms", "share of save");
  fmt::print("|{:-<44}|{:->10}|{:->16}|\n", "", "", "");
  for (const auto& p : parts) {
    const double m = median(p.s);
    fmt::print("| {:<42} | {:>8.1f} | {:>13.2f}x |\n", p.name, 1e3 * m, m / whole);
  }
}

int run(int argc, char** argv) {
  std::string model_name = "yolov8n.yaml", out = "runs/bench/checkpoint";
  int imgsz = 320, rounds = 7;
  CLI::App app{"bench_checkpoint: what one epoch's checkpoint costs (docs/benchmarks.md)"};
  app.add_option("--model", model_name, "model YAML")->capture_default_str();
  app.add_option("--imgsz", imgsz, "the traced size")->capture_default_str();
  app.add_option("--rounds", rounds, "saves timed (median)")->capture_default_str();
  app.add_option("--out", out, "folder for the files")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  yolo::log::init();
  fs::create_directories(out);

  torch::manual_seed(0);
  auto model = yolo::build_model(model_name, 3);
  model->train();
  yolo::Optimizer opt(
      yolo::OptimizerKind::kAdamW,
      yolo::make_param_groups(*model, yolo::OptimizerKind::kAdamW, 1e-3, 0.9, 5e-4));
  {  // one step, so that the optimiser has its state (AdamW: two moments per weight)
    auto head = model->forward_train(torch::rand({2, 3, imgsz, imgsz}));
    (head.one2many.boxes.mean() + head.one2many.scores.mean()).backward();
    opt.step();
    opt.zero_grad();
  }
  yolo::ModelEMA ema(*model);
  yolo::ExportOptions eo;
  eo.height = eo.width = imgsz;
  auto exporter = yolo::make_checkpoint_exporter(eo);
  exporter.serialize(ema.model());  // the trace is made once per run: not counted

  const fs::path last = fs::path(out) / "last.pt", best = fs::path(out) / "best.pt";
  std::vector<Part> parts = {{"pickle the training weights", {}},
                             {"pickle the optimiser state", {}},
                             {"archive in memory (EMA traced + weights)", {}},
                             {"write last.pt atomically (fsync)", {}},
                             {"copy to best.pt atomically (fsync)", {}},
                             {"link best.pt to last.pt atomically", {}},
                             {"whole save as the trainer does it", {}}};
  size_t bytes = 0;
  for (int r = 0; r < rounds; ++r) {
    auto t = Clock::now();
    yolo::TrainCheckpoint ckpt;
    ckpt.model_weights = yolo::pickle_state(*model);
    parts[0].s.push_back(seconds_since(t)), t = Clock::now();
    ckpt.optimizer = opt.state();
    const std::string optimizer = yolo::pickle_tensors(ckpt.optimizer);
    parts[1].s.push_back(seconds_since(t)), t = Clock::now();
    const std::string archive = exporter.serialize(
        ema.model(), {{"train_model.pkl", ckpt.model_weights}, {"optimizer.pkl", optimizer}});
    parts[2].s.push_back(seconds_since(t)), t = Clock::now();
    yolo::write_file_atomically(last, archive);
    parts[3].s.push_back(seconds_since(t)), t = Clock::now();
    yolo::copy_file_atomically(last, best);
    parts[4].s.push_back(seconds_since(t)), t = Clock::now();
    yolo::write_file_atomically(last, archive);  // a new last.pt, so that best.pt is another file
    t = Clock::now();
    yolo::link_or_copy_atomically(last, best);
    parts[5].s.push_back(seconds_since(t)), t = Clock::now();
    yolo::TrainCheckpoint whole;
    whole.model_weights = yolo::pickle_state(*model);
    whole.optimizer = opt.state();
    yolo::save_training_checkpoint(last, ema.model(), exporter, whole);
    yolo::link_or_copy_atomically(last, best);
    parts[6].s.push_back(seconds_since(t));
    bytes = archive.size();
  }

  print_table(parts, model_name, imgsz, bytes, rounds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
