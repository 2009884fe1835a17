// Learning-rate schedule and warm-up of Ultralytics' trainer (engine/trainer.py, 8.4.x).
#pragma once

#include <cstdint>

#include "yolo/trainer/train/optimizer.h"

namespace yolo {

struct ScheduleOptions {
  int epochs = 100;
  double lrf = 0.01;    // final lr as a fraction of lr0
  bool cosine = false;  // cos_lr
  double warmup_epochs = 3.0;
  double warmup_momentum = 0.8, warmup_bias_lr = 0.1, momentum = 0.937;
  int nbs = 64, batch = 16;  // nominal batch and real batch (for accumulation)
};

// lf(epoch): linear max(1 - e/E, 0)(1 - lrf) + lrf, or cosine ((1 - cos(e pi / E)) / 2)(lrf - 1)
// + 1.
double lr_factor(const ScheduleOptions& o, double epoch);
// Warm-up iterations (Ultralytics 8.4.190): round(min(warmup_epochs, max(epochs - 1, 0)) *
// batches_per_epoch) with Python's rounding, 0 without warm-up.
int64_t warmup_iterations(const ScheduleOptions& o, int64_t batches_per_epoch);
// Batches per optimiser step by the nominal batch: max(round(nbs / batch), 1). Weight decay is
// scaled by this value.
int nominal_accumulate(const ScheduleOptions& o);
// Batches per optimiser step after warm-up: nominal_accumulate capped at the run's batch count
// (batches_per_epoch * epochs), as Ultralytics caps it outside time-limited runs.
int accumulate_steps(const ScheduleOptions& o, int64_t batches_per_epoch);
// np.interp for two points: x <= x0 -> y0, x >= x1 -> y1, linear between.
double interp(double x, double x0, double x1, double y0, double y1);

// Sets each group's lr (and momentum, for the SGD family) for global iteration `ni` of `epoch`:
// during warm-up (ni <= warmup) the bias groups go from warmup_bias_lr and the others from 0 to
// initial_lr * lf(epoch), momentum from warmup_momentum to momentum, and the accumulation from 1
// to `accumulate`; afterwards lr = initial_lr * lf(epoch) (Ultralytics' LambdaLR, stepped at
// each epoch start). Returns the accumulation (batches per optimiser step) for this iteration.
int apply_schedule(const ScheduleOptions& o, Optimizer& optimizer, int64_t ni, int64_t warmup,
                   int epoch, int accumulate);

// Model EMA decay after `updates` optimiser steps: decay * (1 - exp(-updates / tau)).
double ema_decay(int64_t updates, double decay = 0.9999, double tau = 2000);

}  // namespace yolo
