#include "yolo/trainer/train/optimizer.h"

#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "yolo/core/strings.h"

namespace yolo {
namespace {

// Ultralytics' regex (?=.*23)(?=.*cv3): the class branch of the detect head at layer 23.
bool is_class_branch_23(const std::string& name) {
  return name.find("23") != std::string::npos && name.find("cv3") != std::string::npos;
}

}  // namespace

OptimizerKind parse_optimizer_kind(const std::string& name) {
  const std::string n = lower(name);
  if (n == "sgd") return OptimizerKind::kSGD;
  if (n == "adam") return OptimizerKind::kAdam;
  if (n == "adamw") return OptimizerKind::kAdamW;
  if (n == "musgd") return OptimizerKind::kMuSGD;
  throw std::invalid_argument("optimizer=" + name +
                              " is not supported; use SGD, Adam, AdamW, MuSGD or auto");
}

std::string optimizer_name(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::kSGD:
      return "SGD";
    case OptimizerKind::kAdam:
      return "Adam";
    case OptimizerKind::kAdamW:
      return "AdamW";
    case OptimizerKind::kMuSGD:
      return "MuSGD";
  }
  return "?";
}

AutoChoice auto_optimizer(int64_t iterations, int64_t nc) {
  if (iterations > 10000) return {OptimizerKind::kMuSGD, 0.01, 0.9};
  const double lr_fit = std::round(0.002 * 5.0 / (4.0 + static_cast<double>(nc)) * 1e6) / 1e6;
  return {OptimizerKind::kAdamW, lr_fit, 0.9};
}

std::vector<ParamGroup> make_param_groups(const torch::nn::Module& model, OptimizerKind kind,
                                          double lr, double momentum, double weight_decay) {
  const bool use_muon = kind == OptimizerKind::kMuSGD;
  ParamGroup weight, bn, bias, muon;
  weight.name = "weight", bn.name = "bn", bias.name = "bias", muon.name = "muon";
  weight.weight_decay = weight_decay;
  muon.weight_decay = weight_decay;
  muon.use_muon = true;
  for (const auto& item : model.named_modules()) {
    const bool is_bn = dynamic_cast<const torch::nn::BatchNorm2dImpl*>(item.value().get());
    for (const auto& p : item.value()->named_parameters(/*recurse=*/false)) {
      if (!p.value().requires_grad()) continue;  // frozen layers and the DFL's fixed weights
      const std::string full = item.key().empty() ? p.key() : item.key() + "." + p.key();
      ParamGroup* g = &weight;
      if (use_muon && p.value().dim() >= 2)
        g = &muon;
      else if (full.find("bias") != std::string::npos)
        g = &bias;
      else if (is_bn)
        g = &bn;
      g->param_names.push_back(full);
      g->params.push_back(p.value());
    }
  }
  std::vector<ParamGroup> groups{std::move(weight), std::move(bn), std::move(bias)};
  if (use_muon) groups.push_back(std::move(muon));
  for (auto& g : groups) {
    g.lr = g.initial_lr = lr;
    g.momentum = momentum;
  }
  if (!use_muon) return groups;
  std::vector<ParamGroup> split;
  for (auto& g : groups) {
    ParamGroup cls = g, rest = g;
    cls.name += "+cls";
    cls.lr = cls.initial_lr = lr * 3;
    cls.params.clear(), cls.param_names.clear(), rest.params.clear(), rest.param_names.clear();
    for (size_t i = 0; i < g.params.size(); ++i) {
      ParamGroup& dst = is_class_branch_23(g.param_names[i]) ? cls : rest;
      dst.param_names.push_back(g.param_names[i]);
      dst.params.push_back(g.params[i]);
    }
    split.push_back(std::move(cls));
    split.push_back(std::move(rest));
  }
  return split;
}

torch::Tensor newton_schulz_orthogonalize(const torch::Tensor& g, int steps) {
  TORCH_CHECK(g.dim() == 2, "newton_schulz_orthogonalize expects a matrix");
  const double a = 3.4445, b = -4.7750, c = 2.0315;
  auto x = g.is_cuda() ? g.to(torch::kBFloat16) : g.to(torch::kFloat);
  x = x / (x.norm() + 1e-7);
  const bool transposed = g.size(0) > g.size(1);
  if (transposed) x = x.t();
  for (int i = 0; i < steps; ++i) {
    auto A = x.matmul(x.t());
    auto B = b * A + c * A.matmul(A);
    x = a * x + B.matmul(x);
  }
  if (transposed) x = x.t();
  return x.to(g.scalar_type());
}

Optimizer::Optimizer(OptimizerKind kind, std::vector<ParamGroup> groups, OptimizerSettings settings)
    : kind_(kind), groups_(std::move(groups)), settings_(settings) {
  for (const auto& g : groups_) {
    if (g.params.size() != g.param_names.size())
      throw std::invalid_argument("Optimizer: group '" + g.name + "' has unnamed parameters");
    slots_.emplace_back(g.params.size());
  }
}

void Optimizer::zero_grad() {
  for (auto& g : groups_)
    for (auto& p : g.params)
      if (p.grad().defined()) p.mutable_grad() = torch::Tensor();
}

void Optimizer::sgd_update(ParamGroup& g, torch::Tensor& p, Slot& s, double scale) {
  // torch.optim.SGD(nesterov=True, dampening=0): buf = m*buf + d; p -= lr * (d + m*buf).
  auto d = p.grad();
  if (g.weight_decay != 0) d = d.add(p, g.weight_decay);
  if (g.momentum != 0) {
    if (!s.momentum.defined())
      s.momentum = d.clone();
    else
      s.momentum.mul_(g.momentum).add_(d);
    d = d.add(s.momentum, g.momentum);
  }
  p.add_(d, -g.lr * scale);
}

void Optimizer::adam_update(ParamGroup& g, torch::Tensor& p, Slot& s) {
  // torch.optim.Adam (L2 decay added to the gradient) / AdamW (decoupled decay).
  auto grad = p.grad();
  if (kind_ == OptimizerKind::kAdamW)
    p.mul_(1 - g.lr * g.weight_decay);
  else if (g.weight_decay != 0)
    grad = grad.add(p, g.weight_decay);
  if (!s.momentum.defined()) {
    s.momentum = torch::zeros_like(p);
    s.second = torch::zeros_like(p);
  }
  ++s.steps;
  const double beta1 = g.momentum, beta2 = settings_.beta2;
  s.momentum.mul_(beta1).add_(grad, 1 - beta1);
  s.second.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
  const double bc1 = 1 - std::pow(beta1, static_cast<double>(s.steps));
  const double bc2 = 1 - std::pow(beta2, static_cast<double>(s.steps));
  auto denom = (s.second.sqrt() / std::sqrt(bc2)).add_(settings_.eps);
  p.addcdiv_(s.momentum, denom, -g.lr / bc1);
}

void Optimizer::muon_update(ParamGroup& g, torch::Tensor& p, Slot& s) {
  // Ultralytics MuSGD: the Muon step (momentum lerp, Nesterov, Newton-Schulz, shape scaling),
  // then an SGD step on the same gradient; weight decay only enters the SGD term.
  auto grad = p.grad();
  if (!s.second.defined()) s.second = torch::zeros_like(p);
  s.second.lerp_(grad, 1 - g.momentum);
  auto u = grad.lerp(s.second, g.momentum);
  auto m = u.reshape({u.size(0), -1});
  auto o = newton_schulz_orthogonalize(m, settings_.newton_schulz_steps);
  const double rows = static_cast<double>(m.size(0)), cols = static_cast<double>(m.size(1));
  o = o * std::sqrt(std::max(1.0, rows / cols));
  p.add_(o.view_as(p), -g.lr * settings_.muon_scale);
  sgd_update(g, p, s, settings_.sgd_scale);
}

void Optimizer::step() {
  torch::NoGradGuard no_grad;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    auto& g = groups_[gi];
    for (size_t pi = 0; pi < g.params.size(); ++pi) {
      auto& p = g.params[pi];
      if (!p.grad().defined()) continue;
      auto& s = slots_[gi][pi];
      switch (kind_) {
        case OptimizerKind::kSGD:
          sgd_update(g, p, s, 1.0);
          break;
        case OptimizerKind::kAdam:
        case OptimizerKind::kAdamW:
          adam_update(g, p, s);
          break;
        case OptimizerKind::kMuSGD:
          if (g.use_muon)
            muon_update(g, p, s);
          else
            sgd_update(g, p, s, 1.0);
          break;
      }
    }
  }
}

std::map<std::string, torch::Tensor> Optimizer::state() const {
  std::map<std::string, torch::Tensor> out;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    const auto& g = groups_[gi];
    const std::string gkey = "group" + std::to_string(gi) + "/";
    out[gkey + "hyper"] =
        torch::tensor({g.lr, g.initial_lr, g.momentum, g.weight_decay}, torch::kDouble);
    for (size_t pi = 0; pi < g.params.size(); ++pi) {
      const auto& s = slots_[gi][pi];
      const std::string key = g.param_names[pi] + "/";
      if (s.momentum.defined()) out[key + "momentum"] = s.momentum.detach().cpu();
      if (s.second.defined()) out[key + "second"] = s.second.detach().cpu();
      out[key + "steps"] = torch::tensor({s.steps}, torch::kLong);
    }
  }
  return out;
}

void Optimizer::load_state(const std::map<std::string, torch::Tensor>& state) {
  torch::NoGradGuard no_grad;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    auto& g = groups_[gi];
    const std::string gkey = "group" + std::to_string(gi) + "/hyper";
    auto hyper = state.find(gkey);
    if (hyper == state.end())
      throw std::runtime_error("optimizer state lacks parameter group " + std::to_string(gi) +
                               " ('" + g.name + "'): it was saved for another optimiser setup");
    auto h = hyper->second.to(torch::kDouble);
    g.lr = h[0].item<double>(), g.initial_lr = h[1].item<double>();
    g.momentum = h[2].item<double>(), g.weight_decay = h[3].item<double>();
    for (size_t pi = 0; pi < g.params.size(); ++pi) {
      auto& s = slots_[gi][pi];
      const auto& p = g.params[pi];
      const std::string key = g.param_names[pi] + "/";
      auto steps = state.find(key + "steps");
      if (steps == state.end())
        throw std::runtime_error("optimizer state lacks parameter '" + g.param_names[pi] + "'");
      s.steps = steps->second.item<int64_t>();
      auto restore = [&](const char* slot, torch::Tensor& dst) {
        auto it = state.find(key + slot);
        if (it == state.end()) {
          dst = torch::Tensor();
          return;
        }
        if (it->second.sizes() != p.sizes())
          throw std::runtime_error("optimizer state for '" + g.param_names[pi] +
                                   "' has another shape than the parameter");
        dst = it->second.to(p.device(), p.scalar_type()).clone();
      };
      restore("momentum", s.momentum);
      restore("second", s.second);
    }
  }
}

}  // namespace yolo
