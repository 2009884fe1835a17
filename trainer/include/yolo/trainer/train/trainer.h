// `yolo-trainer train`: Ultralytics' training loop (engine/trainer.py BaseTrainer), in the same
// steps. Construction sets up (trainer_setup.cpp): settings, device, dataset, model, run folder,
// loaders, optimiser, loss and EMA, the AMP check, resume. train() runs the loop (trainer.cpp):
// epochs of batches with warm-up, gradient accumulation and optimiser steps, EMA, validation on
// the EMA, results.csv / results.png, last.pt and best.pt, early stopping, the final evaluation.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/train/distributed.h"

namespace yolo {

struct Batch;              // data_loader.h
class DetectionModelImpl;  // detection_model.h
struct ResumePoint;        // resume.h
struct ValidationResult;   // validator.h

struct TrainResult {
  std::filesystem::path save_dir, last, best;
  int epochs_completed = 0;
  bool stopped_early = false;  // patience
  bool interrupted = false;    // Ctrl-C / SIGTERM / request_stop()
  double best_fitness = 0;
  double map50 = 0, map50_95 = 0;  // final validation of best.pt (or the last epoch's)
  double seconds = 0;
};

// What one training batch did to the optimiser: the schedule's values while it ran and whether
// it ended with an optimiser step (the schedule parity test compares these with Ultralytics').
struct BatchSchedule {
  int64_t iteration = 0;  // global batch index (ni)
  int epoch = 0;
  int accumulate = 1;
  bool stepped = false;
  std::vector<std::string> groups;   // parameter-group names ("weight", "bn", "bias", ...)
  std::vector<double> lr, momentum;  // per group; momentum is Adam's beta1
  std::vector<double> weight_decay;  // per group
  std::vector<size_t> sizes;         // parameters per group
};

class Trainer {
 public:
  // Validates the settings (throws ConfigError / DatasetError / CheckpointError with the fix);
  // resume=... reads the run's settings from its checkpoint first.
  // `dist`: this process's place in a data-parallel run (inactive by default: one process).
  explicit Trainer(Config config, DistributedEnv dist = {});
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  TrainResult train();

  // Thread-safe: finish the current batch, save last.pt, return from train().
  void request_stop() { stop_requested_ = true; }
  // True once every epoch has run and the final evaluation (checkpoints without the optimiser,
  // best.pt validated) has begun: a stop then no longer interrupts anything, the run completes.
  bool in_final_evaluation() const { return in_final_evaluation_; }
  // Called after every optimiser-step-sized batch with the global iteration (tests).
  void set_batch_callback(std::function<void(int64_t iteration)> cb) { on_batch_ = std::move(cb); }
  // Called on rank 0 when an epoch's validation is done, before its results row and checkpoint
  // (tests stop a run there, as a signal arriving during validation would).
  void set_validated_callback(std::function<void(int epoch)> cb) { on_validated_ = std::move(cb); }
  // Called after every batch with its schedule (tests; rank 0 of a data-parallel run).
  void set_schedule_callback(std::function<void(const BatchSchedule&)> cb) {
    on_schedule_ = std::move(cb);
  }

  // Parity harness (tools/parity/replay_train.cpp), so that a run can be compared step by step
  // with Ultralytics' trainer on the same data from the same weights:
  // - the training batches come from `source` instead of the loader: it fills batch `index` of
  //   `epoch` and returns false after the epoch's last batch;
  void set_batch_source(std::function<bool(int epoch, int64_t index, Batch& out)> source) {
    batch_source_ = std::move(source);
  }
  // - `fill` changes the freshly built model before training (say, to another tool's initial
  //   weights); the EMA starts again from the result. Not for resumed runs.
  void initialise_model(const std::function<void(DetectionModelImpl&)>& fill);
  // - after every optimiser step: the global iteration, the model and its EMA.
  void set_step_callback(std::function<void(int64_t iteration, const DetectionModelImpl& model,
                                            const DetectionModelImpl& ema)>
                             cb) {
    on_step_ = std::move(cb);
  }
  const Config& config() const { return cfg_; }

 private:
  struct State;                          // trainer_state.h
  struct EpochEnd;                       // what the end of an epoch decided (trainer.cpp)
  using Losses = std::array<double, 3>;  // box, cls, dfl (or l1): the epoch's running mean

  // Setup, in this order (trainer_setup.cpp).
  void setup_device();
  void setup_dataset();
  void setup_model();
  void setup_run_dir(const ResumePoint* resume);
  void setup_loaders();
  void setup_optimizer();
  void setup_loss_and_ema();
  void setup_amp();
  void restore(const ResumePoint& resume);
  void share_initial_weights();

  // The loop (trainer.cpp).
  void begin_run();
  void start_loading(int epoch);
  // false: interrupted (last.pt saved). `losses` and `seen_batches` hold the epoch's running
  // means so far (non-zero when resuming mid-epoch).
  bool train_epoch(int epoch, Losses& losses, int64_t& seen_batches);
  // The image size trained at, or nullopt when the loss was not finite (batch skipped).
  std::optional<int64_t> train_batch(int epoch, const Batch& batch, Losses& losses,
                                     int64_t& seen_batches);
  void report_schedule(int64_t ni, int epoch, int accumulate, bool stepped) const;
  void optimizer_step(int64_t ni);
  void save_interrupted(int epoch, int64_t batch_index, const Losses& losses, int64_t seen_batches);
  EpochEnd end_epoch(int epoch, const Losses& losses,
                     std::chrono::steady_clock::time_point t_epoch);
  ValidationResult validate(DetectionModelImpl& model, bool with_plots);
  void save_checkpoint(const std::filesystem::path& path, bool with_optimizer);
  void final_evaluation(TrainResult& out);

  Config cfg_;
  DistributedEnv dist_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> in_final_evaluation_{false};
  std::function<void(int64_t)> on_batch_;
  std::function<void(int)> on_validated_;
  std::function<void(const BatchSchedule&)> on_schedule_;
  std::function<bool(int, int64_t, Batch&)> batch_source_;
  std::function<void(int64_t, const DetectionModelImpl&, const DetectionModelImpl&)> on_step_;
  std::unique_ptr<State> s_;
};

// `yolo-trainer train ...` as the command runs it (signals handled, summary printed). `args` is
// the command line after the program name: multi-process runs start workers with it.
int run_train_mode(const Config& cfg, const std::vector<std::string>& args);

}  // namespace yolo
