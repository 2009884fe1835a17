// The task-aligned assigner (Ultralytics' utils/tal.py: TaskAlignedAssigner, 8.4.x): picks, for
// every ground-truth box, the anchors whose predictions align best with it (class score^alpha *
// CIoU^beta among anchors inside the box) and builds the soft targets of the detection loss.
#pragma once

#include <torch/types.h>

#include <vector>

namespace yolo {

struct AssignerOptions {
  int64_t topk = 10;  // anchors kept per ground truth by alignment
  // Second, stricter top-k after conflicts are resolved; topk2 == topk disables it, 1 gives the
  // one-to-one assignment of YOLO26's end-to-end branch.
  int64_t topk2 = 10;
  int64_t num_classes = 80;
  double alpha = 0.5, beta = 6.0, eps = 1e-9;
  // Model strides, e.g. {8, 16, 32}: boxes narrower or shorter than strides[0] are widened to
  // strides[1] for the inside-the-box test only (8.4's small-object rule). Empty disables it.
  std::vector<double> strides;
};

struct Assignment {
  torch::Tensor labels;    // (B, A) int64 class of the assigned box (0 where background)
  torch::Tensor boxes;     // (B, A, 4) xyxy of the assigned box, same units as gt_boxes
  torch::Tensor scores;    // (B, A, nc) soft targets: one-hot * normalised alignment
  torch::Tensor fg_mask;   // (B, A) bool, anchors assigned to a box
  torch::Tensor gt_index;  // (B, A) int64 index of the assigned box within its image
};

class TaskAlignedAssigner {
 public:
  explicit TaskAlignedAssigner(AssignerOptions options);

  // pred_scores (B, A, nc) sigmoid scores; pred_boxes (B, A, 4) xyxy pixels; anchors (A, 2)
  // pixels; gt_labels (B, M, 1); gt_boxes (B, M, 4) xyxy pixels; gt_mask (B, M, 1) (real boxes
  // vs padding). Runs without gradients.
  Assignment assign(const torch::Tensor& pred_scores, const torch::Tensor& pred_boxes,
                    const torch::Tensor& anchors, const torch::Tensor& gt_labels,
                    const torch::Tensor& gt_boxes, const torch::Tensor& gt_mask) const;

  const AssignerOptions& options() const { return opts_; }

  // Steps, public for tests. (B, M, A) float masks / metrics throughout.
  torch::Tensor candidates_in_boxes(const torch::Tensor& anchors, const torch::Tensor& gt_boxes,
                                    const torch::Tensor& gt_mask) const;
  torch::Tensor topk_mask(const torch::Tensor& metric, const torch::Tensor& gt_mask) const;

 private:
  AssignerOptions opts_;
};

}  // namespace yolo
