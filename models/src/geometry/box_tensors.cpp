#include "yolo/models/geometry/box_tensors.h"

#include <torch/torch.h>

#include <cmath>

namespace yolo::boxes {

torch::Tensor xywh_to_xyxy(const torch::Tensor& boxes, int64_t dim) {
  auto xy = boxes.narrow(dim, 0, 2), half = boxes.narrow(dim, 2, 2) / 2;
  return torch::cat({xy - half, xy + half}, dim);
}

torch::Tensor xyxy_to_xywh(const torch::Tensor& boxes, int64_t dim) {
  auto x1y1 = boxes.narrow(dim, 0, 2), x2y2 = boxes.narrow(dim, 2, 2);
  return torch::cat({(x1y1 + x2y2) / 2, x2y2 - x1y1}, dim);
}

torch::Tensor ciou(const torch::Tensor& box1, const torch::Tensor& box2, double eps) {
  auto b1x1 = box1.select(-1, 0), b1y1 = box1.select(-1, 1);
  auto b1x2 = box1.select(-1, 2), b1y2 = box1.select(-1, 3);
  auto b2x1 = box2.select(-1, 0), b2y1 = box2.select(-1, 1);
  auto b2x2 = box2.select(-1, 2), b2y2 = box2.select(-1, 3);
  auto w1 = b1x2 - b1x1, h1 = b1y2 - b1y1 + eps;
  auto w2 = b2x2 - b2x1, h2 = b2y2 - b2y1 + eps;
  auto inter = (torch::min(b1x2, b2x2) - torch::max(b1x1, b2x1)).clamp_min(0) *
               (torch::min(b1y2, b2y2) - torch::max(b1y1, b2y1)).clamp_min(0);
  auto uni = w1 * h1 + w2 * h2 - inter + eps;
  auto iou = inter / uni;
  auto cw = torch::max(b1x2, b2x2) - torch::min(b1x1, b2x1);  // enclosing box
  auto ch = torch::max(b1y2, b2y2) - torch::min(b1y1, b2y1);
  auto c2 = cw.pow(2) + ch.pow(2) + eps;
  auto rho2 = ((b2x1 + b2x2 - b1x1 - b1x2).pow(2) + (b2y1 + b2y2 - b1y1 - b1y2).pow(2)) / 4;
  auto v = (4 / (M_PI * M_PI)) * (torch::atan(w2 / h2) - torch::atan(w1 / h1)).pow(2);
  torch::Tensor alpha;
  {
    torch::NoGradGuard no_grad;
    alpha = v / (v - iou + (1 + eps));
  }
  return iou - (rho2 / c2 + v * alpha);
}

}  // namespace yolo::boxes
