// Exponential moving average of the model's weights (Ultralytics' ModelEMA): validation and
// checkpoints use the average, which is smoother than the raw weights.
#pragma once

#include <cstdint>
#include <memory>

#include "yolo/models/detection_model.h"

namespace yolo {

class ModelEMA {
 public:
  // Copies `model` (eval mode, no gradients). decay and tau as Ultralytics: d = decay(1 -
  // e^-u/tau).
  explicit ModelEMA(const DetectionModelImpl& model, double decay = 0.9999, double tau = 2000,
                    int64_t updates = 0);

  // After each optimiser step: every floating-point parameter and buffer v <- d v + (1 - d) m.
  void update(const DetectionModelImpl& model);

  DetectionModelImpl& model() { return *ema_; }
  const DetectionModelImpl& model() const { return *ema_; }
  std::shared_ptr<DetectionModelImpl> shared() const { return ema_; }
  int64_t updates() const { return updates_; }
  void set_updates(int64_t updates) { updates_ = updates; }
  double current_decay() const;

 private:
  std::shared_ptr<DetectionModelImpl> ema_;
  double decay_, tau_;
  int64_t updates_;
};

}  // namespace yolo
