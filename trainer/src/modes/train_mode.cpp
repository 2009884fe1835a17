// `yolo-trainer train`: builds the Trainer, turns Ctrl-C / SIGTERM into a clean stop that saves
// last.pt, starts DDP worker processes when several devices are asked for, and prints where the
// results are.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <mutex>
#include <thread>

#include "yolo/core/allocator_tuning.h"
#include "yolo/core/device.h"
#include "yolo/core/stop_signal.h"
#include "yolo/core/system_info.h"
#include "yolo/trainer/train/trainer.h"

namespace yolo {
namespace {

// Processes a single-machine run needs: one per GPU in device=, or world= on the CPU.
int requested_world(const Config& cfg) {
  const SelectedDevice d = select_device(cfg.get_string("device"));
  const long long world = cfg.get_int("world");
  if (world < 1) throw ConfigError("world must be >= 1");
  if (d.is_gpu) {
    if (world > 1 && world != d.world_size())
      throw ConfigError(
          fmt::format("world={} does not match the {} GPUs in device={}; on GPUs "
                      "the device list sets the number of processes",
                      world, d.world_size(), cfg.get_string("device")));
    return d.world_size();
  }
  return static_cast<int>(world);
}

}  // namespace

int run_train_mode(const Config& cfg, const std::vector<std::string>& args) {
  // Each step frees and reallocates the same activations: keep that memory mapped (a CPU step
  // is ~10 % faster; see allocator_tuning.h).
  keep_freed_memory_for_reuse();
  const DistributedEnv dist = distributed_env_from_environment();
  if (!dist.active()) {
    const int world = requested_world(cfg);
    if (world > 1) return launch_local_workers(args, world);
  } else {
    if (dist.rank > 0) spdlog::set_level(spdlog::level::warn);  // rank 0 speaks for the run
    // threads=0 means "all cores": shared between the workers of this machine.
    if (cfg.get_int("threads") == 0 && !select_device(cfg.get_string("device")).is_gpu) {
      const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
      apply_thread_setting(std::max(1, cores / dist.world_size));
    }
  }

  // Before the trainer starts its loader threads, so that they inherit the blocked signals.
  // The watcher's thread uses the running trainer only under this lock, and the trainer is
  // unregistered under it before it is destroyed (however train() ends).
  std::mutex active_mutex;
  Trainer* active = nullptr;
  bool early_signal = false;
  // SIGHUP (the terminal or SSH session closed) stops like SIGTERM: last.pt is saved and
  // resume=True continues, instead of the epoch's work being lost.
  StopSignalWatcher watcher(
      [&](int sig) {
        const char* what = sig == SIGINT   ? "Ctrl-C"
                           : sig == SIGHUP ? "SIGHUP (terminal closed)"
                                           : "SIGTERM";
        std::lock_guard<std::mutex> lock(active_mutex);
        Trainer* t = active;
        if (t && t->in_final_evaluation()) {
          spdlog::warn(
              "{} received: every epoch has run; finishing the final evaluation of best.pt "
              "(press Ctrl-C again to quit at once: last.pt and best.pt on disk are complete)",
              what);
        } else {
          spdlog::warn(
              "{} received: finishing the current batch and saving last.pt (press Ctrl-C "
              "again to quit at once)",
              what);
        }
        early_signal = true;
        if (t) t->request_stop();
      },
      /*exit_on_second=*/true, /*watch_hangup=*/true);
  Trainer trainer(cfg, dist);
  {
    std::lock_guard<std::mutex> lock(active_mutex);
    active = &trainer;
    if (early_signal) trainer.request_stop();
  }
  struct Unregister {
    std::mutex& mutex;
    Trainer*& active;
    ~Unregister() {
      std::lock_guard<std::mutex> lock(mutex);
      active = nullptr;
    }
  } unregister{active_mutex, active};
  TrainResult r = trainer.train();
  if (!dist.is_main()) return 0;
  if (r.interrupted) {
    fmt::print("Training stopped after {} epoch{}; continue with: yolo-trainer train resume={}\n",
               r.epochs_completed, r.epochs_completed == 1 ? "" : "s", r.last.string());
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
