// Detection losses (Ultralytics' utils/loss.py, 8.4.x): v8DetectionLoss (task-aligned
// assignment; BCE on soft class targets, CIoU box loss, DFL or -- when reg_max is 1 -- an L1 loss
// on image-normalised box distances) and YOLO26's end-to-end loss, which adds a one-to-one term
// whose weight grows linearly over the epochs.
#pragma once

#include <torch/types.h>

#include <vector>

#include "yolo/models/nn/head.h"
#include "yolo/trainer/train/assigner.h"

namespace yolo {

struct LossGains {
  double box = 7.5, cls = 0.5, dfl = 1.5;
};

// Loss value for backward() (summed items x batch size, as Ultralytics returns it) and the
// detached per-image items (box, cls, dfl) for logging.
struct LossOutput {
  torch::Tensor total;  // scalar
  torch::Tensor items;  // (3,) box, cls, dfl
};

class DetectionLoss {
 public:
  // strides: the model's level strides ({8, 16, 32}); topk2 == topk disables the second top-k.
  DetectionLoss(int64_t num_classes, int64_t reg_max, std::vector<double> strides, LossGains gains,
                int64_t topk = 10, int64_t topk2 = 10);

  // head: one branch's raw outputs; anchors (2, A) and strides (1, A) from Detect::anchors_for;
  // targets (N, 6) rows of image index, class, cx, cy, w, h normalised to the input size.
  LossOutput operator()(const nn::HeadOutput& head, const torch::Tensor& anchors,
                        const torch::Tensor& strides, const torch::Tensor& targets) const;

  const TaskAlignedAssigner& assigner() const { return assigner_; }

 private:
  int64_t nc_, reg_max_;
  LossGains gains_;
  TaskAlignedAssigner assigner_;
};

// YOLO26: one-to-many (topk 10) + one-to-one (topk 7, topk2 1); the one-to-many weight moves
// linearly from 0.8 to 0.1 over the epochs (update() after each epoch). Logged items are the
// one-to-one ones.
class EndToEndLoss {
 public:
  EndToEndLoss(int64_t num_classes, int64_t reg_max, std::vector<double> strides, LossGains gains,
               int epochs);
  LossOutput operator()(const nn::DetectTrainOutput& out, const torch::Tensor& anchors,
                        const torch::Tensor& strides, const torch::Tensor& targets) const;
  // Called once per finished epoch.
  void update();
  // Sets the number of finished epochs directly (resume).
  void set_updates(int updates);
  double one2many_weight() const { return o2m_; }
  double one2one_weight() const { return 1.0 - o2m_; }

 private:
  DetectionLoss one2many_, one2one_;
  int epochs_, updates_ = 0;
  double o2m_ = 0.8;
};

// The head's FP16 or BF16 training outputs in FP32 (FP32 and float64 ones are left as they are).
// After a forward pass under autocast the loss and the box decoding run on these: in BF16 (8
// significant bits) a box edge at 300 px is off by up to 1 px, the assigner's IoUs move, and a DFL
// target of 14.99 rounds onto the last bin. Ultralytics computes its loss in the autocast type
// (FP16 on GPUs); FP32 costs a copy of the head's outputs and is exact where they are.
nn::DetectTrainOutput outputs_in_fp32(const nn::DetectTrainOutput& out);

// Distribution focal loss for bin logits (n, reg_max) and targets (n,) in grid units; targets are
// clamped to [0, reg_max - 1 - 0.01]. Returns (n,) per-side losses.
torch::Tensor distribution_focal_loss(const torch::Tensor& logits, const torch::Tensor& target,
                                      int64_t reg_max);
// Anchor (A, 2) and xyxy boxes (..., A, 4) -> (..., A, 4) ltrb distances; clamped to
// [0, max_distance - 0.01] when max_distance > 0.
torch::Tensor box_to_distances(const torch::Tensor& anchors, const torch::Tensor& boxes,
                               double max_distance);

}  // namespace yolo
