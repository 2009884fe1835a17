// `yolo-trainer val`: validates a checkpoint (ours or an Ultralytics TorchScript export) through
// the runtime's Engine -- the code path deployments run -- on a dataset split.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <chrono>
#include <set>

#include "yolo/core/device.h"
#include "yolo/core/run_dir.h"
#include "yolo/core/stopwatch.h"
#include "yolo/runtime/engine.h"
#include "yolo/runtime/inference_settings.h"
#include "yolo/runtime/traced_head.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/data/dataset.h"
#include "yolo/trainer/data/dataset_download.h"
#include "yolo/trainer/data/subset_checks.h"
#include "yolo/trainer/modes/modes.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/settings/shared_settings.h"
#include "yolo/trainer/val/validator.h"

namespace yolo {
namespace fs = std::filesystem;
namespace {

// The checkpoint on the device, as deployments load it (Engine), with the precision and size
// settings applied.
std::unique_ptr<Engine> load_val_engine(const Config& cfg, const SelectedDevice& device,
                                        const std::string& model_path) {
  EngineOptions eopts;
  eopts.device = device.torch_string();
  const InferencePrecision precision = precision_setting(cfg, eopts.device);
  eopts.half = precision.half;
  eopts.bf16 = precision.bf16;
  eopts.rect = rect_inference_setting(cfg);
  if (imgsz_setting(cfg).given) eopts.imgsz = {square_imgsz_setting(cfg, "val")};  // traced at it
  auto engine = std::make_unique<Engine>(model_path, eopts);
  spdlog::info("inference: {}", engine->precision());
  const ModelMetadata& meta = engine->metadata();
  warn_if_traced_head_differs(meta.end2end, cfg.get_optional_bool("nms"), model_path);
  // A fixed-shape export runs at its traced size: square letterbox (Ultralytics sets rect=False
  // for exported models) and batches of the traced batch size.
  if (meta.imgsz[0] != meta.imgsz[1])
    throw ConfigError(fmt::format("{} was exported at {}x{}; val needs a square export", model_path,
                                  meta.imgsz[0], meta.imgsz[1]));
  if (eopts.rect && !engine->rect())
    spdlog::info(
        "{} is a fixed-shape export: validation runs square at {}x{} (rectangular batches "
        "need a .pt or a yolo-trainer training checkpoint)",
        model_path, meta.imgsz[0], meta.imgsz[1]);
  if (!engine->rect() && !eopts.imgsz.empty() && eopts.imgsz.front() != meta.imgsz[0])
    spdlog::warn("imgsz={} ignored: {} runs at its exported size {}", eopts.imgsz.front(),
                 model_path, meta.imgsz[0]);
  return engine;
}

// The split's labelled images (single_cls applied), after the dataset is made available.
struct ValData {
  DatasetConfig config;
  DatasetScan scan;
  std::string split;
};

ValData read_val_data(const Config& cfg, const ModelMetadata& meta, const std::string& model_path) {
  const std::string datasets_dir =
      cfg.is_null("datasets_dir") ? "datasets" : cfg.get_string("datasets_dir");
  ValData d;
  d.config = load_dataset_config(cfg.get_string("data"), datasets_dir);
  ensure_dataset(d.config);
  d.split = cfg.get_string("split");
  auto it = d.config.splits.find(d.split);
  if (it == d.config.splits.end())
    throw DatasetError(fmt::format("{} has no '{}' split", d.config.yaml_path.string(), d.split));
  const int nc = static_cast<int>(meta.names.size());
  if (nc != d.config.nc && !cfg.get_bool("single_cls"))
    spdlog::warn("{} has {} classes but {} has {}; class ids are compared as they are", model_path,
                 nc, d.config.yaml_path.string(), d.config.nc);
  d.scan = scan_dataset(list_images(it->second), d.config.nc,
                        std::max(1, static_cast<int>(cfg.get_int("workers"))));
  spdlog::info("{}", d.scan.summary(d.split));
  if (d.scan.images.empty())
    throw DatasetError(fmt::format("the '{}' split has no usable images", d.split));
  // classes= keeps those classes' labels, as Ultralytics' val dataset does; a filter that keeps
  // nothing leaves nothing to measure.
  const std::set<int> classes = classes_setting(cfg);
  check_class_filter(classes, d.config, d.scan.images, d.split);
  filter_classes(d.scan.images, classes, cfg.get_bool("single_cls"));
  return d;
}

ValidatorOptions validator_options(const Config& cfg, const ModelMetadata& meta,
                                   const ValData& data, const fs::path& save_dir) {
  ValidatorOptions vo;
  const InferenceSettings in = inference_settings(cfg, kValConf);
  vo.conf = in.conf;
  vo.iou = in.iou;
  vo.max_det = in.max_det;
  vo.agnostic = in.agnostic || cfg.get_bool("single_cls");
  vo.end2end = meta.end2end;
  vo.nc = std::max(static_cast<int>(meta.names.size()), data.config.nc);
  vo.names = meta.names.empty() ? data.config.names : meta.names;
  vo.plots = cfg.get_bool("plots");
  vo.save_json = cfg.get_bool("save_json");
  vo.save_dir = save_dir;
  vo.split = data.split;
  return vo;
}

}  // namespace

int run_val_mode(const Config& cfg, const SelectedDevice& device) {
  if (cfg.is_null("model"))
    throw ConfigError("val needs model=path/to/best.pt (or an Ultralytics .torchscript export)");
  if (cfg.is_null("data")) throw ConfigError("val needs data=path/to/data.yaml");
  const std::string model_path = cfg.get_string("model");
  if (fs::path(model_path).extension() == ".yaml")
    throw ConfigError(
        fmt::format("val needs trained weights, not an architecture ({}); give "
                    "model=runs/detect/train/weights/best.pt",
                    model_path));
  const std::unique_ptr<Engine> engine = load_val_engine(cfg, device, model_path);
  const ModelMetadata& meta = engine->metadata();
  const ValData data = read_val_data(cfg, meta, model_path);

  LoaderOptions lo;
  lo.imgsz = static_cast<int>(meta.imgsz[0]);
  lo.batch = static_cast<int>(cfg.get_int("batch"));
  lo.workers = std::max(1, static_cast<int>(cfg.get_int("workers")));
  lo.augment = false;
  lo.shuffle = false;
  lo.rect = engine->rect();  // Ultralytics' rect batches (rect=False: the engine runs square)
  lo.stride = static_cast<int>(meta.stride);
  DataLoader loader(data.scan.images, lo);

  const fs::path save_dir = make_run_dir(cfg.is_null("project") ? "" : cfg.get_string("project"),
                                         cfg.is_null("name") ? "" : cfg.get_string("name"), "val",
                                         cfg.get_bool("exist_ok"));
  const ValidatorOptions vo = validator_options(cfg, meta, data, save_dir);
  Validator validator(vo);
  auto forward = [&](const torch::Tensor& images, const torch::Tensor&) {
    ModelBatchOutput out;
    // A rect batch of a size the engine has not run yet is traced first, timed apart.
    const auto t0 = std::chrono::steady_clock::now();
    if (engine->rect() && engine->prepare_shape(images.size(2), images.size(3))) {
      out.prepare_ms = ms_since(t0);
      out.prepared_new_shape = true;
    }
    out.predictions = engine->forward_in_traced_batches(images).to(torch::kFloat);
    return out;
  };
  ValidationResult r = validator.run(loader, forward, engine->device());
  fmt::print("{}", metrics_table_rows(r.metrics, vo.names, true));
  fmt::print("{}\n", r.speed_line());
  for (const auto& f : r.files) spdlog::debug("wrote {}", f.string());
  fmt::print("Results saved to {}\n", save_dir.string());
  return 0;
}

}  // namespace yolo
