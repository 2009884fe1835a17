// YAML -> network (Ultralytics' parse_model), and the model's forward pass.
#include "yolo/models/detection_model.h"

#include <fmt/format.h>

#include <cfenv>
#include <cmath>
#include <functional>
#include <set>

#include "yolo/models/nn/block.h"

namespace yolo {
namespace {

using nn::Layer;

// Python's round(): half to even.
int64_t round_half_even(double v) {
  return static_cast<int64_t>(std::nearbyint(v));
}

int64_t make_divisible(double x, int64_t divisor) {
  return static_cast<int64_t>(std::ceil(x / divisor)) * divisor;
}

// Reads one YAML layer argument: numbers, True/False, None, and `nc`.
class Args {
 public:
  Args(const YAML::Node& node, int nc, std::string where)
      : node_(node), nc_(nc), where_(std::move(where)) {}

  size_t size() const { return node_.size(); }
  bool has(size_t i) const { return i < node_.size() && !is_none(i); }

  int64_t integer(size_t i, int64_t fallback) const {
    if (!has(i)) return fallback;
    const std::string s = node_[i].Scalar();
    if (s == "nc") return nc_;
    try {
      return node_[i].as<int64_t>();
    } catch (const YAML::Exception&) {
      throw ModelError(fmt::format("{}: argument {} must be an integer, got '{}'", where_, i, s));
    }
  }
  double real(size_t i, double fallback) const {
    if (!has(i)) return fallback;
    try {
      return node_[i].as<double>();
    } catch (const YAML::Exception&) {
      throw ModelError(
          fmt::format("{}: argument {} must be a number, got '{}'", where_, i, node_[i].Scalar()));
    }
  }
  bool boolean(size_t i, bool fallback) const {
    if (!has(i)) return fallback;
    const std::string s = node_[i].Scalar();
    if (s == "True" || s == "true") return true;
    if (s == "False" || s == "false") return false;
    throw ModelError(fmt::format("{}: argument {} must be True or False, got '{}'", where_, i, s));
  }

 private:
  bool is_none(size_t i) const {
    const auto& n = node_[i];
    return n.IsNull() || (n.IsScalar() && (n.Scalar() == "None" || n.Scalar() == "null"));
  }
  YAML::Node node_;
  int nc_;
  std::string where_;
};

const std::set<std::string> kBaseModules = {"Conv", "DWConv", "Bottleneck", "C2f",  "C3",
                                            "C3k",  "C3k2",   "SPPF",       "C2PSA"};
const std::set<std::string> kRepeatModules = {"C2f", "C3", "C3k", "C3k2", "C2PSA"};
const std::set<std::string> kKnownModules = {
    "Conv", "DWConv", "Bottleneck", "C2f",         "C3",       "C3k",   "C3k2",
    "SPPF", "C2PSA",  "Concat",     "nn.Upsample", "Upsample", "Detect"};

std::string join_ints(const std::vector<int64_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}

}  // namespace

DetectionModelImpl::DetectionModelImpl(const ModelConfig& config) : config_(config) {
  model_ = register_module("model", std::make_shared<nn::LayerListImpl>());
  std::vector<int64_t> ch{config.channels};  // ch[i + 1] = output channels of layer i
  bool legacy = true;
  const int n_layers = static_cast<int>(config.layers.size());

  for (int i = 0; i < n_layers; ++i) {
    const LayerSpec& spec = config.layers[i];
    const std::string where = fmt::format("{}: layer {} ({})", config.source, i, spec.module);
    if (!kKnownModules.count(spec.module)) {
      throw ModelError(fmt::format("{}: unknown module '{}'; supported: {}", where, spec.module,
                                   fmt::join(kKnownModules, ", ")));
    }
    std::vector<int> from;
    for (int f : spec.from) {
      int abs = f < 0 ? i + f : f;
      if (abs < -1 || abs >= i) {
        throw ModelError(
            fmt::format("{}: 'from' index {} does not name an earlier layer", where, f));
      }
      from.push_back(f == -1 ? -1 : abs);
    }
    auto in_ch = [&](int f) { return ch.at(static_cast<size_t>(f == -1 ? i : f + 1)); };
    const bool last = i == n_layers - 1;
    if (spec.module == "Detect" && !last) {
      throw ModelError(fmt::format("{}: Detect must be the last layer", where));
    }
    if (last && spec.module != "Detect") {
      throw ModelError(fmt::format("{}: the last layer must be Detect", where));
    }

    int64_t n = spec.repeats > 1
                    ? std::max<int64_t>(round_half_even(spec.repeats * config.depth), 1)
                    : spec.repeats;
    Args a(spec.args, config.nc, where);
    const std::string& m = spec.module;
    int64_t c1 = in_ch(from.at(0)), c2 = c1;
    std::vector<int64_t> resolved;  // for the summary
    std::function<std::shared_ptr<Layer>()> make;

    try {
      if (kBaseModules.count(m)) {
        if (spec.from.size() != 1) throw ModelError(where + ": takes exactly one input");
        c2 = a.integer(0, -1);
        if (c2 < 1)
          throw ModelError(fmt::format("{}: first argument (output channels) must be >= 1", where));
        if (c2 != config.nc) {
          c2 = make_divisible(std::min<double>(c2, config.max_channels) * config.width, 8);
        }
        const int64_t rep = kRepeatModules.count(m) ? n : 1;
        if (m == "Conv") {
          const int64_t k = a.integer(1, 1), s = a.integer(2, 1), p = a.integer(3, -1),
                        g = a.integer(4, 1), d = a.integer(5, 1);
          const bool act = a.boolean(6, true);
          resolved = {c1, c2, k, s};
          make = [=] { return std::make_shared<nn::ConvImpl>(c1, c2, k, s, p, g, d, act); };
        } else if (m == "DWConv") {
          const int64_t k = a.integer(1, 1), s = a.integer(2, 1), d = a.integer(3, 1);
          const bool act = a.boolean(4, true);
          resolved = {c1, c2, k, s};
          make = [=] { return nn::make_dwconv(c1, c2, k, s, d, act); };
        } else if (m == "Bottleneck") {
          const bool sc = a.boolean(1, true);
          const int64_t g = a.integer(2, 1);
          const double e = a.real(3, 0.5);
          resolved = {c1, c2};
          make = [=] { return std::make_shared<nn::BottleneckImpl>(c1, c2, sc, g, 3, 3, e); };
        } else if (m == "C2f") {
          const bool sc = a.boolean(1, false);
          const int64_t g = a.integer(2, 1);
          const double e = a.real(3, 0.5);
          resolved = {c1, c2, rep, sc};
          make = [=] { return std::make_shared<nn::C2fImpl>(c1, c2, rep, sc, g, e); };
        } else if (m == "C3" || m == "C3k") {
          const bool sc = a.boolean(1, true);
          const int64_t g = a.integer(2, 1);
          const double e = a.real(3, 0.5);
          const int64_t k = m == "C3k" ? a.integer(4, 3) : -1;
          resolved = {c1, c2, rep, sc};
          make = [=] { return std::make_shared<nn::C3Impl>(c1, c2, rep, sc, g, e, k); };
        } else if (m == "C3k2") {
          legacy = false;
          // Ultralytics forces c3k blocks at the m/l/x scales.
          const bool c3k = a.boolean(1, false) || config.scale == "m" || config.scale == "l" ||
                           config.scale == "x";
          const double e = a.real(2, 0.5);
          const bool attn = a.boolean(3, false);
          const int64_t g = a.integer(4, 1);
          const bool sc = a.boolean(5, true);
          resolved = {c1, c2, rep, c3k, static_cast<int64_t>(e * 100), attn};
          make = [=] { return std::make_shared<nn::C3k2Impl>(c1, c2, rep, c3k, e, attn, g, sc); };
        } else if (m == "SPPF") {
          const int64_t k = a.integer(1, 5), pools = a.integer(2, 3);
          const bool sc = a.boolean(3, false);
          // Two-argument SPPF lines are the pre-8.4 signature whose released weights use SiLU
          // before the pools; the 8.4 form (with n/shortcut) is linear. A 5th arg sets it.
          const bool cv1_act = a.boolean(4, a.size() <= 2);
          resolved = {c1, c2, k, pools, sc};
          make = [=] { return std::make_shared<nn::SPPFImpl>(c1, c2, k, pools, sc, cv1_act); };
        } else if (m == "C2PSA") {
          const double e = a.real(1, 0.5);
          if (c1 != c2) {
            throw ModelError(
                fmt::format("{}: C2PSA needs output channels equal to its input ({}), "
                            "got {}",
                            where, c1, c2));
          }
          resolved = {c1, c2, rep};
          make = [=] { return std::make_shared<nn::C2PSAImpl>(c1, c2, rep, e); };
        }
        if (kRepeatModules.count(m)) n = 1;
      } else if (m == "Concat") {
        const int64_t dim = a.integer(0, 1);
        c2 = 0;
        for (int f : from) c2 += in_ch(f);
        resolved = {dim};
        make = [=] { return std::make_shared<nn::ConcatImpl>(dim); };
      } else if (m == "nn.Upsample" || m == "Upsample") {
        const double scale = a.real(1, 2.0);
        resolved = {static_cast<int64_t>(scale)};
        make = [=] { return std::make_shared<nn::UpsampleImpl>(scale); };
      } else if (m == "Detect") {
        std::vector<int64_t> chs;
        for (int f : from) chs.push_back(in_ch(f));
        const int64_t nc = a.integer(0, config.nc);
        resolved = {nc, config.reg_max, config.end2end};
        resolved.insert(resolved.end(), chs.begin(), chs.end());
        const bool leg = legacy;
        make = [=] {
          return std::make_shared<nn::DetectImpl>(nc, config_.reg_max, config_.end2end, chs, leg);
        };
        n = 1;
      }
      std::shared_ptr<Layer> layer;
      if (n > 1) {
        auto seq = std::make_shared<nn::SequentialImpl>();
        for (int64_t r = 0; r < n; ++r) seq->push_back(make());
        layer = seq;
      } else {
        layer = make();
      }
      model_->push_back(layer);
      if (m == "Detect") detect_ = std::dynamic_pointer_cast<nn::DetectImpl>(layer);
    } catch (const ModelError&) {
      throw;
    } catch (const std::exception& e) {
      throw ModelError(fmt::format("{}: cannot build: {}", where, e.what()));
    }
    ch.push_back(c2);
    from_.push_back(from);
    infos_.push_back(
        {i, spec.from,
         static_cast<int>(spec.repeats > 1 ? round_half_even(spec.repeats * config.depth) : 1),
         m == "Upsample" ? "nn.Upsample" : m, join_ints(resolved), c2});
  }

  save_.assign(n_layers, false);
  for (int i = 0; i < n_layers; ++i) {
    for (int f : from_[i]) {
      if (f != -1) save_[f] = true;
    }
  }

  // Strides from a forward pass at 256x256 (eval mode: the BN statistics stay untouched).
  {
    torch::NoGradGuard no_grad;
    const bool was_training = is_training();
    eval();
    std::vector<torch::Tensor> feats;
    try {
      feats = features(torch::zeros({1, config.channels, 256, 256}));
    } catch (const c10::Error& e) {
      // Typically a Concat of maps with different sizes, or channels that do not fit.
      const std::string what = e.what_without_backtrace();
      throw ModelError(
          fmt::format("{}: the layers do not fit together (a 256x256 test input "
                      "fails): {}",
                      config.source, what.substr(0, what.find('\n'))));
    }
    for (const auto& f : feats) detect_->stride.push_back(256.0 / static_cast<double>(f.size(2)));
    train(was_training);
  }
  detect_->bias_init();
  for (int i = 0; i < detect_->nc; ++i) names[i] = std::to_string(i);
}

std::vector<torch::Tensor> DetectionModelImpl::features(const torch::Tensor& input) {
  const auto n = static_cast<int>(model_->size());
  std::vector<torch::Tensor> saved(static_cast<size_t>(n));
  torch::Tensor x = input;
  for (int i = 0; i < n - 1; ++i) {
    std::vector<torch::Tensor> inputs;
    for (int f : from_[i]) inputs.push_back(f == -1 ? x : saved[f]);
    x = (*model_)[i]->run(inputs);
    if (save_[i]) saved[i] = x;
  }
  std::vector<torch::Tensor> head_inputs;
  for (int f : from_[n - 1]) head_inputs.push_back(f == -1 ? x : saved[f]);
  return head_inputs;
}

torch::Tensor DetectionModelImpl::forward(const torch::Tensor& x) {
  return detect_->run(features(x));
}

nn::DetectTrainOutput DetectionModelImpl::forward_train(const torch::Tensor& x) {
  return detect_->forward_train(features(x));
}

int64_t DetectionModelImpl::max_stride() const {
  double m = 32;
  if (!detect_->stride.empty())
    m = *std::max_element(detect_->stride.begin(), detect_->stride.end());
  return static_cast<int64_t>(m);
}

void DetectionModelImpl::fuse() {
  if (fused_) return;
  for (auto& m : modules(/*include_self=*/false)) {
    if (auto* conv = dynamic_cast<nn::ConvImpl*>(m.get())) conv->fuse();
  }
  detect_->drop_unused_branch();
  fused_ = true;
}

std::shared_ptr<DetectionModelImpl> build_model(const std::string& name_or_path,
                                                std::optional<int> nc) {
  return std::make_shared<DetectionModelImpl>(load_model_config(name_or_path, nc));
}

}  // namespace yolo
