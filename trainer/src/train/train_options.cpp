#include "yolo/trainer/train/train_options.h"

#include <fmt/format.h>

#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/settings/shared_settings.h"

namespace yolo {

std::vector<std::string> frozen_prefixes(const Config& cfg) {
  std::vector<std::string> out{".dfl"};
  if (cfg.is_null("freeze")) return out;
  std::vector<long long> layers;
  if (cfg.type_of("freeze") == ValueType::kInt) {
    for (long long i = 0; i < cfg.get_int("freeze"); ++i) layers.push_back(i);
  } else {
    layers = cfg.get_int_list("freeze");
  }
  for (long long i : layers) out.push_back(fmt::format("model.{}.", i));
  return out;
}

bool is_frozen(const std::string& parameter_name, const std::vector<std::string>& prefixes) {
  for (const auto& p : prefixes) {
    if (p.front() == '.' ? parameter_name.find(p) != std::string::npos
                         : parameter_name.rfind(p, 0) == 0)
      return true;
  }
  return false;
}

namespace {

std::string string_or_empty(const Config& cfg, const char* key) {
  return cfg.is_null(key) ? "" : cfg.get_string(key);
}

AugmentParams augment_params(const Config& cfg) {
  AugmentParams hyp;
  hyp.hsv_h = cfg.get_float("hsv_h"), hyp.hsv_s = cfg.get_float("hsv_s");
  hyp.hsv_v = cfg.get_float("hsv_v"), hyp.degrees = cfg.get_float("degrees");
  hyp.translate = cfg.get_float("translate"), hyp.scale = cfg.get_float("scale");
  hyp.shear = cfg.get_float("shear"), hyp.perspective = cfg.get_float("perspective");
  hyp.flipud = cfg.get_float("flipud"), hyp.fliplr = cfg.get_float("fliplr");
  hyp.mosaic = cfg.get_float("mosaic");
  hyp.mixup = cfg.get_float("mixup"), hyp.cutmix = cfg.get_float("cutmix");
  hyp.bgr = cfg.get_float("bgr");
  return hyp;
}

ScheduleOptions schedule_options(const Config& cfg) {
  ScheduleOptions s;
  s.epochs = static_cast<int>(cfg.get_int("epochs"));
  s.lrf = cfg.get_float("lrf");
  s.cosine = cfg.get_bool("cos_lr");
  s.warmup_epochs = cfg.get_float("warmup_epochs");
  s.warmup_momentum = cfg.get_float("warmup_momentum");
  s.warmup_bias_lr = cfg.get_float("warmup_bias_lr");
  s.momentum = cfg.get_float("momentum");
  s.nbs = static_cast<int>(cfg.get_int("nbs"));
  return s;
}

}  // namespace

TrainOptions TrainOptions::from_config(const Config& cfg) {
  TrainOptions o;
  if (cfg.is_null("data"))
    throw ConfigError(
        "train needs data=path/to/data.yaml (run `yolo-trainer synth` for a small "
        "synthetic dataset)");
  o.data = cfg.get_string("data");
  if (!cfg.is_null("datasets_dir")) o.datasets_dir = cfg.get_string("datasets_dir");
  if (cfg.is_null("model"))
    throw ConfigError(
        "train needs model=..., e.g. model=yolo26n.yaml (from scratch), "
        "model=runs/detect/train/weights/best.pt or model=yolo11n.torchscript");
  o.model = cfg.get_string("model");
  o.device = cfg.get_string("device");
  o.project = string_or_empty(cfg, "project");
  o.name = string_or_empty(cfg, "name");
  o.exist_ok = cfg.get_bool("exist_ok");
  o.single_cls = cfg.get_bool("single_cls");
  o.classes = classes_setting(cfg);
  o.val_split = cfg.get_string("split") == "train" ? "train" : "val";
  o.fraction = cfg.get_float("fraction");
  o.cache = cfg.get_string("cache");
  o.rect = cfg.get_bool("rect");
  o.hyp = augment_params(cfg);

  o.imgsz = static_cast<int>(square_imgsz_setting(cfg, "training"));
  o.batch = static_cast<int>(cfg.get_int("batch"));
  if (o.batch < 1)
    throw ConfigError(
        fmt::format("batch={} is not supported: give a positive batch size "
                    "(AutoBatch is not available)",
                    cfg.get_int("batch")));
  o.epochs = static_cast<int>(cfg.get_int("epochs"));
  if (o.epochs < 1) throw ConfigError("epochs must be >= 1");
  o.workers = std::max(0, static_cast<int>(cfg.get_int("workers")));
  o.seed = static_cast<uint64_t>(cfg.get_int("seed"));
  o.deterministic = cfg.get_bool("deterministic");
  o.multi_scale = cfg.get_float("multi_scale");
  if (o.multi_scale < 0 || o.multi_scale >= 1)
    throw ConfigError(fmt::format(
        "multi_scale={} is out of range: give a fraction in [0, 1), e.g. multi_scale=0.5 for "
        "sizes from imgsz/2 to 1.5 imgsz",
        o.multi_scale));
  // Probabilities and fractions (Ultralytics' CFG_FRACTION_KEYS) carry their [0, 1] range in
  // config/default.yaml; Config refuses values outside it when they are set.
  o.frozen = frozen_prefixes(cfg);
  o.optimizer = cfg.get_string("optimizer");
  o.lr0 = cfg.get_float("lr0");
  o.momentum = cfg.get_float("momentum");
  o.weight_decay = cfg.get_float("weight_decay");
  o.schedule = schedule_options(cfg);
  o.gains = {cfg.get_float("box"), cfg.get_float("cls"), cfg.get_float("dfl")};
  o.amp = cfg.get_bool("amp");

  o.val = cfg.get_bool("val");
  o.plots = cfg.get_bool("plots");
  o.verbose = cfg.get_bool("verbose");
  o.save = cfg.get_bool("save");
  o.patience = static_cast<int>(cfg.get_int("patience"));
  o.close_mosaic = static_cast<int>(cfg.get_int("close_mosaic"));
  o.save_period = static_cast<int>(cfg.get_int("save_period"));
  o.time_limit_hours = cfg.is_null("time") ? 0.0 : cfg.get_float("time");
  o.val_iou = cfg.get_float("iou");
  o.max_det = static_cast<int>(cfg.get_int("max_det"));
  o.agnostic_nms = cfg.get_bool("agnostic_nms");
  return o;
}

}  // namespace yolo
