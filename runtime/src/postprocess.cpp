#include "yolo/runtime/postprocess.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

#include "yolo/core/box_math.h"

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

bool NmsWorkspace::class_wanted(int cls, const NmsOptions& o) const {
  return o.classes.empty() || std::find(o.classes.begin(), o.classes.end(), cls) != o.classes.end();
}

std::vector<float>& NmsWorkspace::run(const float* pred, int64_t channels, int64_t anchors,
                                      const NmsOptions& o, bool end2end) {
  rows_.clear();
  if (end2end) {
    if (channels != 6) throw std::invalid_argument("end-to-end output must be (B, K, 6)");
    filter_end2end(pred, anchors, o);
    return rows_;
  }
  if (channels - 4 < 1) throw std::invalid_argument("model output has no class scores");
  gather_candidates(pred, channels - 4, anchors, o);
  order_by_score(o.max_nms);
  keep_greedy(o);
  for (const int32_t i : kept_) {
    const Candidate& c = candidates_[static_cast<size_t>(i)];
    rows_.insert(rows_.end(), {c.x1, c.y1, c.x2, c.y2, c.score, static_cast<float>(c.cls)});
  }
  return rows_;
}

void NmsWorkspace::filter_end2end(const float* pred, int64_t rows, const NmsOptions& o) {
  // The model's own order, only filtered: no IoU step.
  for (int64_t a = 0; a < rows && static_cast<int>(count()) < o.max_det; ++a) {
    const float* r = pred + a * 6;
    if (!(r[4] > o.conf) || !class_wanted(static_cast<int>(r[5]), o)) continue;
    rows_.insert(rows_.end(), r, r + 6);
  }
}

void NmsWorkspace::gather_candidates(const float* pred, int64_t nc, int64_t anchors,
                                     const NmsOptions& o) {
  candidates_.clear();
  for (int64_t a = 0; a < anchors; ++a) {
    // Channel-major: anchor a's values are `anchors` apart.
    const float* s = pred + 4 * anchors + a;
    float best = s[0];
    int64_t best_class = 0;
    for (int64_t c = 1; c < nc; ++c) {
      if (s[c * anchors] > best) {
        best = s[c * anchors];
        best_class = c;
      }
    }
    if (!(best > o.conf)) continue;
    // Centre-xywh -> corners as boxes::xywh_to_xyxy computes them (xy -/+ wh / 2).
    const float cx = pred[a], cy = pred[anchors + a];
    const float hw = pred[2 * anchors + a] / 2, hh = pred[3 * anchors + a] / 2;
    Candidate k{cx - hw, cy - hh, cx + hw, cy + hh, best, 0, static_cast<int>(best_class)};
    k.area = boxes::area({k.x1, k.y1, k.x2, k.y2});
    if (o.multi_label && nc > 1) {
      // One candidate per class above conf, in (anchor, class) order.
      for (int64_t c = 0; c < nc; ++c) {
        k.score = s[c * anchors];
        k.cls = static_cast<int>(c);
        if (k.score > o.conf && class_wanted(k.cls, o)) candidates_.push_back(k);
      }
    } else if (class_wanted(k.cls, o)) {
      candidates_.push_back(k);
    }
  }
}

void NmsWorkspace::order_by_score(int max_nms) {
  // Descending score, ties by position; only the best max_nms enter NMS.
  order_.resize(candidates_.size());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int32_t>(i);
  const auto before = [this](int32_t i, int32_t j) {
    const float si = candidates_[static_cast<size_t>(i)].score;
    const float sj = candidates_[static_cast<size_t>(j)].score;
    return si > sj || (si == sj && i < j);
  };
  if (static_cast<int64_t>(order_.size()) > max_nms) {
    std::nth_element(order_.begin(), order_.begin() + max_nms, order_.end(), before);
    order_.resize(static_cast<size_t>(max_nms));
  }
  std::sort(order_.begin(), order_.end(), before);
}

void NmsWorkspace::keep_greedy(const NmsOptions& o) {
  // A box survives unless a kept box of its class (or any, agnostic) overlaps it more than iou
  // (torchvision's IoU: no eps). The kept list is already in output order.
  kept_.clear();
  for (const int32_t i : order_) {
    if (static_cast<int>(kept_.size()) >= o.max_det) break;
    const Candidate& ci = candidates_[static_cast<size_t>(i)];
    const boxes::Xyxy bi{ci.x1, ci.y1, ci.x2, ci.y2};
    bool suppressed = false;
    for (const int32_t j : kept_) {
      const Candidate& cj = candidates_[static_cast<size_t>(j)];
      if (!o.agnostic && cj.cls != ci.cls) continue;
      const float inter = boxes::intersection({cj.x1, cj.y1, cj.x2, cj.y2}, bi);
      if (inter > 0 && boxes::iou_of_areas(inter, cj.area, ci.area, 0.0f) > o.iou) {
        suppressed = true;
        break;
      }
    }
    if (!suppressed) kept_.push_back(i);
  }
}

std::vector<torch::Tensor> non_max_suppression(const torch::Tensor& pred_in, const NmsOptions& o,
                                               bool end2end) {
  if (pred_in.dim() != 3) throw std::invalid_argument("non_max_suppression: expects a 3-D tensor");
  torch::NoGradGuard no_grad;
  const torch::Tensor pred = pred_in.to(torch::kCPU, torch::kFloat).contiguous();
  NmsWorkspace workspace;
  std::vector<torch::Tensor> out;
  for (int64_t i = 0; i < pred.size(0); ++i) {
    const torch::Tensor image = pred[i];
    const std::vector<float>& rows =
        workspace.run(image.data_ptr<float>(), end2end ? image.size(1) : image.size(0),
                      end2end ? image.size(0) : image.size(1), o, end2end);
    out.push_back(torch::tensor(rows, torch::kFloat).view({workspace.count(), 6}));
  }
  return out;
}

void rows_to_source(float* rows, int64_t n, int64_t stride, const LetterboxTransform& t) {
  // In float, as the tensor arithmetic this replaced (sub_, div_, clamp_ of float tensors).
  const auto pad_x = static_cast<float>(t.pad_left), pad_y = static_cast<float>(t.pad_top);
  const auto gain_x = static_cast<float>(t.back_gain_x), gain_y = static_cast<float>(t.back_gain_y);
  const auto w = static_cast<float>(t.src_width), h = static_cast<float>(t.src_height);
  for (int64_t i = 0; i < n; ++i) {
    float* r = rows + i * stride;
    r[0] = std::clamp((r[0] - pad_x) / gain_x, 0.f, w);
    r[1] = std::clamp((r[1] - pad_y) / gain_y, 0.f, h);
    r[2] = std::clamp((r[2] - pad_x) / gain_x, 0.f, w);
    r[3] = std::clamp((r[3] - pad_y) / gain_y, 0.f, h);
  }
}

void detections_to_source(torch::Tensor& dets, const LetterboxTransform& t) {
  if (dets.size(0) == 0) return;
  if (!dets.device().is_cpu() || dets.scalar_type() != torch::kFloat || !dets.is_contiguous())
    dets = dets.to(torch::kCPU, torch::kFloat).contiguous();
  rows_to_source(dets.data_ptr<float>(), dets.size(0), dets.size(1), t);
}

}  // namespace yolo
