// The training loop, in the steps of Ultralytics' BaseTrainer._do_train: epochs of batches
// (forward, loss, backward, an optimiser step when the accumulation is due, EMA), then per epoch
// validation on the EMA, results.csv and checkpoints, the stop rules, and the final evaluation of
// best.pt.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "train/channels_last.h"
#include "train/trainer_state.h"
#include "yolo/core/atomic_file.h"
#include "yolo/core/autocast_scope.h"
#include "yolo/core/progress_bar.h"
#include "yolo/core/stopwatch.h"
#include "yolo/runtime/inference_settings.h"
#include "yolo/trainer/plots/plots.h"
#include "yolo/trainer/train/multi_scale.h"

namespace yolo {
namespace fs = std::filesystem;

namespace {

constexpr double kMaxGradNorm = 10.0;  // Ultralytics clips gradients at this norm
constexpr int kTrainBatchPlots = 3;    // train_batch0..2.jpg

std::string utc_now() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The progress bar's memory column. LibTorch has no backend-neutral query of the caching
// allocator (the CPU build lacks c10/cuda), so GPUs show "-" rather than a guessed number.
std::string memory_text(const c10::Device& device) {
  return device.is_cuda() ? "-" : "0G";
}

}  // namespace

struct Trainer::EpochEnd {
  bool interrupted = false, patience = false, time_limit = false;
};

TrainResult Trainer::train() {
  State& s = *s_;
  TrainResult out;
  out.save_dir = s.save_dir;
  out.last = s.last;
  out.best = s.best;
  begin_run();
  bool interrupted = false;
  // Gradients are zeroed once here and then only by optimiser steps, as in Ultralytics: the
  // batches after an epoch's last step carry into the next epoch's first step.
  s.optimizer->zero_grad();
  for (int epoch = s.start_epoch; epoch < s.opt.epochs; ++epoch) {
    const auto t_epoch = TrainClock::now();
    Losses losses{};
    int64_t seen_batches = 0;
    if (epoch == s.start_epoch && s.ts.epoch_losses.size() == losses.size()) {
      // Resumed mid-epoch: the epoch's loss means continue from where they were saved.
      std::copy(s.ts.epoch_losses.begin(), s.ts.epoch_losses.end(), losses.begin());
      seen_batches = s.ts.epoch_loss_batches;
    }
    if (!train_epoch(epoch, losses, seen_batches)) {
      interrupted = true;
      break;
    }
    const EpochEnd end = end_epoch(epoch, losses, t_epoch);
    out.epochs_completed = epoch + 1;
    // A stop during the final epoch's last batch or its end: every epoch has run, so the run
    // finishes (final weights and evaluation) rather than leaving a resume with nothing to do.
    if (end.interrupted && epoch + 1 < s.opt.epochs) {
      interrupted = true;
      if (s.main)
        spdlog::warn("Training interrupted after epoch {}; resume=True continues", epoch + 1);
      break;
    }
    if (end.patience) {
      if (s.main)
        spdlog::info(
            "Stopping training early as no improvement observed in last {} epochs. Best "
            "results observed at epoch {}, best model saved as best.pt.",
            s.opt.patience, s.ts.best_epoch + 1);
      out.stopped_early = true;
      break;
    }
    if (end.time_limit) {
      if (s.main) spdlog::info("Stopping: time={} hours reached", s.opt.time_limit_hours);
      break;
    }
  }
  out.interrupted = interrupted;
  out.seconds = seconds_since(s.t_start);
  out.best_fitness = s.ts.best_fitness.value_or(0);
  if (!interrupted && s.main) final_evaluation(out);
  return out;
}

void Trainer::begin_run() {
  State& s = *s_;
  s.t_start = TrainClock::now();
  s.batches_per_epoch = static_cast<int64_t>(s.train_loader->batches_per_epoch());
  s.warmup = warmup_iterations(s.opt.schedule, s.batches_per_epoch);
  // Capped at the run's batch count, except in time-limited runs, whose epoch count changes.
  s.run_accumulate = s.opt.time_limit_hours > 0
                         ? nominal_accumulate(s.opt.schedule)
                         : accumulate_steps(s.opt.schedule, s.batches_per_epoch);
  s.scale_seed = s.opt.seed + static_cast<uint64_t>(std::max(dist_.rank, 0));
  const auto& det = s.model->detect();

  if (s.opt.plots && s.main && s.start_epoch == 0 && s.start_batch == 0)
    save_plot(s.save_dir / "labels.jpg", plot_label_statistics(s.train_records, s.names));

  ExportOptions export_opts;
  export_opts.height = export_opts.width = s.opt.imgsz;
  export_opts.description = fmt::format("yolo-edge {} trained on {}", s.model->config().name,
                                        s.data.yaml_path.filename().string());
  s.exporter = std::make_unique<TorchScriptExporter>(make_checkpoint_exporter(export_opts));

  ValidatorOptions& v = s.val_options;
  v.conf = kValConf;
  v.iou = s.opt.val_iou;
  v.max_det = s.opt.max_det;
  v.agnostic = s.opt.single_cls || s.opt.agnostic_nms;
  v.end2end = det.end2end && det.use_one2one;
  v.nc = s.nc;
  v.names = s.names;
  v.save_dir = s.save_dir;
  v.progress = s.opt.verbose;

  spdlog::info(
      "Image sizes {} train, {} val\nUsing {} dataloader workers\nLogging results to {}\n"
      "Starting training for {} epochs...",
      s.opt.imgsz, s.opt.imgsz, s.opt.workers, s.save_dir.string(), s.opt.epochs);
}

// The loader starts an epoch's batches as soon as the previous epoch's last batch is taken, so
// that they are made while rank 0 validates and saves rather than after.
void Trainer::start_loading(int epoch) {
  State& s = *s_;
  const int close = s.opt.close_mosaic;
  s.train_loader->set_mosaic(!(close > 0 && epoch >= s.opt.epochs - close));
  const int64_t first_batch = epoch == s.start_epoch ? s.start_batch : 0;
  s.train_loader->start_epoch(epoch, static_cast<size_t>(first_batch));
  s.loading_epoch = epoch;
}

bool Trainer::train_epoch(int epoch, Losses& losses, int64_t& seen_batches) {
  State& s = *s_;
  if (s.opt.close_mosaic > 0 && epoch == s.opt.epochs - s.opt.close_mosaic)
    spdlog::info("Closing dataloader mosaic");
  set_training_mode(*s.model, s.opt.frozen);
  if (s.loading_epoch != epoch) start_loading(epoch);
  if (s.main)
    std::fprintf(
        stderr, "\n%s\n",
        fmt::format("{:>11}{:>11}{:>11}{:>11}{:>11}{:>11}{:>11}", "Epoch", "GPU_mem", "box_loss",
                    "cls_loss", ResultsLog::third_loss_name(s.model->detect().reg_max), "Instances",
                    "Size")
            .c_str());
  ProgressBar bar(s.batches_per_epoch, s.opt.verbose && s.main);
  const bool plots = s.opt.plots && s.main;
  int64_t next_index = 0;  // batch_source_: the index of the next batch to ask for
  auto next_batch = [&]() -> std::optional<Batch> {
    if (!batch_source_) return s.train_loader->next();
    Batch b;
    if (!batch_source_(epoch, next_index, b)) return std::nullopt;
    b.index = next_index++;
    return b;
  };
  // Time spent getting batches: on the CPU the training thread makes them itself, so this is the
  // loader's whole share of the training time; on GPUs, the time the step waited for them.
  auto timed_next_batch = [&] {
    const auto t = TrainClock::now();
    std::optional<Batch> b = next_batch();
    s.spent_data += seconds_since(t);
    return b;
  };
  while (auto batch = timed_next_batch()) {
    const int64_t i = batch->index;
    const int64_t ni = i + s.batches_per_epoch * epoch;
    const std::optional<int64_t> size = train_batch(epoch, *batch, losses, seen_batches);
    if (!size) continue;
    bar.update(i + 1,
               fmt::format("{:>11}{:>11}{:>11.4g}{:>11.4g}{:>11.4g}{:>11}{:>11}",
                           fmt::format("{}/{}", epoch + 1, s.opt.epochs), memory_text(s.device),
                           losses[0], losses[1], losses[2], batch->targets.size(0), *size));
    if (plots && epoch == 0 && i < kTrainBatchPlots)
      save_plot(s.save_dir / fmt::format("train_batch{}.jpg", i), plot_batch(*batch, s.names));
    if (on_batch_) on_batch_(ni);
    const bool stop_now = s.pg ? s.pg->any(stop_requested_) : stop_requested_.load();
    // On the epoch's last batch the epoch is finished instead (validation, results row,
    // checkpoint), and end_epoch() stops the run: a mid-epoch point with no batch left would
    // resume into an epoch that trains nothing.
    if (stop_now && i + 1 < s.batches_per_epoch) {
      bar.finish("  (interrupted)");
      save_interrupted(epoch, i, losses, seen_batches);
      return false;
    }
  }
  bar.finish();
  if (s.e2e_loss) s.e2e_loss->update();
  if (epoch + 1 < s.opt.epochs) start_loading(epoch + 1);
  return true;
}

std::optional<int64_t> Trainer::train_batch(int epoch, const Batch& batch, Losses& losses,
                                            int64_t& seen_batches) {
  State& s = *s_;
  const int64_t ni = batch.index + s.batches_per_epoch * epoch;
  const int accumulate =
      apply_schedule(s.opt.schedule, *s.optimizer, ni, s.warmup, epoch, s.run_accumulate);
  torch::Tensor images = batch.images.to(s.device, /*non_blocking=*/true);
  if (s.opt.multi_scale > 0)
    images = resize_batch(
        images, multi_scale_size(s.opt.imgsz, s.opt.multi_scale, s.stride, s.scale_seed, ni),
        s.stride);
  if (s.channels_last) images = to_channels_last(images);
  nn::DetectTrainOutput head;
  {
    AutocastScope scope(s.device.type(), s.amp_dtype, s.amp);
    head = s.model->forward_train(images);
  }
  head = outputs_in_fp32(head);  // the loss in FP32 (loss.h)
  auto [anchors, strides] = s.model->detect().anchors_for(head.one2many.feats);
  const LossOutput loss = s.e2e_loss ? (*s.e2e_loss)(head, anchors, strides, batch.targets)
                                     : (*s.loss)(head.one2many, anchors, strides, batch.targets);
  if (!std::isfinite(loss.total.item<double>())) {
    spdlog::warn("non-finite loss at epoch {} batch {}; skipping this batch", epoch + 1,
                 batch.index);
    s.optimizer->zero_grad();
    return std::nullopt;
  }
  // Under DDP the gradients are averaged over the ranks; scaling each rank's loss by the world
  // size keeps the step equal to one process on the whole global batch (Ultralytics).
  s.scaler->scale(s.world > 1 ? loss.total * static_cast<double>(s.world) : loss.total).backward();
  const bool step_now = ni - s.ts.last_opt_step >= accumulate;
  report_schedule(ni, epoch, accumulate, step_now);
  if (step_now) optimizer_step(ni);
  // The epoch's running mean of the loss items, in double as Ultralytics' tloss.
  const torch::Tensor items = loss.items.to(torch::kDouble).cpu();
  const double n = static_cast<double>(seen_batches);
  for (size_t k = 0; k < losses.size(); ++k)
    losses[k] = (losses[k] * n + items[static_cast<int64_t>(k)].item<double>()) / (n + 1);
  ++seen_batches;
  s.ts.iterations = ni + 1;
  return images.size(3);
}

void Trainer::report_schedule(int64_t ni, int epoch, int accumulate, bool stepped) const {
  const State& s = *s_;
  if (!on_schedule_ || !s.main) return;
  BatchSchedule record;
  record.iteration = ni;
  record.epoch = epoch;
  record.accumulate = accumulate;
  record.stepped = stepped;
  for (const auto& g : s.optimizer->groups()) {
    record.groups.push_back(g.name);
    record.lr.push_back(g.lr);
    record.momentum.push_back(g.momentum);
    record.weight_decay.push_back(g.weight_decay);
    record.sizes.push_back(g.params.size());
  }
  on_schedule_(record);
}

void Trainer::optimizer_step(int64_t ni) {
  State& s = *s_;
  std::vector<torch::Tensor> params = s.model->parameters();
  if (s.pg) s.pg->average_gradients(params);
  const bool finite = s.scaler->unscale(params);
  if (finite) {
    torch::nn::utils::clip_grad_norm_(params, kMaxGradNorm);
    s.optimizer->step();
  }
  s.scaler->update(finite);
  if (s.scaler->enabled()) {
    ++s.scaler_steps;
    if (!finite) ++s.scaler_skipped;
  }
  s.optimizer->zero_grad();
  s.ema->update(*s.model);
  s.ts.last_opt_step = ni;
  if (on_step_) on_step_(ni, *s.model, s.ema->model());
}

// A stop request mid-epoch: last.pt is saved so that resume continues with the next batch.
void Trainer::save_interrupted(int epoch, int64_t batch_index, const Losses& losses,
                               int64_t seen_batches) {
  State& s = *s_;
  s.ts.epoch = epoch - 1;
  s.ts.batch_in_epoch = batch_index + 1;
  s.ts.epoch_losses.assign(losses.begin(), losses.end());
  s.ts.epoch_loss_batches = seen_batches;
  if (!s.main) return;
  save_checkpoint(s.last, true);
  spdlog::warn(
      "Training interrupted; saved {} (resume=True continues from batch {} of "
      "epoch {})",
      s.last.string(), batch_index + 2, epoch + 1);
}

// Validation, results and checkpoints (rank 0), then every rank's stop decision.
Trainer::EpochEnd Trainer::end_epoch(int epoch, const Losses& losses,
                                     TrainClock::time_point t_epoch) {
  State& s = *s_;
  const TrainOptions& o = s.opt;
  const bool final_epoch = epoch + 1 == o.epochs;
  EpochEnd end;
  end.interrupted = stop_requested_;
  if (s.main) {
    const auto t_val = TrainClock::now();
    std::optional<ValidationResult> val;
    if (o.val || final_epoch) {
      val = validate(s.ema->model(), false);
      std::fputs(metrics_table_rows(val->metrics, s.names, false).c_str(), stderr);
    }
    if (on_validated_) on_validated_(epoch);
    // A stop that came during validation ends the run after this epoch's checkpoint, not one
    // batch into the next epoch.
    end.interrupted = end.interrupted || stop_requested_;
    const double fitness = val ? val->fitness() : -(losses[0] + losses[1] + losses[2]);
    ResultsRow row;
    row.epoch = epoch + 1;
    row.time = seconds_since(s.t_start);
    for (int k = 0; k < 3; ++k) row.train_loss[k] = losses[static_cast<size_t>(k)];
    if (val) {
      row.precision = val->metrics.mp, row.recall = val->metrics.mr;
      row.map50 = val->metrics.map50, row.map50_95 = val->metrics.map50_95;
      if (val->loss) row.val_loss = *val->loss;
    }
    for (const auto& g : s.optimizer->groups()) row.lr.push_back(g.lr);
    s.results.append(row);
    s.results.write_csv(s.save_dir / "results.csv");
    if (o.plots) s.results.plot(s.save_dir / "results.png");

    s.ts.epoch = epoch;
    s.ts.batch_in_epoch = 0;
    s.ts.epoch_losses.clear();
    s.ts.epoch_loss_batches = 0;
    const bool improved = !s.ts.best_fitness || fitness >= *s.ts.best_fitness;
    if (improved) {
      s.ts.best_fitness = fitness;
      s.ts.best_epoch = epoch;
      s.ts.patience_counter = 0;
    } else {
      ++s.ts.patience_counter;
    }
    end.patience = o.patience > 0 && s.ts.patience_counter >= o.patience && !final_epoch;
    end.time_limit = o.time_limit_hours > 0 && seconds_since(s.t_start) > o.time_limit_hours * 3600;
    const auto t_save = TrainClock::now();
    // save=False (Ultralytics' meaning): checkpoints only once the run ends, which is also an
    // early stop (patience, time limit, a stop request), so that the run keeps its weights.
    if (o.save || final_epoch || end.patience || end.time_limit || end.interrupted) {
      save_checkpoint(s.last, true);
      if (improved) link_or_copy_atomically(s.last, s.best);
    }
    s.spent_train += std::chrono::duration<double>(t_val - t_epoch).count();
    s.spent_validate += std::chrono::duration<double>(t_save - t_val).count();
    s.spent_save += seconds_since(t_save);
    if (o.save && o.save_period > 0 && (epoch + 1) % o.save_period == 0)
      link_or_copy_atomically(s.last,
                              s.save_dir / "weights" / fmt::format("epoch{}.pt", epoch + 1));
  }
  if (s.pg) {  // rank 0 decided; the others wait here while it validates and saves
    end.interrupted = s.pg->any(end.interrupted);
    end.patience = s.pg->any(end.patience);
    end.time_limit = s.pg->any(end.time_limit);
  }
  return end;
}

ValidationResult Trainer::validate(DetectionModelImpl& m, bool with_plots) {
  State& s = *s_;
  ValidatorOptions o = s.val_options;
  o.plots = with_plots && s.opt.plots && s.main;
  Validator validator(o);
  m.eval();
  if (s.channels_last) weights_to_channels_last(m);  // a no-op for the EMA; best.pt loads NCHW
  auto forward = [&](const torch::Tensor& images, const torch::Tensor& targets) {
    nn::DetectTrainOutput train_out;
    {
      AutocastScope scope(s.device.type(), s.amp_dtype, s.amp);
      train_out = m.forward_train(s.channels_last ? to_channels_last(images) : images);
    }
    train_out = outputs_in_fp32(train_out);  // boxes decoded and the loss computed in FP32
    ModelBatchOutput r;
    r.predictions = m.detect().inference_output(train_out).to(torch::kFloat);
    auto [anchors, strides] = m.detect().anchors_for(train_out.one2many.feats);
    LossOutput l = s.e2e_loss ? (*s.e2e_loss)(train_out, anchors, strides, targets)
                              : (*s.loss)(train_out.one2many, anchors, strides, targets);
    r.loss_items = l.items;
    return r;
  };
  return validator.run(*s.val_loader, forward, s.device);
}

void Trainer::save_checkpoint(const fs::path& path, bool with_optimizer) {
  State& s = *s_;
  TrainCheckpoint ckpt;
  ckpt.state = s.ts;
  ckpt.state.date = utc_now();
  ckpt.state.ema_updates = s.ema->updates();
  ckpt.state.scaler_scale = s.scaler->current_scale();
  ckpt.state.scaler_tracker = s.scaler->growth_tracker();
  ckpt.args_yaml = cfg_.to_yaml();
  if (with_optimizer) {
    ckpt.model_weights = pickle_state(*s.model);
    ckpt.optimizer = s.optimizer->state();
  } else {
    ckpt.state.finished = true;
  }
  try {
    save_training_checkpoint(path, s.ema->model(), *s.exporter, ckpt);
  } catch (const SpaceError& e) {
    // The previous file of that name is intact (saves are atomic): say so, and how to go on.
    if (fs::exists(path)) {
      throw SpaceError(fmt::format(
          "{}. Training stopped: epoch {} could not be saved; {} keeps the checkpoint saved "
          "before it, and resume=True continues from there",
          e.what(), s.ts.epoch + 1, path.string()));
    }
    throw SpaceError(fmt::format(
        "{}. Training stopped: epoch {} could not be saved, and no checkpoint was saved before "
        "it, so there is nothing to resume from: fix what the message names (free space, a "
        "larger file size limit, or project= on another disk) and train again",
        e.what(), s.ts.epoch + 1));
  }
}

// Strips the optimiser state from both checkpoints and validates best.pt with plots.
void Trainer::final_evaluation(TrainResult& out) {
  State& s = *s_;
  in_final_evaluation_ = true;
  // Where the time went: on small sets per-epoch validation and checkpoints are a visible share
  // (val=False skips the per-epoch validation), and a slow run should say which part was slow.
  spdlog::info(
      "{} epochs completed in {:.3f} hours (training {:.0f} s, of which getting batches {:.0f} s "
      "= {:.0f} %; validation {:.0f} s, checkpoints {:.0f} s).",
      out.epochs_completed, out.seconds / 3600, s.spent_train, s.spent_data,
      s.spent_train > 0 ? 100 * s.spent_data / s.spent_train : 0.0, s.spent_validate, s.spent_save);
  if (s.scaler->enabled()) {
    // FP16's loss scaling skips a step whose gradients overflowed: a few while the scale settles
    // are normal; many mean FP16 does not suit this model (amp=False).
    spdlog::info("AMP: the gradient scaler skipped {} of {} optimizer steps (scale now {:g}).",
                 s.scaler_skipped, s.scaler_steps, s.scaler->current_scale());
  }
  const TrainState final_state = s.ts;
  save_checkpoint(s.last, false);
  if (fs::exists(s.best)) {
    auto best_model = load_eager_model(s.best.string());
    best_model->to(s.device);
    // Re-save best.pt without the optimiser (its traced model and weights are unchanged).
    TrainCheckpoint ckpt;
    ckpt.state = final_state;
    ckpt.state.finished = true;
    ckpt.state.date = utc_now();
    ckpt.args_yaml = cfg_.to_yaml();
    save_training_checkpoint(s.best, *best_model, *s.exporter, ckpt);
    spdlog::info("Validating {}...", s.best.string());
    ValidationResult final_val = validate(*best_model, true);
    std::fputs(metrics_table_rows(final_val.metrics, s.names, true).c_str(), stdout);
    std::fprintf(stdout, "%s\n", final_val.speed_line().c_str());
    out.map50 = final_val.metrics.map50;
    out.map50_95 = final_val.metrics.map50_95;
  }
  std::fprintf(stdout, "Results saved to %s\n", s.save_dir.string().c_str());
}

}  // namespace yolo
