// Mirrors ultralytics/utils/tal.py (8.4.x) step for step; the comments name the Python function
// each block corresponds to, so that differences can be checked line by line.
#include "yolo/trainer/train/assigner.h"

#include <torch/torch.h>

#include <stdexcept>

#include "yolo/models/geometry/box_tensors.h"

namespace yolo {

TaskAlignedAssigner::TaskAlignedAssigner(AssignerOptions options) : opts_(std::move(options)) {
  if (opts_.topk < 1 || opts_.topk2 < 1 || opts_.num_classes < 1)
    throw std::invalid_argument("TaskAlignedAssigner: topk, topk2 and num_classes must be >= 1");
}

torch::Tensor TaskAlignedAssigner::candidates_in_boxes(const torch::Tensor& anchors,
                                                       const torch::Tensor& gt_boxes,
                                                       const torch::Tensor& gt_mask) const {
  // select_candidates_in_gts: anchor centres strictly inside the box; a side shorter than the
  // second stride is first widened to it about the box centre (Ultralytics 8.4.190; earlier 8.4
  // releases widened only sides under the smallest stride).
  torch::Tensor regions = gt_boxes;
  if (opts_.strides.size() >= 2) {
    auto xywh = boxes::xyxy_to_xywh(gt_boxes);
    auto wh = xywh.slice(-1, 2, 4);
    auto small = (wh < opts_.strides[1]).logical_and(gt_mask.to(torch::kBool));
    auto widened = torch::where(small, torch::full_like(wh, opts_.strides[1]), wh);
    regions = boxes::xywh_to_xyxy(torch::cat({xywh.slice(-1, 0, 2), widened}, -1));
  }
  const int64_t bs = regions.size(0), m = regions.size(1), na = anchors.size(0);
  auto flat = regions.reshape({-1, 1, 4});
  auto lt = flat.slice(-1, 0, 2), rb = flat.slice(-1, 2, 4);
  auto centres = anchors.unsqueeze(0);
  auto deltas = torch::cat({centres - lt, rb - centres}, 2).view({bs, m, na, 4});
  return std::get<0>(deltas.min(3)).gt(opts_.eps).to(anchors.scalar_type());
}

torch::Tensor TaskAlignedAssigner::topk_mask(const torch::Tensor& metric,
                                             const torch::Tensor& gt_mask) const {
  // select_topk_candidates: the top-k anchors per box; an index drawn twice (padding boxes point
  // every slot at anchor 0) counts as not selected.
  const int64_t k = std::min<int64_t>(opts_.topk, metric.size(-1));
  auto idx = std::get<1>(metric.topk(k, -1, true));  // (B, M, k)
  auto valid = gt_mask.to(torch::kBool).expand({-1, -1, k});
  idx = idx.masked_fill(valid.logical_not(), 0);
  auto count = torch::zeros(metric.sizes(), metric.options().dtype(torch::kInt8));
  auto ones = torch::ones({idx.size(0), idx.size(1), 1}, count.options());
  for (int64_t j = 0; j < k; ++j) count.scatter_add_(-1, idx.slice(-1, j, j + 1), ones);
  count.masked_fill_(count > 1, 0);
  return count.to(metric.scalar_type());
}

Assignment TaskAlignedAssigner::assign(const torch::Tensor& pred_scores,
                                       const torch::Tensor& pred_boxes,
                                       const torch::Tensor& anchors, const torch::Tensor& gt_labels,
                                       const torch::Tensor& gt_boxes,
                                       const torch::Tensor& gt_mask) const {
  torch::NoGradGuard no_grad;
  const int64_t bs = pred_scores.size(0), na = pred_scores.size(1);
  const int64_t m = gt_boxes.size(1), nc = opts_.num_classes;
  TORCH_CHECK(pred_scores.size(2) == nc, "assigner: scores have ", pred_scores.size(2),
              " classes, expected ", nc);
  const auto dev = pred_scores.device();
  Assignment out;
  if (m == 0) {
    out.labels = torch::full({bs, na}, nc, torch::dtype(torch::kLong).device(dev));
    out.boxes = torch::zeros_like(pred_boxes);
    out.scores = torch::zeros_like(pred_scores);
    out.fg_mask = torch::zeros({bs, na}, torch::dtype(torch::kBool).device(dev));
    out.gt_index = torch::zeros({bs, na}, torch::dtype(torch::kLong).device(dev));
    return out;
  }

  // get_pos_mask -> get_box_metrics
  auto in_gts = candidates_in_boxes(anchors, gt_boxes, gt_mask);      // (B, M, A)
  auto mask_gt = (in_gts * gt_mask).to(torch::kBool);                 // candidate pairs
  auto labels = gt_labels.squeeze(-1).to(torch::kLong).clamp_min(0);  // (B, M)
  auto overlaps = torch::zeros({bs, m, na}, pred_boxes.options());
  auto box_scores = torch::zeros({bs, m, na}, pred_scores.options());
  // Score of each anchor for each box's class: gather the (B, A, nc) scores at the labels.
  auto class_scores =
      pred_scores.permute({0, 2, 1}).gather(1, labels.unsqueeze(-1).expand({-1, -1, na}));
  box_scores.index_put_({mask_gt}, class_scores.index({mask_gt}));
  auto pd = pred_boxes.unsqueeze(1).expand({-1, m, -1, -1}).index({mask_gt});
  auto gt = gt_boxes.unsqueeze(2).expand({-1, -1, na, -1}).index({mask_gt});
  overlaps.index_put_({mask_gt}, boxes::ciou(gt, pd).clamp_min(0).to(overlaps.scalar_type()));
  auto align = box_scores.pow(opts_.alpha) * overlaps.pow(opts_.beta);
  auto mask_pos = topk_mask(align, gt_mask) * in_gts * gt_mask;

  // select_highest_overlaps: an anchor claimed by several boxes keeps the one it overlaps most.
  auto fg = mask_pos.sum(-2);
  if (fg.max().item<double>() > 1) {
    auto multi = (fg.unsqueeze(1) > 1).expand({-1, m, -1});
    auto best = overlaps.argmax(1);
    auto is_best = torch::zeros_like(mask_pos).scatter_(1, best.unsqueeze(1), 1);
    mask_pos = torch::where(multi, is_best, mask_pos);
    fg = mask_pos.sum(-2);
  }
  if (opts_.topk2 != opts_.topk) {
    const int64_t k2 = std::min<int64_t>(opts_.topk2, na);
    auto idx = std::get<1>((align * mask_pos).topk(k2, -1, true));
    auto keep = torch::zeros_like(mask_pos).scatter_(-1, idx, 1);
    mask_pos = mask_pos * keep;
    fg = mask_pos.sum(-2);
  }
  auto gt_index = mask_pos.argmax(-2);  // (B, A)

  // get_targets
  auto flat_index = gt_index + torch::arange(bs, gt_index.options()).unsqueeze(-1) * m;
  out.labels = labels.flatten().index({flat_index});
  out.boxes = gt_boxes.reshape({-1, 4}).index({flat_index});
  out.fg_mask = fg > 0;
  auto one_hot = torch::one_hot(out.labels, nc).to(pred_scores.scalar_type());
  auto scores = one_hot * out.fg_mask.unsqueeze(-1).to(one_hot.scalar_type());

  // Normalise the alignment per box so that its best anchor's target equals its best IoU.
  align = align * mask_pos;
  auto pos_align = std::get<0>(align.max(-1, true));
  auto pos_overlap = std::get<0>((overlaps * mask_pos).max(-1, true));
  auto norm = std::get<0>((align * pos_overlap / (pos_align + opts_.eps)).max(-2)).unsqueeze(-1);
  out.scores = scores * norm;
  out.gt_index = gt_index;
  return out;
}

}  // namespace yolo
