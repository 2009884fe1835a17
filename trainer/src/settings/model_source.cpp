#include "yolo/trainer/settings/model_source.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <filesystem>
#include <map>

#include "yolo/models/checkpoint.h"
#include "yolo/models/ultralytics_checkpoint.h"
#include "yolo/trainer/settings/config.h"

namespace yolo {

std::shared_ptr<DetectionModelImpl> load_model_setting(const std::string& model,
                                                       std::optional<int> nc) {
  if (model.empty()) {
    throw ConfigError(
        "model= is required, e.g. model=yolo26n.yaml or model=runs/detect/train/weights/best.pt");
  }
  const std::string ext = std::filesystem::path(model).extension().string();
  if (ext == ".yaml" || ext == ".yml") return build_model(model, nc);
  // Ultralytics' own .pt files: built from the YAML inside, with their weights.
  if (is_torch_save_file(model))
    return build_ultralytics_model(read_ultralytics_checkpoint(model), nc);
  // Our training checkpoints restore exactly; other TorchScript files (Ultralytics exports,
  // our lean exports) are unfused into the matching architecture.
  if (has_training_weights(model) && !nc) return load_eager_model(model);
  return import_fused_torchscript(model, nc);
}

int transfer_pretrained(DetectionModelImpl& model, const std::string& path) {
  std::map<std::string, torch::Tensor> source;
  if (is_torch_save_file(path)) {
    source = read_ultralytics_checkpoint(path).state;
  } else {
    auto from = has_training_weights(path) ? load_eager_model(path)
                                           : import_fused_torchscript(path, std::nullopt);
    for (const auto& p : from->named_parameters(true)) source[p.key()] = p.value();
    for (const auto& b : from->named_buffers(true)) source[b.key()] = b.value();
  }
  torch::NoGradGuard no_grad;
  int transferred = 0, total = 0;
  auto take = [&](const std::string& name, torch::Tensor& dst) {
    ++total;
    auto it = source.find(name);
    if (it == source.end() || it->second.sizes() != dst.sizes()) return;
    dst.copy_(it->second.to(dst.dtype()));
    ++transferred;
  };
  for (auto& p : model.named_parameters(true)) take(p.key(), p.value());
  for (auto& b : model.named_buffers(true)) take(b.key(), b.value());
  spdlog::info("Transferred {}/{} items from pretrained weights '{}'", transferred, total, path);
  if (transferred == 0)
    spdlog::warn(
        "pretrained='{}' shares no tensor with {} (another architecture?); training "
        "from scratch",
        path, model.config().name);
  return transferred;
}

void choose_inference_head(DetectionModelImpl& model, const Config& cfg) {
  const std::optional<bool> nms = cfg.get_optional_bool("nms");
  const bool nms_free = nms.has_value() && !*nms;
  auto& det = model.detect();
  if (!det.end2end) {
    if (nms_free)
      spdlog::warn("nms=False: {} has no NMS-free (one-to-one) head; using NMS",
                   model.config().name);
    return;
  }
  det.use_one2one = nms_free;
  spdlog::info("{}: inference through the {}", model.config().name,
               nms_free ? "NMS-free one-to-one head (nms=False)"
                        : "one-to-many head with NMS (the default; nms=False selects the "
                          "NMS-free head)");
}

}  // namespace yolo
