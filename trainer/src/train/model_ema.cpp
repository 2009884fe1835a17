#include "yolo/trainer/train/model_ema.h"

#include <torch/torch.h>

#include "yolo/models/checkpoint.h"
#include "yolo/trainer/train/schedule.h"

namespace yolo {

ModelEMA::ModelEMA(const DetectionModelImpl& model, double decay, double tau, int64_t updates)
    : ema_(clone_model(model)), decay_(decay), tau_(tau), updates_(updates) {
  ema_->eval();
  for (auto& p : ema_->parameters()) p.set_requires_grad(false);
}

double ModelEMA::current_decay() const {
  return ema_decay(updates_, decay_, tau_);
}

void ModelEMA::update(const DetectionModelImpl& model) {
  torch::NoGradGuard no_grad;
  ++updates_;
  const double d = current_decay();
  auto blend = [d](torch::OrderedDict<std::string, torch::Tensor> ema,
                   const torch::OrderedDict<std::string, torch::Tensor>& src) {
    for (auto& item : ema) {
      auto& v = item.value();
      if (!v.is_floating_point()) continue;  // num_batches_tracked
      const auto* m = src.find(item.key());
      TORCH_CHECK(m, "ModelEMA: the model has no tensor '", item.key(), "'");
      v.mul_(d).add_(m->detach().to(v.dtype()), 1 - d);
    }
  };
  blend(ema_->named_parameters(), model.named_parameters());
  blend(ema_->named_buffers(), model.named_buffers());
}

}  // namespace yolo
