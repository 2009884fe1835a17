#include "yolo/models/nn/head.h"

#include <cmath>

#include "yolo/models/geometry/box_tensors.h"

namespace yolo::nn {

DFLImpl::DFLImpl(int64_t c1_) : c1(c1_) {
  conv = register_module("conv", std::make_shared<Conv2dImpl>(c1, 1, 1, 1, 0, 1, 1, false));
  torch::NoGradGuard no_grad;
  conv->weight.copy_(torch::arange(c1, torch::kFloat).view({1, c1, 1, 1}));
  conv->weight.set_requires_grad(false);
}

torch::Tensor DFLImpl::forward(const torch::Tensor& x) {
  const int64_t a = x.size(2);
  // (B, 4*c1, A) -> (B, c1, 4, A), softmax over bins, weighted sum by the 1x1 conv -> (B, 4, A)
  torch::Tensor p = x.view({-1, 4, c1, a}).transpose(2, 1).softmax(1);
  return conv->forward(p).view({-1, 4, a});
}

DetectImpl::DetectImpl(int64_t nc_, int64_t reg_max_, bool end2end_, std::vector<int64_t> ch,
                       bool legacy_, int64_t cls_hidden_)
    : nc(nc_),
      reg_max(reg_max_),
      nl(static_cast<int64_t>(ch.size())),
      cls_hidden(cls_hidden_ > 0 ? cls_hidden_
                 : ch.empty()    ? 0
                                 : default_cls_hidden(ch[0], nc_)),
      end2end(end2end_),
      legacy(legacy_) {
  TORCH_CHECK(nc > 0, "Detect: nc must be positive, got ", nc);
  TORCH_CHECK(reg_max >= 1, "Detect: reg_max must be >= 1, got ", reg_max);
  TORCH_CHECK(!ch.empty(), "Detect: needs at least one input level");
  cv2 = register_module("cv2", make_box_branch(ch));
  cv3 = register_module("cv3", make_class_branch(ch));
  if (reg_max > 1) dfl = register_module("dfl", std::make_shared<DFLImpl>(reg_max));
  if (end2end) {
    // Ultralytics deep-copies the one-to-many branches: same initial weights, trained apart.
    one2one_cv2 = register_module("one2one_cv2", make_box_branch(ch));
    one2one_cv3 = register_module("one2one_cv3", make_class_branch(ch));
    copy_state(*cv2, *one2one_cv2);
    copy_state(*cv3, *one2one_cv3);
  }
}

std::shared_ptr<LayerListImpl> DetectImpl::make_box_branch(const std::vector<int64_t>& ch) const {
  const int64_t c2 = std::max<int64_t>({16, ch[0] / 4, reg_max * 4});
  auto list = std::make_shared<LayerListImpl>();
  for (int64_t x : ch) {
    auto seq = std::make_shared<SequentialImpl>();
    seq->push_back(std::make_shared<ConvImpl>(x, c2, 3));
    seq->push_back(std::make_shared<ConvImpl>(c2, c2, 3));
    seq->push_back(std::make_shared<Conv2dImpl>(c2, 4 * reg_max, 1));
    list->push_back(seq);
  }
  return list;
}

std::shared_ptr<LayerListImpl> DetectImpl::make_class_branch(const std::vector<int64_t>& ch) const {
  const int64_t c3 = cls_hidden;
  auto list = std::make_shared<LayerListImpl>();
  for (int64_t x : ch) {
    auto seq = std::make_shared<SequentialImpl>();
    if (legacy) {
      seq->push_back(std::make_shared<ConvImpl>(x, c3, 3));
      seq->push_back(std::make_shared<ConvImpl>(c3, c3, 3));
    } else {
      auto a = std::make_shared<SequentialImpl>();
      a->push_back(make_dwconv(x, x, 3));
      a->push_back(std::make_shared<ConvImpl>(x, c3, 1));
      auto b = std::make_shared<SequentialImpl>();
      b->push_back(make_dwconv(c3, c3, 3));
      b->push_back(std::make_shared<ConvImpl>(c3, c3, 1));
      seq->push_back(a);
      seq->push_back(b);
    }
    seq->push_back(std::make_shared<Conv2dImpl>(c3, nc, 1));
    list->push_back(seq);
  }
  return list;
}

HeadOutput DetectImpl::branch(const std::vector<torch::Tensor>& feats, LayerListImpl& box,
                              LayerListImpl& cls) const {
  TORCH_CHECK(static_cast<int64_t>(feats.size()) == nl, "Detect expects ", nl, " inputs, got ",
              feats.size());
  std::vector<torch::Tensor> boxes, scores;
  for (int64_t i = 0; i < nl; ++i) {
    boxes.push_back(box[i]->run({feats[i]}).flatten(2));   // (B, 4*reg_max, H*W)
    scores.push_back(cls[i]->run({feats[i]}).flatten(2));  // (B, nc, H*W)
  }
  return {torch::cat(boxes, 2), torch::cat(scores, 2), feats};
}

DetectTrainOutput DetectImpl::forward_train(const std::vector<torch::Tensor>& feats) {
  TORCH_CHECK(has_one2many() && (!end2end || one2one_cv2),
              "Detect: a branch was removed by fuse(); a fused model is for inference only");
  DetectTrainOutput out;
  out.one2many = branch(feats, *cv2, *cv3);
  if (end2end) {
    std::vector<torch::Tensor> detached;
    for (const auto& f : feats) detached.push_back(f.detach());
    out.one2one = branch(detached, *one2one_cv2, *one2one_cv3);
  }
  return out;
}

std::pair<torch::Tensor, torch::Tensor> DetectImpl::anchors_for(
    const std::vector<torch::Tensor>& feats) {
  TORCH_CHECK(stride.size() == feats.size(), "Detect: strides are not set for ", feats.size(),
              " levels");
  std::vector<int64_t> key;
  for (const auto& f : feats) key.insert(key.end(), {f.size(2), f.size(3)});
  const auto& ref = feats.front();
  if (key != anchor_key_ || !anchors_.defined() || anchors_.device() != ref.device() ||
      anchors_.scalar_type() != ref.scalar_type()) {
    // Computed outside autograd and cached: a traced model carries them as constants.
    torch::NoGradGuard no_grad;
    auto opts = ref.options().requires_grad(false);
    std::vector<torch::Tensor> points, strides;
    for (size_t i = 0; i < feats.size(); ++i) {
      const int64_t h = feats[i].size(2), w = feats[i].size(3);
      torch::Tensor sx = torch::arange(w, opts) + 0.5;
      torch::Tensor sy = torch::arange(h, opts) + 0.5;
      // Row-major: y outer, x inner.
      points.push_back(torch::stack({sx.repeat({h}), sy.repeat_interleave(w)}, 0));  // (2, h*w)
      strides.push_back(torch::full({1, h * w}, stride[i], opts));
    }
    anchors_ = torch::cat(points, 1);
    strides_ = torch::cat(strides, 1);
    anchor_key_ = key;
  }
  return {anchors_, strides_};
}

torch::Tensor DetectImpl::decode_boxes(const torch::Tensor& dist,
                                       const std::vector<torch::Tensor>& feats, bool xywh) {
  auto [anchors, strides] = anchors_for(feats);
  torch::Tensor d = dfl ? dfl->forward(dist) : dist;  // (B, 4, A) ltrb, grid units
  auto lt = d.slice(1, 0, 2), rb = d.slice(1, 2, 4);
  torch::Tensor a = anchors.unsqueeze(0);
  torch::Tensor box = torch::cat({a - lt, a + rb}, 1);  // xyxy
  return (xywh ? boxes::xyxy_to_xywh(box, 1) : box) * strides;
}

torch::Tensor DetectImpl::topk_select(const torch::Tensor& preds) const {
  const int64_t anchors = preds.size(1);
  const int64_t k = std::min(max_det, anchors);
  torch::Tensor boxes = preds.slice(2, 0, 4), scores = preds.slice(2, 4);  // (B,A,4), (B,A,nc)
  if (agnostic) {
    auto [best, labels] = scores.max(-1, true);  // (B, A, 1)
    auto [top, index] = best.topk(k, 1);         // (B, k, 1)
    torch::Tensor cls = labels.gather(1, index).to(top.scalar_type());
    return torch::cat({boxes.gather(1, index.repeat({1, 1, 4})), top, cls}, -1);
  }
  // Best k anchors by their top class, then the best k (anchor, class) pairs among them, so one
  // anchor may appear with two classes.
  torch::Tensor anchor_index = std::get<1>(std::get<0>(scores.max(-1)).topk(k)).unsqueeze(-1);
  torch::Tensor cand = scores.gather(1, anchor_index.repeat({1, 1, nc}));            // (B, k, nc)
  auto [top, flat] = cand.flatten(1).topk(k);                                        // (B, k)
  torch::Tensor pick = anchor_index.gather(1, flat.div(nc, "floor").unsqueeze(-1));  // (B, k, 1)
  torch::Tensor cls = flat.remainder(nc).unsqueeze(-1).to(top.scalar_type());
  return torch::cat({boxes.gather(1, pick.repeat({1, 1, 4})), top.unsqueeze(-1), cls}, -1);
}

torch::Tensor DetectImpl::decode_output(const HeadOutput& h, bool one2one) {
  if (one2one) {
    torch::Tensor y = torch::cat({decode_boxes(h.boxes, h.feats, false), h.scores.sigmoid()}, 1);
    return topk_select(y.permute({0, 2, 1}));
  }
  return torch::cat({decode_boxes(h.boxes, h.feats, true), h.scores.sigmoid()}, 1);
}

torch::Tensor DetectImpl::run(const std::vector<torch::Tensor>& feats) {
  if (end2end && use_one2one) {
    TORCH_CHECK(one2one_cv2, "Detect: the one-to-one branch was removed by fuse()");
    return decode_output(branch(feats, *one2one_cv2, *one2one_cv3), true);
  }
  TORCH_CHECK(has_one2many(), "Detect: the one-to-many branch was removed by fuse()");
  return decode_output(branch(feats, *cv2, *cv3), false);
}

torch::Tensor DetectImpl::inference_output(const DetectTrainOutput& out) {
  if (end2end && use_one2one) {
    TORCH_CHECK(out.one2one.has_value(), "Detect: training output lacks the one-to-one branch");
    return decode_output(*out.one2one, true);
  }
  return decode_output(out.one2many, false);
}

void DetectImpl::bias_init() {
  TORCH_CHECK(static_cast<int64_t>(stride.size()) == nl, "Detect.bias_init needs strides");
  torch::NoGradGuard no_grad;
  auto init = [&](LayerListImpl* box, LayerListImpl* cls) {
    if (!box) return;
    for (int64_t i = 0; i < nl; ++i) {
      auto& b = dynamic_cast<SequentialImpl&>(*(*box)[i]);
      auto& c = dynamic_cast<SequentialImpl&>(*(*cls)[i]);
      dynamic_cast<Conv2dImpl&>(*b[b.size() - 1]).bias.fill_(2.0);
      const double v = std::log(5.0 / nc / std::pow(640.0 / stride[i], 2));
      dynamic_cast<Conv2dImpl&>(*c[c.size() - 1]).bias.slice(0, 0, nc).fill_(v);
    }
  };
  init(cv2.get(), cv3.get());
  init(one2one_cv2.get(), one2one_cv3.get());
}

void DetectImpl::drop_unused_branch() {
  if (!end2end) return;
  if (use_one2one && cv2) {
    unregister_module("cv2");
    unregister_module("cv3");
    cv2.reset();
    cv3.reset();
  } else if (!use_one2one && one2one_cv2) {
    unregister_module("one2one_cv2");
    unregister_module("one2one_cv3");
    one2one_cv2.reset();
    one2one_cv3.reset();
  }
}

}  // namespace yolo::nn
