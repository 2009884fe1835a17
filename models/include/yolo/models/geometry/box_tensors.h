// Box maths on tensors of boxes (Ultralytics' utils/ops.py xywh2xyxy / xyxy2xywh and
// utils/metrics.py bbox_iou(..., CIoU=True)), shared by the head, the loss, the assigner and the
// runtime's NMS input. The single-box forms are box_math.h.
#pragma once

#include <torch/types.h>

namespace yolo::boxes {

// (…, 4, …) centre-xywh -> xyxy along `dim` (the 4 coordinates' dimension).
torch::Tensor xywh_to_xyxy(const torch::Tensor& boxes, int64_t dim = -1);
// (…, 4, …) xyxy -> centre-xywh along `dim`.
torch::Tensor xyxy_to_xywh(const torch::Tensor& boxes, int64_t dim = -1);

// Complete IoU (Zheng et al.; Ultralytics' bbox_iou(box1, box2, xywh=False, CIoU=True), eps 1e-7)
// of xyxy boxes broadcast over leading dimensions: (…, 4) x (…, 4) -> (…). Differentiable in
// both; the aspect-ratio trade-off weight is a constant for the gradient, as in Ultralytics.
torch::Tensor ciou(const torch::Tensor& box1, const torch::Tensor& box2, double eps = 1e-7);

}  // namespace yolo::boxes
