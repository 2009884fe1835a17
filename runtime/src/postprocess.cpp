#include "yolo/runtime/postprocess.h"

#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

#include "yolo/core/box_math.h"
#include "yolo/models/geometry/box_tensors.h"

namespace yolo {

torch::Tensor nms_indices(const torch::Tensor& boxes_in, const torch::Tensor& scores_in,
                          float iou) {
  const int64_t n = boxes_in.size(0);
  if (n == 0) return torch::empty({0}, torch::kLong);
  torch::Tensor corners = boxes_in.to(torch::kCPU, torch::kFloat).contiguous();
  torch::Tensor order =
      std::get<1>(scores_in.to(torch::kCPU, torch::kFloat).sort(0, /*descending=*/true));
  order = order.contiguous();
  const float* b = corners.data_ptr<float>();
  const int64_t* idx = order.data_ptr<int64_t>();
  auto box_at = [b](int64_t i) {
    return boxes::Xyxy{b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]};
  };
  std::vector<float> area(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) area[i] = boxes::area(box_at(i));
  std::vector<char> suppressed(static_cast<size_t>(n), 0);
  std::vector<int64_t> keep;
  for (int64_t oi = 0; oi < n; ++oi) {
    const int64_t i = idx[oi];
    if (suppressed[i]) continue;
    keep.push_back(i);
    const boxes::Xyxy bi = box_at(i);
    for (int64_t oj = oi + 1; oj < n; ++oj) {
      const int64_t j = idx[oj];
      if (suppressed[j]) continue;
      // torchvision's nms: IoU with no eps in the denominator.
      const float inter = boxes::intersection(bi, box_at(j));
      if (inter > 0 && boxes::iou_of_areas(inter, area[i], area[j], 0.0f) > iou) suppressed[j] = 1;
    }
  }
  return torch::tensor(keep, torch::kLong);
}

namespace {

torch::Tensor class_filter(torch::Tensor det, const std::vector<int>& classes) {
  if (classes.empty() || det.size(0) == 0) return det;
  torch::Tensor wanted =
      torch::tensor(std::vector<float>(classes.begin(), classes.end()), det.options());
  return det.index({(det.select(1, 5).unsqueeze(1) == wanted).any(1)});
}

}  // namespace

std::vector<torch::Tensor> non_max_suppression(const torch::Tensor& pred_in, const NmsOptions& o,
                                               bool end2end) {
  if (pred_in.dim() != 3) throw std::invalid_argument("non_max_suppression: expects a 3-D tensor");
  torch::NoGradGuard no_grad;
  // Candidates are selected on the prediction's device; the greedy loop runs on the CPU.
  const torch::Tensor pred = pred_in.to(torch::kFloat);
  std::vector<torch::Tensor> out;
  const int64_t batch = pred.size(0);
  if (end2end) {
    if (pred.size(2) != 6) throw std::invalid_argument("end-to-end output must be (B, K, 6)");
    for (int64_t i = 0; i < batch; ++i) {
      torch::Tensor d = pred[i];
      d = d.index({d.select(1, 4) > o.conf});
      d = class_filter(d, o.classes).slice(0, 0, o.max_det);
      out.push_back(d.cpu().contiguous());
    }
    return out;
  }
  const int64_t nc = pred.size(1) - 4;
  if (nc < 1) throw std::invalid_argument("model output has no class scores");
  for (int64_t i = 0; i < batch; ++i) {
    torch::Tensor x = pred[i].transpose(0, 1);  // (A, 4+nc)
    torch::Tensor scores = x.slice(1, 4);
    x = x.index({std::get<0>(scores.max(1)) > o.conf});
    if (x.size(0) == 0) {
      out.push_back(torch::zeros({0, 6}));
      continue;
    }
    torch::Tensor box = boxes::xywh_to_xyxy(x.slice(1, 0, 4));
    torch::Tensor cls_scores = x.slice(1, 4);
    torch::Tensor det;
    if (o.multi_label && nc > 1) {
      torch::Tensor ij = (cls_scores > o.conf).nonzero();  // (M, 2): box, class
      torch::Tensor bi = ij.select(1, 0), ci = ij.select(1, 1);
      det = torch::cat({box.index({bi}), cls_scores.index({bi, ci}).unsqueeze(1),
                        ci.unsqueeze(1).to(torch::kFloat)},
                       1);
    } else {
      auto [conf, j] = cls_scores.max(1, true);
      det = torch::cat({box, conf, j.to(torch::kFloat)}, 1);
      det = det.index({conf.view(-1) > o.conf});
    }
    det = class_filter(det, o.classes);
    if (det.size(0) == 0) {
      out.push_back(torch::zeros({0, 6}));
      continue;
    }
    if (det.size(0) > o.max_nms) {
      det = det.index({std::get<1>(det.select(1, 4).topk(o.max_nms))});
    }
    det = det.cpu().contiguous();
    torch::Tensor keep;
    if (o.agnostic) {
      keep = nms_indices(det.slice(1, 0, 4), det.select(1, 4), o.iou);
    } else {
      // Ultralytics offsets each class's boxes by class * max_wh so that one NMS never lets
      // classes suppress each other. Running NMS per class gives the same kept set without
      // comparing boxes that cannot overlap (8400 candidates x 80 classes: ~80x fewer pairs).
      std::map<int, std::vector<int64_t>> by_class;
      const float* rows = det.data_ptr<float>();
      for (int64_t r = 0; r < det.size(0); ++r)
        by_class[static_cast<int>(rows[r * 6 + 5])].push_back(r);
      std::vector<torch::Tensor> kept;
      for (const auto& [c, rows_of_class] : by_class) {
        torch::Tensor members = torch::tensor(rows_of_class, torch::kLong);
        torch::Tensor sub = det.index({members});
        kept.push_back(members.index({nms_indices(sub.slice(1, 0, 4), sub.select(1, 4), o.iou)}));
      }
      keep = torch::cat(kept);
      // Back to one list by descending confidence, as a single NMS returns it.
      keep = keep.index({std::get<1>(det.select(1, 4).index({keep}).sort(0, true))});
    }
    keep = keep.slice(0, 0, o.max_det);
    out.push_back(det.index({keep}).contiguous());
  }
  return out;
}

void detections_to_source(torch::Tensor& dets, const LetterboxTransform& t) {
  if (dets.size(0) == 0) return;
  torch::NoGradGuard no_grad;
  auto x = dets.select(1, 0), y = dets.select(1, 1), x2 = dets.select(1, 2), y2 = dets.select(1, 3);
  x.sub_(t.pad_left).div_(t.back_gain_x).clamp_(0, t.src_width);
  x2.sub_(t.pad_left).div_(t.back_gain_x).clamp_(0, t.src_width);
  y.sub_(t.pad_top).div_(t.back_gain_y).clamp_(0, t.src_height);
  y2.sub_(t.pad_top).div_(t.back_gain_y).clamp_(0, t.src_height);
}

}  // namespace yolo
