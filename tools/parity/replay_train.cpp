// Our trainer on stored batches, from given initial weights, with the weights written after the
// first optimiser steps: the C++ half of the step-by-step comparison with Ultralytics' trainer
// (tools/parity/ultralytics_replay_train.py is the other half; tools/parity/compare_steps.py
// compares what both wrote).
//
//   build/bin/parity_replay_train --batches DIR [--init STATE.pt] [--dump DIR] [--dump-steps N]
//       [--stop-after-dump] key=value ...   (the `yolo-trainer train` settings)
//
// --batches: e<E>_b<I>.pt files ({"images": uint8 (B, 3, H, W) RGB, "targets": (N, 6)}), as
//   parity_dump_loader_batches or ultralytics_replay_train.py --record write them.
// --init: a dict name -> tensor (Ultralytics' state-dict names, which are ours) copied into the
//   model before training; every parameter and buffer must be there.
// --dump: after each of the first --dump-steps (default 8) optimiser steps (with --dump-every N,
//   after steps 1, 1+N, 1+2N, ...), DIR/step<ni>.pt holds {"model": {name: tensor}, "ema":
//   {name: tensor}} with every parameter and buffer; --stop-after-dump ends the run there.
// --double: the model, EMA, optimiser state and batches in float64, so that rounding noise, which
//   CPU training amplifies to O(1) differences after ~12 steps in float32, stays small for longer
//   and more steps can be compared one by one (ultralytics_replay_train.py --double likewise).
#include <fmt/format.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "pickle_file.h"
#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/models/detection_model.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/settings/command_line.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/train/trainer.h"

namespace fs = std::filesystem;

namespace {

using yolo::parity::read_pickle;
using yolo::parity::write_pickle;

c10::Dict<std::string, torch::Tensor> state_of(const yolo::DetectionModelImpl& m) {
  c10::Dict<std::string, torch::Tensor> d;
  for (const auto& p : m.named_parameters()) d.insert(p.key(), p.value().detach().clone());
  for (const auto& b : m.named_buffers()) d.insert(b.key(), b.value().detach().clone());
  return d;
}

void load_state(yolo::DetectionModelImpl& m, const fs::path& path) {
  const auto dict = read_pickle(path).toGenericDict();
  torch::NoGradGuard no_grad;
  auto copy = [&](const std::string& name, torch::Tensor& dst) {
    if (!dict.contains(name)) throw std::runtime_error(path.string() + " has no tensor " + name);
    const torch::Tensor src = dict.at(name).toTensor();
    if (src.sizes() != dst.sizes())
      throw std::runtime_error(fmt::format("{}: {} has shape {}, the model {}", path.string(), name,
                                           fmt::join(src.sizes(), "x"),
                                           fmt::join(dst.sizes(), "x")));
    dst.copy_(src);
  };
  for (auto& p : m.named_parameters()) copy(p.key(), p.value());
  for (auto& b : m.named_buffers()) copy(b.key(), b.value());
}

int run(int argc, char** argv) {
  std::string batches, init, dump;
  int dump_steps = 8, dump_every = 1;
  bool stop_after_dump = false, use_double = false;
  std::vector<std::string> settings;
  CLI::App app{"parity_replay_train: our trainer on stored batches (tools/parity)"};
  app.add_option("--batches", batches, "folder of e<E>_b<I>.pt batches")->required();
  app.add_option("--init", init, "initial weights: a pickled dict name -> tensor");
  app.add_option("--dump", dump, "folder for step<ni>.pt after the first optimiser steps");
  app.add_option("--dump-steps", dump_steps, "optimiser steps to dump")->capture_default_str();
  app.add_option("--dump-every", dump_every, "dump every N-th optimiser step (1, 1+N, ...)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--stop-after-dump", stop_after_dump, "end the run once they are written");
  app.add_flag("--double", use_double, "train in float64 (for longer step comparisons)");
  app.add_option("settings", settings, "yolo-trainer train settings, key=value");
  CLI11_PARSE(app, argc, argv);
  yolo::log::init();
  settings.insert(settings.begin(), "train");
  const yolo::CommandLine cmd = yolo::parse_command_line(settings);
  yolo::Config cfg;
  cfg.apply_text_overrides(cmd.overrides);
  cfg.set("workers", YAML::Node(0));  // the loader is not used for training: nothing prefetched

  yolo::Trainer trainer(cfg);
  const torch::Dtype dtype = use_double ? torch::kDouble : torch::kFloat;
  if (!init.empty() || use_double)
    trainer.initialise_model([&](yolo::DetectionModelImpl& m) {
      if (!init.empty()) load_state(m, init);
      m.to(dtype);
    });
  trainer.set_batch_source([&](int epoch, int64_t index, yolo::Batch& out) {
    const fs::path f = fs::path(batches) / fmt::format("e{}_b{}.pt", epoch, index);
    if (!fs::exists(f)) return false;
    const auto d = read_pickle(f).toGenericDict();
    out.images = d.at("images").toTensor().to(dtype).div_(255);
    out.targets = d.at("targets").toTensor().to(dtype);
    return true;
  });
  int dumped = 0, steps = 0;
  if (!dump.empty()) {
    fs::create_directories(dump);
    trainer.set_step_callback([&](int64_t ni, const yolo::DetectionModelImpl& model,
                                  const yolo::DetectionModelImpl& ema) {
      if (dumped >= dump_steps || steps++ % dump_every != 0) return;
      ++dumped;
      c10::impl::GenericDict d(c10::StringType::get(), c10::AnyType::get());
      d.insert("model", state_of(model));
      d.insert("ema", state_of(ema));
      write_pickle(fs::path(dump) / fmt::format("step{}.pt", ni), c10::IValue(d));
      if (dumped == dump_steps && stop_after_dump) trainer.request_stop();
    });
  }
  const yolo::TrainResult r = trainer.train();
  fmt::print("trained {} epochs on {}; mAP50 {:.4f} mAP50-95 {:.4f}\n", r.epochs_completed, batches,
             r.map50, r.map50_95);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
