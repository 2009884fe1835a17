#include "yolo/models/weight_transfer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "yolo/core/strings.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/ultralytics_checkpoint.h"

namespace yolo {
namespace {

using State = std::map<std::string, torch::Tensor>;

// The model's state dict: parameters and buffers by name, sharing the model's storage.
State state_of(DetectionModelImpl& model) {
  State s;
  for (const auto& p : model.named_parameters(true)) s[p.key()] = p.value();
  for (const auto& b : model.named_buffers(true)) s[b.key()] = b.value();
  return s;
}

State state_of_file(const std::shared_ptr<DetectionModelImpl>& model) {
  State s;
  for (const auto& [k, v] : state_of(*model)) s[k] = v.detach().to(torch::kFloat32);
  return s;
}

std::string normalised(std::string_view s) {  // Ultralytics' _norm: str(s).strip().lower()
  return lower(trim_space(s));
}

// {0: "0", 1: "1", ...}: names nobody chose (also an empty map); nothing to match by.
bool placeholder_names(const std::map<int, std::string>& names) {
  return std::all_of(names.begin(), names.end(),
                     [](const auto& kv) { return std::to_string(kv.first) == kv.second; });
}

// The final class convolutions of the head (one per level and branch) whose output is `nc`
// rows: "<head>cv3.<level>.<last>.weight" / ".bias" and the one-to-one twins.
std::vector<std::string> class_logit_keys(const State& state, const std::string& head, int64_t nc) {
  static const std::regex re(R"(^(cv3|one2one_cv3)\.\d+\.\d+\.(weight|bias)$)");
  std::vector<std::string> keys;
  for (const auto& [k, v] : state) {
    if (k.rfind(head, 0) != 0 || !std::regex_match(k.substr(head.size()), re)) continue;
    if (v.dim() >= 1 && v.size(0) == nc) keys.push_back(k);
  }
  return keys;
}

// Ultralytics' _remap_cls_by_names: rows of the final class convolutions copied by class name
// when the names overlap but differ in order or count. The copied tensors leave `source` so the
// copy by name does not put them back in the source's order. Returns their names.
std::vector<std::string> remap_class_rows(State& model, State& source,
                                          const std::map<int, std::string>& src_names,
                                          const std::map<int, std::string>& tgt_names,
                                          const std::string& head, int64_t tgt_nc,
                                          TransferReport& report) {
  if (placeholder_names(src_names) || placeholder_names(tgt_names)) return {};
  std::map<std::string, int> lookup;
  for (const auto& [k, v] : src_names) lookup[normalised(v)] = k;
  std::vector<int64_t> rows, from;  // target row <- source row
  bool identity = static_cast<int64_t>(src_names.size()) == tgt_nc;
  for (int64_t k = 0; k < tgt_nc; ++k) {
    auto name = tgt_names.find(static_cast<int>(k));
    auto it = lookup.find(normalised(name == tgt_names.end() ? "None" : name->second));
    identity = identity && it != lookup.end() && it->second == k;
    if (it == lookup.end()) continue;
    rows.push_back(k);
    from.push_back(it->second);
  }
  if (rows.empty() || identity) return {};

  const torch::Tensor rows_t = torch::tensor(rows, torch::kLong);
  const torch::Tensor from_t = torch::tensor(from, torch::kLong);
  const int64_t highest = *std::max_element(from.begin(), from.end());
  std::vector<std::string> remapped;
  for (const std::string& key : class_logit_keys(model, head, tgt_nc)) {
    auto src = source.find(key);
    if (src == source.end()) continue;
    torch::Tensor& dst = model.at(key);
    // Another model scale feeds the convolution another width: only biases fit.
    if (src->second.sizes().slice(1) != dst.sizes().slice(1) || highest >= src->second.size(0))
      continue;
    dst.index_copy_(0, rows_t, src->second.index_select(0, from_t).to(dst.dtype()));
    source.erase(src);
    remapped.push_back(key);
  }
  if (!remapped.empty()) {
    report.remapped_rows = static_cast<int>(rows.size());
    spdlog::info("Remapped {}/{} cls head rows from pretrained weights by class name", rows.size(),
                 tgt_nc);
  }
  return remapped;
}

// Ultralytics fills a first convolution for another input channel count from the source's
// filters: a grey model takes their sum over RGB, others the first channels.
bool adapt_first_conv(State& model, const State& source) {
  const std::string key = "model.0.conv.weight";
  auto w = model.find(key);
  auto s = source.find(key);
  if (w == model.end() || s == source.end() || w->second.dim() != 4 || s->second.dim() != 4 ||
      w->second.sizes().slice(2) != s->second.sizes().slice(2))
    return false;
  const int64_t c1 = std::min(w->second.size(0), s->second.size(0));
  const int64_t c2 = std::min(w->second.size(1), s->second.size(1));
  torch::Tensor src = s->second.slice(0, 0, c1);
  src = c2 == 1 ? src.sum(1, /*keepdim=*/true) : src.slice(1, 0, c2);
  w->second.slice(0, 0, c1).slice(1, 0, c2).copy_(src.to(w->second.dtype()));
  return true;
}

// A fresh 1x1 convolution's weights, as PyTorch's nn.Conv2d draws them (kaiming-uniform with
// a = sqrt(5): uniform within 1 / sqrt(fan_in)).
void redraw_conv_weight(torch::Tensor& w) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(w[0].numel()));
  w.uniform_(-bound, bound);
}

}  // namespace

PretrainedWeights read_pretrained_weights(const std::string& path) {
  PretrainedWeights out;
  out.path = path;
  if (is_torch_save_file(path)) {
    UltralyticsCheckpoint ckpt = read_ultralytics_checkpoint(path);
    out.state = std::move(ckpt.state);
    out.names = std::move(ckpt.names);
    out.config = std::move(ckpt.config);
    return out;
  }
  auto model = has_training_weights(path) ? load_eager_model(path)
                                          : import_fused_torchscript(path, std::nullopt);
  out.state = state_of_file(model);
  out.names = model->names;
  out.config = model->config();
  return out;
}

std::optional<ClassBranchShape> class_branch_shape(const State& state) {
  static const std::regex re(R"(^(model\.(\d+)\.)cv3\.0\.\d+\.weight$)");
  std::optional<ClassBranchShape> best;
  int best_layer = -1;
  for (const auto& [k, v] : state) {
    std::smatch m;
    if (!std::regex_match(k, m, re) || v.dim() != 4) continue;
    const int layer = std::stoi(m[2].str());
    if (layer <= best_layer) continue;
    best_layer = layer;
    best = ClassBranchShape{m[1].str(), v.size(1), v.size(0), {}, false, false};
  }
  if (!best) return best;
  for (int i = 0;; ++i) {
    auto it = state.find(fmt::format("{}cv2.{}.0.conv.weight", best->head, i));
    if (it == state.end() || it->second.dim() != 4) break;
    best->inputs.push_back(it->second.size(1));
  }
  best->legacy = state.count(best->head + "cv3.0.0.conv.weight") > 0;
  auto e2e = state.lower_bound(best->head + "one2one_cv3.");
  best->end2end = e2e != state.end() && e2e->first.rfind(best->head + "one2one_cv3.", 0) == 0;
  return best;
}

int class_branch_width_override(const State& state) {
  const auto shape = class_branch_shape(state);
  if (!shape || shape->inputs.empty()) return 0;
  const int64_t rule = nn::DetectImpl::default_cls_hidden(shape->inputs[0], shape->nc);
  return shape->hidden == rule ? 0 : static_cast<int>(shape->hidden);
}

namespace {

// The model for `config`, rebuilt with the source's class branch width where Ultralytics
// rebuilds the branch: the heads take the same inputs and the widths differ. A branch of
// another family (YOLOv8's plain one against YOLO11's depthwise one, or without the one-to-one
// twin) is not grafted here.
std::shared_ptr<DetectionModelImpl> build_at_source_width(ModelConfig& config, const State& source,
                                                          TransferReport& report) {
  config.cls_hidden = 0;
  auto model = std::make_shared<DetectionModelImpl>(config);
  const auto dst = class_branch_shape(state_of(*model));
  const auto src = class_branch_shape(source);
  if (!dst || !src || dst->inputs != src->inputs || dst->legacy != src->legacy ||
      dst->end2end != src->end2end || dst->hidden == src->hidden)
    return model;
  report.rule_hidden = dst->hidden;
  report.kept_hidden = src->hidden;
  config.cls_hidden = static_cast<int>(src->hidden);
  model = std::make_shared<DetectionModelImpl>(config);
  if (dst->end2end) {
    // Each rebuilt branch gets its own new final convolution in Ultralytics (the one-to-one
    // twin is not a copy of the one-to-many branch then).
    torch::NoGradGuard no_grad;
    State target = state_of(*model);
    for (const std::string& key : class_logit_keys(target, dst->head, model->num_classes()))
      if (key.find("one2one_cv3.") != std::string::npos && target.at(key).dim() == 4)
        redraw_conv_weight(target.at(key));
  }
  return model;
}

void log_transfer(const TransferReport& report, const DetectionModelImpl& model,
                  const PretrainedWeights& source) {
  spdlog::info("Transferred {}/{} items from pretrained weights '{}'", report.transferred,
               report.total, source.path);
  if (report.kept_hidden) {
    spdlog::info(
        "The class branch keeps the pretrained hidden width {} (nc={} alone would build {}), so "
        "its hidden layers transfer",
        report.kept_hidden, model.num_classes(), report.rule_hidden);
  }
  if (report.first_conv_adapted)
    spdlog::info("model.0.conv.weight: {} input channels filled from the pretrained {}",
                 model.input_channels(), source.state.at("model.0.conv.weight").size(1));
  if (!report.fresh.empty()) {
    spdlog::info("Starting fresh ({} tensors): {}{}", report.fresh.size(),
                 fmt::join(report.fresh.begin(),
                           report.fresh.begin() + std::min<size_t>(6, report.fresh.size()), ", "),
                 report.fresh.size() > 6 ? ", ..." : "");
  }
  if (report.transferred == 0)
    spdlog::warn("'{}' shares no tensor with {} (another architecture?); training from scratch",
                 source.path, model.config().name);
}

}  // namespace

std::shared_ptr<DetectionModelImpl> build_with_pretrained(ModelConfig config,
                                                          const PretrainedWeights& source,
                                                          const std::map<int, std::string>& names,
                                                          bool remap_by_names,
                                                          TransferReport* report_out) {
  TransferReport report;
  auto model = build_at_source_width(config, source.state, report);
  model->names = names;

  torch::NoGradGuard no_grad;
  State target = state_of(*model);
  State csd = source.state;
  std::set<std::string> taken;  // filled other than by a copy under the same name
  const auto head = class_branch_shape(target);
  if (remap_by_names && head) {
    for (const std::string& key : remap_class_rows(target, csd, source.names, names, head->head,
                                                   model->num_classes(), report))
      taken.insert(key);
    report.remapped_tensors = static_cast<int>(taken.size());
  }
  std::set<std::string> copied;
  for (const auto& [k, v] : csd) {
    auto it = target.find(k);
    if (it == target.end() || it->second.sizes() != v.sizes()) continue;
    it->second.copy_(v.to(it->second.dtype()));
    copied.insert(k);
  }
  report.transferred = static_cast<int>(copied.size()) + report.remapped_tensors;
  if (!copied.count("model.0.conv.weight") && adapt_first_conv(target, source.state)) {
    report.first_conv_adapted = true;
    ++report.transferred;
    taken.insert("model.0.conv.weight");
  }
  report.total = static_cast<int>(target.size());
  for (const auto& [k, v] : target)
    if (!copied.count(k) && !taken.count(k)) report.fresh.push_back(k);

  log_transfer(report, *model, source);
  if (report_out) *report_out = std::move(report);
  return model;
}

}  // namespace yolo
