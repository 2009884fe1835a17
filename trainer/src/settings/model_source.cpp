#include "yolo/trainer/settings/model_source.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <filesystem>
#include <map>

#include "yolo/core/strings.h"
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

std::shared_ptr<DetectionModelImpl> model_to_train(const Config& cfg, int nc,
                                                   const std::map<int, std::string>& names,
                                                   bool resuming, TransferReport* report) {
  const std::string model = cfg.get_string("model");
  const std::string pretrained = cfg.get_string("pretrained");
  const std::string flag = lower(pretrained);
  const bool pretrained_path = !pretrained.empty() && flag != "true" && flag != "false";
  const std::string ext = std::filesystem::path(model).extension().string();
  const bool yaml = ext == ".yaml" || ext == ".yml";
  if (model.empty()) load_model_setting(model);  // its error says what to give

  std::optional<PretrainedWeights> source;
  ModelConfig config;
  if (yaml) {
    config = load_model_config(model, nc);
  } else {
    // The architecture comes from the weights file; Ultralytics takes it from weights.yaml.
    source = read_pretrained_weights(model);
    config = source->config;
    config.nc = nc;
    if (!resuming && flag == "false") source.reset();
  }
  if (pretrained_path && !resuming) source = read_pretrained_weights(pretrained);
  if (!source) {
    config.cls_hidden = 0;
    auto built = std::make_shared<DetectionModelImpl>(config);
    built->names = names;
    return built;
  }
  return build_with_pretrained(config, *source, names, cfg.get_bool("cls_remap"), report);
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
