#include "yolo/models/summary.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include "yolo/models/nn/conv.h"

namespace yolo {

std::string with_thousands(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return v < 0 ? "-" + out : out;
}

double count_gflops(DetectionModelImpl& model, int64_t h, int64_t w) {
  nn::FlopCounter counter;
  std::vector<nn::Conv2dImpl*> convs;
  for (auto& m : model.modules(false)) {
    if (auto* c = dynamic_cast<nn::Conv2dImpl*>(m.get())) convs.push_back(c);
  }
  for (auto* c : convs) c->set_flop_counter(&counter);
  const bool was_training = model.is_training();
  try {
    torch::NoGradGuard no_grad;
    model.eval();
    auto param = model.parameters().front();
    torch::Tensor x = torch::zeros({1, model.input_channels(), h, w}, param.options());
    if (model.is_fused()) {
      model.forward(x);
    } else {
      model.forward_train(x);  // every branch, as thop sees the unfused model
    }
  } catch (...) {
    for (auto* c : convs) c->set_flop_counter(nullptr);
    model.train(was_training);
    throw;
  }
  for (auto* c : convs) c->set_flop_counter(nullptr);
  model.train(was_training);
  return 2.0 * static_cast<double>(counter.macs) / 1e9;
}

ModelSummary summarize(DetectionModelImpl& model, int64_t h, int64_t w) {
  ModelSummary s;
  for (const auto& p : model.parameters()) {
    s.parameters += p.numel();
    if (p.requires_grad()) s.gradients += p.numel();
  }
  s.modules = static_cast<int64_t>(model.modules(false).size());
  s.gflops = count_gflops(model, h, w);
  auto layers = model.named_children()["model"]->children();
  s.layers = static_cast<int64_t>(layers.size());
  s.table = fmt::format("{:>3}{:>20}{:>3}{:>11}  {:<14}{}\n", "", "from", "n", "params", "module",
                        "arguments");
  const auto& infos = model.layer_infos();
  for (size_t i = 0; i < layers.size() && i < infos.size(); ++i) {
    int64_t params = 0;
    for (const auto& p : layers[i]->parameters()) params += p.numel();
    const auto& info = infos[i];
    std::string from = info.from.size() == 1 ? std::to_string(info.from[0])
                                             : fmt::format("[{}]", fmt::join(info.from, ", "));
    s.table += fmt::format("{:>3}{:>20}{:>3}{:>11}  {:<14}{}\n", info.index, from, info.repeats,
                           with_thousands(params), info.module, info.args);
  }
  return s;
}

std::string summary_line(const DetectionModelImpl& model, const ModelSummary& s) {
  std::string name = model.config().name;
  if (name.rfind("yolo", 0) == 0) name = "YOLO" + name.substr(4);
  return fmt::format("{} summary{}: {} layers, {} parameters, {} gradients, {:.1f} GFLOPs", name,
                     model.is_fused() ? " (fused)" : "", s.layers, with_thousands(s.parameters),
                     with_thousands(s.gradients), s.gflops);
}

}  // namespace yolo
