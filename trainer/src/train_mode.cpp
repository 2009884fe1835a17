// `yolo-trainer train`: builds the Trainer, turns Ctrl-C / SIGTERM into a clean stop that saves
// last.pt, and prints where the results are.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <csignal>

#include "yolo/trainer/stop_signal.h"
#include "yolo/trainer/trainer.h"

namespace yolo {

int run_train_mode(const Config& cfg) {
  // Before the trainer is built, so that a signal during setup is seen too.
  std::atomic<Trainer*> active{nullptr};
  std::atomic<bool> early_signal{false};
  StopSignalWatcher watcher([&](int sig) {
    spdlog::warn(
        "{} received: finishing the current batch and saving last.pt (press Ctrl-C "
        "again to quit at once)",
        sig == SIGINT ? "Ctrl-C" : "SIGTERM");
    early_signal = true;
    if (Trainer* t = active.load()) t->request_stop();
  });
  Trainer trainer(cfg);
  active = &trainer;
  if (early_signal) trainer.request_stop();
  TrainResult r = trainer.train();
  active = nullptr;
  if (r.interrupted) {
    fmt::print("Training stopped after {} epochs; continue with: yolo-trainer train resume={}\n",
               r.epochs_completed, r.last.string());
    return 0;
  }
  fmt::print(
      "Training finished: {} epochs in {:.1f} s{}; best.pt mAP50 {:.3f}, mAP50-95 {:.3f}\n"
      "  weights: {}\n           {}\n  results: {}\n",
      r.epochs_completed, r.seconds, r.stopped_early ? " (stopped early, patience)" : "", r.map50,
      r.map50_95, r.best.string(), r.last.string(), (r.save_dir / "results.csv").string());
  return 0;
}

}  // namespace yolo
