#include "yolo/trainer/train/schedule.h"

#include <algorithm>
#include <cmath>

namespace yolo {

double lr_factor(const ScheduleOptions& o, double epoch) {
  const double e = static_cast<double>(o.epochs);
  if (o.cosine) return ((1 - std::cos(epoch * M_PI / e)) / 2) * (o.lrf - 1) + 1;
  return std::max(1 - epoch / e, 0.0) * (1.0 - o.lrf) + o.lrf;
}

int64_t warmup_iterations(const ScheduleOptions& o, int64_t batches_per_epoch) {
  // Ultralytics 8.4.190 (BaseTrainer._get_warmup_iterations): at most epochs - 1 epochs, so the
  // last epoch always trains at the scheduled rate; Python's round() (half to even); no floor.
  const double epochs = std::min(o.warmup_epochs, std::max(o.epochs - 1, 0) * 1.0);
  if (epochs <= 0) return 0;
  return static_cast<int64_t>(std::nearbyint(epochs * static_cast<double>(batches_per_epoch)));
}

int nominal_accumulate(const ScheduleOptions& o) {
  return std::max(static_cast<int>(std::nearbyint(static_cast<double>(o.nbs) / o.batch)), 1);
}

int accumulate_steps(const ScheduleOptions& o, int64_t batches_per_epoch) {
  // Capped at the run's batch count, so a run shorter than one nominal batch still steps.
  const int64_t run_batches = batches_per_epoch * std::max(o.epochs, 1);
  return static_cast<int>(
      std::min<int64_t>(nominal_accumulate(o), std::max<int64_t>(run_batches, 1)));
}

double interp(double x, double x0, double x1, double y0, double y1) {
  if (x <= x0) return y0;
  if (x >= x1) return y1;
  return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

int apply_schedule(const ScheduleOptions& o, Optimizer& optimizer, int64_t ni, int64_t warmup,
                   int epoch, int accumulate) {
  const double lf = lr_factor(o, epoch);
  // ni == warmup lands accumulate, lr and momentum exactly on their targets (Ultralytics 8.4.190).
  const bool warming = warmup > 0 && ni <= warmup;
  if (warming) {
    const double x = static_cast<double>(ni), x1 = static_cast<double>(warmup);
    // Ramps to the (capped) accumulate, never past it. Python's round() of np.interp: half to
    // even, like std::nearbyint in the default mode.
    accumulate = std::max(1, static_cast<int>(std::nearbyint(interp(x, 0, x1, 1, accumulate))));
  }
  for (auto& g : optimizer.groups()) {
    const double target = g.initial_lr * lf;
    if (!warming) {
      g.lr = target;
      continue;
    }
    const bool bias = g.name.rfind("bias", 0) == 0;
    g.lr = interp(static_cast<double>(ni), 0, static_cast<double>(warmup),
                  bias ? o.warmup_bias_lr : 0.0, target);
    if (optimizer.has_momentum())
      g.momentum = interp(static_cast<double>(ni), 0, static_cast<double>(warmup),
                          o.warmup_momentum, o.momentum);
  }
  return accumulate;
}

double ema_decay(int64_t updates, double decay, double tau) {
  return decay * (1 - std::exp(-static_cast<double>(updates) / tau));
}

}  // namespace yolo
