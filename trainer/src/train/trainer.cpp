#include "yolo/trainer/trainer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>
#include <yaml-cpp/yaml.h>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <thread>

#include "yolo/core/atomic_file.h"
#include "yolo/core/device.h"
#include "yolo/core/progress_bar.h"
#include "yolo/models/checkpoint.h"
#include "yolo/trainer/amp_check.h"
#include "yolo/trainer/data_loader.h"
#include "yolo/trainer/dataset.h"
#include "yolo/trainer/dataset_download.h"
#include "yolo/trainer/loss.h"
#include "yolo/trainer/mixed_precision.h"
#include "yolo/trainer/model_ema.h"
#include "yolo/trainer/model_source.h"
#include "yolo/trainer/multi_scale.h"
#include "yolo/trainer/npy_image.h"
#include "yolo/trainer/optimizer.h"
#include "yolo/trainer/plots.h"
#include "yolo/trainer/results_log.h"
#include "yolo/trainer/run_dir.h"
#include "yolo/trainer/schedule.h"
#include "yolo/trainer/train_checkpoint.h"
#include "yolo/trainer/validator.h"

namespace yolo {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kMaxGradNorm = 10.0;  // Ultralytics clips gradients at this norm
constexpr int kTrainBatchPlots = 3;    // train_batch0..2.jpg

std::string utc_now() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Settings stored in a checkpoint's args.yaml, applied key by key (unknown keys from other
// versions are skipped with a warning rather than making old runs unresumable).
void apply_saved_args(Config& cfg, const std::string& yaml_text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw CheckpointError(fmt::format("'{}': its args.yaml is corrupt ({})", source, e.what()));
  }
  if (!root.IsMap())
    throw CheckpointError(fmt::format("'{}': its args.yaml is not a mapping", source));
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (!cfg.accepts_key(key)) {
      spdlog::warn("resume: ignoring setting '{}' from {} (unknown to this version)", key, source);
      continue;
    }
    cfg.set(key, kv.second);
  }
}

std::vector<std::string> frozen_prefixes(const Config& cfg) {
  std::vector<std::string> out{".dfl"};  // the DFL integral's weights are fixed by design
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

bool is_frozen(const std::string& name, const std::vector<std::string>& prefixes) {
  for (const auto& p : prefixes) {
    if (p.front() == '.' ? name.find(p) != std::string::npos : name.rfind(p, 0) == 0) return true;
  }
  return false;
}

// Ultralytics keeps BatchNorm layers of frozen modules in eval mode while training.
void set_frozen_bn_eval(DetectionModelImpl& model, const std::vector<std::string>& prefixes) {
  for (const auto& m : model.named_modules()) {
    if (!dynamic_cast<torch::nn::BatchNorm2dImpl*>(m.value().get())) continue;
    if (is_frozen(m.key() + ".", prefixes) && m.key().find(".dfl") == std::string::npos)
      m.value()->eval();
  }
}

// Ultralytics' check_cache_disk: the decoded images (.npy next to each image) with a 50 % margin
// must fit on the dataset's disk; otherwise training goes on without the cache.
bool disk_cache_fits(const std::vector<ImageRecord>& records) {
  if (records.empty()) return false;
  uintmax_t bytes = 0;  // pixels plus the .npy header, for the caches not written yet
  std::set<fs::path> counted;
  for (const auto& r : records) {
    const fs::path npy = npy_cache_path(r.image);
    std::error_code ec;
    if (!counted.insert(npy).second || fs::exists(npy, ec)) continue;
    bytes += static_cast<uintmax_t>(r.width) * r.height * 3 + 128;
  }
  std::error_code ec;
  const fs::space_info space = fs::space(records.front().image.parent_path(), ec);
  const double gb = 1024.0 * 1024.0 * 1024.0;
  if (!ec && static_cast<double>(space.available) < 1.5 * static_cast<double>(bytes)) {
    spdlog::warn(
        "cache=disk needs {:.1f} GB of .npy files but {:.1f} GB are free there; "
        "not caching images to disk",
        bytes / gb, static_cast<double>(space.available) / gb);
    return false;
  }
  spdlog::info(
      "cache=disk: decoded images are saved as .npy next to each image on first use "
      "({:.2f} GB still to write, for {} training and validation images)",
      bytes / gb, records.size());
  return true;
}

// The progress bar's memory column. LibTorch has no backend-neutral query of the caching
// allocator (the CPU build lacks c10/cuda), so GPUs show "-" rather than a guessed number.
std::string memory_text(const c10::Device& device) {
  return device.is_cuda() ? "-" : "0G";
}

}  // namespace

struct Trainer::State {
  SelectedDevice selected;
  std::unique_ptr<ProcessGroup> pg;  // data-parallel runs only
  bool main = true;                  // rank 0 (or the only process): validates, saves, prints
  c10::Device device{torch::kCPU};
  DatasetConfig data;
  std::map<int, std::string> names;
  int nc = 0;
  std::shared_ptr<DetectionModelImpl> model;
  std::unique_ptr<ModelEMA> ema;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<GradScaler> scaler;
  std::unique_ptr<DetectionLoss> loss;
  std::unique_ptr<EndToEndLoss> e2e_loss;
  std::unique_ptr<DataLoader> train_loader, val_loader;
  std::vector<ImageRecord> train_records;
  std::vector<std::string> frozen;
  ScheduleOptions schedule;
  fs::path save_dir, last, best;
  TrainState ts;
  bool amp = false;
  int imgsz = 640, batch = 16, epochs = 100, start_epoch = 0, workers = 1;
  int64_t start_batch = 0;
  ResultsLog results;
};

Trainer::Trainer(Config config, DistributedEnv dist)
    : cfg_(std::move(config)), dist_(std::move(dist)), s_(std::make_unique<State>()) {
  State& s = *s_;
  s.main = dist_.is_main();
  // ---- resume: the run's own settings, then the few a user may change (device, workers) ----
  std::optional<TrainCheckpoint> resume;
  fs::path resume_path;
  const bool resuming = cfg_.type_of("resume") == ValueType::kString
                            ? !cfg_.get_string("resume").empty()
                            : (!cfg_.is_null("resume") && cfg_.get_bool("resume"));
  if (resuming) {
    resume_path = resolve_resume_checkpoint(cfg_);
    resume = load_training_checkpoint(resume_path);
    if (resume->state.finished || resume->model_weights.empty())
      throw ConfigError(fmt::format(
          "{} is from a finished training run (its optimiser state was dropped); there is nothing "
          "to resume. Start a new run with model={} to fine-tune from it",
          resume_path.string(), resume_path.string()));
    Config saved = cfg_;
    apply_saved_args(saved, resume->args_yaml, resume_path.string());
    for (const char* key : {"device", "workers", "threads", "verbose", "plots"})
      if (cfg_.was_set(key)) saved.set(key, cfg_.node(key));
    saved.set("resume", YAML::Node(resume_path.string()));
    cfg_ = std::move(saved);
    spdlog::info("Resuming training from {} (epoch {} done)", resume_path.string(),
                 resume->state.epoch + 1);
  }

  // ---- device ----
  s.selected = select_device(cfg_.get_string("device"));
  if (dist_.active()) {
    if (s.selected.is_gpu) {
      const auto& ids = s.selected.gpu_indices;
      const int local = dist_.local_rank;
      const int index =
          local < static_cast<int>(ids.size()) ? ids[static_cast<size_t>(local)] : local;
      s.device = c10::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
    }
    s.pg = std::make_unique<ProcessGroup>(dist_, s.device);
    if (s.main) spdlog::info("DDP: {} processes, backend {}", dist_.world_size, s.pg->backend());
  } else {
    if (s.selected.world_size() > 1)
      throw ConfigError(fmt::format(
          "device={} lists {} GPUs: start multi-GPU training with `yolo-trainer train` (it starts "
          "one worker per GPU) or torchrun-style RANK/WORLD_SIZE variables",
          cfg_.get_string("device"), s.selected.world_size()));
    s.device = c10::Device(s.selected.torch_string());
  }

  // ---- data ----
  if (cfg_.is_null("data"))
    throw ConfigError(
        "train needs data=path/to/data.yaml (run `yolo-trainer synth` for a small "
        "synthetic dataset)");
  const std::string datasets_dir =
      cfg_.is_null("datasets_dir") ? "datasets" : cfg_.get_string("datasets_dir");
  s.data = load_dataset_config(cfg_.get_string("data"), datasets_dir);
  ensure_dataset(s.data);
  s.nc = s.data.nc;
  s.names = s.data.names;
  if (cfg_.get_bool("single_cls")) {
    s.nc = 1;
    s.names = {{0, "item"}};
  }

  // ---- seeds: the same seed gives the same initial weights and batches (init_seeds) ----
  torch::manual_seed(static_cast<uint64_t>(cfg_.get_int("seed")) + 1);
  // deterministic: reproducible convolution algorithms (cuDNN / MIOpen) rather than
  // torch.use_deterministic_algorithms, whose warn-only mode prints on every scatter_add of the
  // assigner on GPUs. On the CPU every kernel used here is deterministic already.
  const bool deterministic = cfg_.get_bool("deterministic");
  at::globalContext().setDeterministicCuDNN(deterministic);
  at::globalContext().setBenchmarkCuDNN(!deterministic);

  // ---- model ----
  if (cfg_.is_null("model"))
    throw ConfigError(
        "train needs model=..., e.g. model=yolo26n.yaml (from scratch), "
        "model=runs/detect/train/weights/best.pt or model=yolo11n.torchscript");
  s.model = load_model_setting(cfg_.get_string("model"), s.nc);
  s.model->names = s.names;
  choose_inference_head(*s.model, cfg_);
  const int stride = static_cast<int>(s.model->max_stride());
  const auto imgsz_list = cfg_.get_int_list("imgsz");
  if (imgsz_list.empty() || imgsz_list.front() < 1)
    throw ConfigError("imgsz must be a positive integer for training, e.g. imgsz=640");
  s.imgsz = static_cast<int>(imgsz_list.front());
  if (s.imgsz % stride != 0) {
    const int rounded = (s.imgsz + stride - 1) / stride * stride;
    spdlog::warn("imgsz={} is not a multiple of the model stride {}; using imgsz={}", s.imgsz,
                 stride, rounded);
    s.imgsz = rounded;
  }
  s.batch = static_cast<int>(cfg_.get_int("batch"));
  if (s.batch < 1)
    throw ConfigError(
        fmt::format("batch={} is not supported: give a positive batch size "
                    "(AutoBatch is not available)",
                    cfg_.get_int("batch")));
  const int world = dist_.active() ? dist_.world_size : 1;
  if (s.batch % world != 0)
    throw ConfigError(
        fmt::format("batch={} must be a multiple of the {} DDP processes (each "
                    "takes batch / {} images)",
                    s.batch, world, world));
  s.epochs = static_cast<int>(cfg_.get_int("epochs"));
  if (s.epochs < 1) throw ConfigError("epochs must be >= 1");
  const double multi_scale = cfg_.get_float("multi_scale");
  if (multi_scale < 0 || multi_scale >= 1)
    throw ConfigError(fmt::format(
        "multi_scale={} is out of range: give a fraction in [0, 1), e.g. multi_scale=0.5 for "
        "sizes from imgsz/2 to 1.5 imgsz",
        multi_scale));
  // Probabilities and fractions (Ultralytics' CFG_FRACTION_KEYS) carry their [0, 1] range in
  // config/default.yaml; Config refuses values outside it when they are set.
  if (cfg_.get_bool("rect") && world > 1)
    throw ConfigError(
        "rect=True cannot be combined with DDP here: the batches sorted by shape are not "
        "sharded across processes; train on one device or leave rect off");

  s.frozen = frozen_prefixes(cfg_);
  for (auto& p : s.model->named_parameters()) {
    if (is_frozen(p.key(), s.frozen)) {
      p.value().set_requires_grad(false);
    } else if (!p.value().requires_grad()) {
      p.value().set_requires_grad(true);
    }
  }
  if (s.frozen.size() > 1)
    spdlog::info("Freezing layers: {}", fmt::join(s.frozen.begin() + 1, s.frozen.end(), " "));
  s.model->to(s.device);

  // ---- run folder ----
  if (resume) {
    s.save_dir = resume_path.parent_path().parent_path();
  } else if (s.main) {
    s.save_dir = make_run_dir(cfg_.is_null("project") ? "" : cfg_.get_string("project"),
                              cfg_.is_null("name") ? "" : cfg_.get_string("name"), "train",
                              cfg_.get_bool("exist_ok"));
  }
  if (s.main) {
    fs::create_directories(s.save_dir / "weights");
    s.last = s.save_dir / "weights" / "last.pt";
    s.best = s.save_dir / "weights" / "best.pt";
    write_file_atomically(s.save_dir / "args.yaml", cfg_.to_yaml());
  }

  // ---- data loaders ----
  int workers = std::max(0, static_cast<int>(cfg_.get_int("workers")));
  if (!s.device.is_cuda() && workers > 0) {
    // On the CPU, loader threads compete with LibTorch's compute threads, whose OpenMP barriers
    // spin: a core taken by a loader thread stalls every compute thread at the next barrier, so
    // a batch made beside the step costs about twice its CPU time (8 workers on 2 cores made an
    // epoch 6x slower than 1). Making each batch in the training thread, between steps, costs it
    // once; Ultralytics does the same on the CPU (workers=0).
    spdlog::info(
        "CPU training: batches are made in the training thread instead of {} loader thread{} "
        "(loader threads slow LibTorch's compute threads down)",
        workers, workers > 1 ? "s" : "");
    workers = 0;
  }
  s.workers = workers;
  // Scanning labels happens before training starts, so on the CPU it may use every core.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int scan_workers = std::clamp(s.device.is_cuda() ? workers : cores, 1, 8);
  auto scan_split = [&](const std::string& split) {
    auto it = s.data.splits.find(split);
    if (it == s.data.splits.end())
      throw DatasetError(fmt::format("{} has no '{}' split", s.data.yaml_path.string(), split));
    DatasetScan scan = scan_dataset(list_images(it->second), s.data.nc, scan_workers);
    spdlog::info("{}", scan.summary(split));
    if (scan.images.empty())
      throw DatasetError(
          fmt::format("{}: the '{}' split has no usable images", s.data.yaml_path.string(), split));
    return scan.images;
  };
  s.train_records = scan_split("train");
  std::vector<ImageRecord> val_records =
      scan_split(cfg_.get_string("split") == "train" ? "train" : "val");
  // classes= keeps only the listed classes; single_cls maps every class to 0.
  std::set<int> keep;
  if (!cfg_.is_null("classes"))
    for (long long c : cfg_.get_int_list("classes")) keep.insert(static_cast<int>(c));
  const bool single = cfg_.get_bool("single_cls");
  for (auto* records : {&s.train_records, &val_records}) {
    for (auto& r : *records) {
      std::vector<LabelBox> boxes;
      for (auto b : r.boxes) {
        if (!keep.empty() && !keep.count(b.cls)) continue;
        if (single) b.cls = 0;
        boxes.push_back(b);
      }
      r.boxes = std::move(boxes);
    }
  }
  LoaderOptions train_opts;
  train_opts.imgsz = s.imgsz;
  train_opts.batch = s.batch / world;  // per process; schedules use the global batch
  train_opts.rank = dist_.active() ? dist_.rank : 0;
  train_opts.world = world;
  train_opts.workers = workers;
  train_opts.seed = static_cast<uint64_t>(cfg_.get_int("seed"));
  train_opts.stride = stride;
  train_opts.fraction = cfg_.get_float("fraction");
  const std::string cache = cfg_.get_string("cache");
  train_opts.cache_ram = cache == "true" || cache == "ram";
  if (cache == "disk") {
    std::vector<ImageRecord> all = s.train_records;  // validation caches too, as in Ultralytics
    all.insert(all.end(), val_records.begin(), val_records.end());
    train_opts.cache_disk = disk_cache_fits(all);
  }
  train_opts.pin_memory = s.device.is_cuda();
  if (cfg_.get_bool("rect")) {
    // Ultralytics' rect training: batches of similar aspect ratio in a fixed order, no mosaic.
    train_opts.rect = true;
    train_opts.rect_pad = 0.0;
    train_opts.shuffle = false;
    spdlog::warn(
        "rect=True: training batches are sorted by aspect ratio and not shuffled, and mosaic, "
        "mixup and cutmix are off");
  }
  AugmentParams& hyp = train_opts.hyp;
  hyp.hsv_h = cfg_.get_float("hsv_h"), hyp.hsv_s = cfg_.get_float("hsv_s");
  hyp.hsv_v = cfg_.get_float("hsv_v"), hyp.degrees = cfg_.get_float("degrees");
  hyp.translate = cfg_.get_float("translate"), hyp.scale = cfg_.get_float("scale");
  hyp.shear = cfg_.get_float("shear"), hyp.perspective = cfg_.get_float("perspective");
  hyp.flipud = cfg_.get_float("flipud"), hyp.fliplr = cfg_.get_float("fliplr");
  hyp.mosaic = cfg_.get_float("mosaic");
  hyp.mixup = cfg_.get_float("mixup"), hyp.cutmix = cfg_.get_float("cutmix");
  hyp.bgr = cfg_.get_float("bgr");
  s.train_loader = std::make_unique<DataLoader>(s.train_records, train_opts);
  LoaderOptions val_opts = train_opts;
  val_opts.rank = 0, val_opts.world = 1;  // rank 0 validates alone
  val_opts.augment = false;
  val_opts.shuffle = false;
  val_opts.rect = true;
  val_opts.rect_pad = LoaderOptions{}.rect_pad;  // validation's 0.5, also after rect training
  val_opts.batch = train_opts.batch * 2;
  val_opts.workers = s.device.is_cuda() ? std::min(workers * 2, 8) : workers;
  val_opts.fraction = 1.0;
  if (s.main) s.val_loader = std::make_unique<DataLoader>(val_records, val_opts);

  // ---- optimiser, schedule, loss, EMA ----
  s.schedule.epochs = s.epochs;
  s.schedule.lrf = cfg_.get_float("lrf");
  s.schedule.cosine = cfg_.get_bool("cos_lr");
  s.schedule.warmup_epochs = cfg_.get_float("warmup_epochs");
  s.schedule.warmup_momentum = cfg_.get_float("warmup_momentum");
  s.schedule.warmup_bias_lr = cfg_.get_float("warmup_bias_lr");
  s.schedule.momentum = cfg_.get_float("momentum");
  s.schedule.nbs = static_cast<int>(cfg_.get_int("nbs"));
  s.schedule.batch = s.batch;
  // Weight decay scales with the nominal accumulation, before any cap (Ultralytics).
  const int accumulate = nominal_accumulate(s.schedule);
  const double weight_decay =
      cfg_.get_float("weight_decay") * s.batch * accumulate / s.schedule.nbs;
  std::string opt_name = cfg_.get_string("optimizer");
  OptimizerKind kind;
  double lr0 = cfg_.get_float("lr0"), momentum = cfg_.get_float("momentum");
  if (opt_name == "auto" || opt_name == "Auto" || opt_name == "AUTO") {
    const int64_t iterations =
        static_cast<int64_t>(std::ceil(static_cast<double>(s.train_loader->size()) /
                                       std::max(s.batch, s.schedule.nbs))) *
        s.epochs;
    AutoChoice choice = auto_optimizer(iterations, s.nc);
    kind = choice.kind, lr0 = choice.lr, momentum = choice.momentum;
    s.schedule.warmup_bias_lr = 0.0;
    s.schedule.momentum = momentum;
    spdlog::info(
        "optimizer: 'optimizer=auto' found, ignoring 'lr0={}' and 'momentum={}' and determining "
        "best 'optimizer', 'lr0' and 'momentum' automatically... ",
        cfg_.get_float("lr0"), cfg_.get_float("momentum"));
  } else {
    try {
      kind = parse_optimizer_kind(opt_name);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(e.what());
    }
  }
  auto groups = make_param_groups(*s.model, kind, lr0, momentum, weight_decay);
  {
    size_t counts[3] = {0, 0, 0};
    for (const auto& g : groups) {
      if (g.name.rfind("bias", 0) == 0)
        counts[2] += g.params.size();
      else if (g.name.rfind("bn", 0) == 0)
        counts[1] += g.params.size();
      else
        counts[0] += g.params.size();
    }
    spdlog::info(
        "optimizer: {}(lr={}, momentum={}) with parameter groups {} weight(decay=0.0), "
        "{} weight(decay={}), {} bias(decay=0.0)",
        optimizer_name(kind), lr0, momentum, counts[1], counts[0], weight_decay, counts[2]);
  }
  s.optimizer = std::make_unique<Optimizer>(kind, std::move(groups));

  LossGains gains{cfg_.get_float("box"), cfg_.get_float("cls"), cfg_.get_float("dfl")};
  auto& det = s.model->detect();
  if (det.end2end)
    s.e2e_loss = std::make_unique<EndToEndLoss>(s.nc, det.reg_max, det.stride, gains, s.epochs);
  else
    s.loss = std::make_unique<DetectionLoss>(s.nc, det.reg_max, det.stride, gains);
  s.results = ResultsLog(det.reg_max);
  s.ema = std::make_unique<ModelEMA>(*s.model);

  // ---- AMP ----
  const bool want_amp = cfg_.get_bool("amp");
  if (!want_amp || !s.main) {
    s.amp = false;
  } else {
    BackendInfo backend = query_backend();
    std::string gpu_name;
    const int idx = s.selected.primary_index();
    if (idx >= 0 && static_cast<size_t>(idx) < backend.gpus.size())
      gpu_name = backend.gpus[idx].name;
    auto probe = s.val_loader->make_sample(0, 0);
    auto detect = [&](bool autocast) {
      torch::NoGradGuard no_grad;
      DetectionModelImpl* m = s.model.get();
      m->eval();
      cv::Mat rgb;
      cv::cvtColor(probe.image, rgb, cv::COLOR_BGR2RGB);
      cv::Mat img;
      cv::resize(rgb, img, cv::Size(s.imgsz, s.imgsz));
      torch::Tensor x = torch::from_blob(img.data, {1, img.rows, img.cols, 3}, torch::kUInt8)
                            .permute({0, 3, 1, 2})
                            .to(torch::kFloat)
                            .div(255)
                            .repeat({8, 1, 1, 1})
                            .to(s.device);
      AutocastScope scope(autocast);
      NmsOptions nms;
      auto dets = non_max_suppression(m->forward(x).to(torch::kFloat), nms,
                                      m->detect().end2end && m->detect().use_one2one);
      m->train();
      return dets.front();
    };
    AmpDecision d = check_amp(s.device.is_cuda() ? "cuda" : s.device.str(), gpu_name, detect);
    s.amp = d.enabled;
    if (d.enabled)
      spdlog::info("{}", d.reason);
    else if (s.device.is_cuda())
      spdlog::warn("{}", d.reason);
    else
      spdlog::info("{}", d.reason);
  }
  if (s.pg) s.amp = s.pg->any(s.amp);  // rank 0's decision holds for every rank
  s.scaler = std::make_unique<GradScaler>(s.amp);

  // ---- resume state ----
  if (resume) {
    unpickle_state_into(resume->model_weights, *s.model, resume_path.string());
    auto ema_model = load_eager_model(resume_path.string());
    ema_model->detect().use_one2one = s.model->detect().use_one2one;
    s.ema = std::make_unique<ModelEMA>(*ema_model, 0.9999, 2000, resume->state.ema_updates);
    s.ema->model().to(s.device);
    if (resume->state.optimizer != optimizer_name(s.optimizer->kind()))
      throw CheckpointError(fmt::format("{} was trained with {} but this run builds {}",
                                        resume_path.string(), resume->state.optimizer,
                                        optimizer_name(s.optimizer->kind())));
    try {
      s.optimizer->load_state(resume->optimizer);
    } catch (const std::runtime_error& e) {
      throw CheckpointError(fmt::format("{}: {}", resume_path.string(), e.what()));
    }
    s.scaler->restore(resume->state.scaler_scale, resume->state.scaler_tracker);
    s.ts = resume->state;
    s.start_epoch = resume->state.epoch + 1;
    s.start_batch = resume->state.batch_in_epoch;
    if (s.e2e_loss) s.e2e_loss->set_updates(s.start_epoch);
    s.results.load(s.save_dir / "results.csv", s.start_epoch);
  }
  s.ts.optimizer = optimizer_name(s.optimizer->kind());
  s.ts.amp = s.amp;
  if (s.pg) {
    // Every rank starts from rank 0's weights (seeds already agree; this makes it certain).
    std::vector<torch::Tensor> state;
    for (auto& p : s.model->parameters()) state.push_back(p.data());
    for (auto& b : s.model->buffers()) state.push_back(b);
    for (auto& p : s.ema->model().parameters()) state.push_back(p.data());
    for (auto& b : s.ema->model().buffers()) state.push_back(b);
    s.pg->broadcast(state, 0);
  }
}

Trainer::~Trainer() = default;

void Trainer::initialise_model(const std::function<void(DetectionModelImpl&)>& fill) {
  State& s = *s_;
  if (s.start_epoch > 0 || s.start_batch > 0)
    throw ConfigError("initialise_model: not for a resumed run");
  fill(*s.model);
  s.ema = std::make_unique<ModelEMA>(*s.model);
}

TrainResult Trainer::train() {
  State& s = *s_;
  TrainResult out;
  out.save_dir = s.save_dir;
  out.last = s.last;
  out.best = s.best;
  const auto t_start = Clock::now();
  const bool plots = cfg_.get_bool("plots") && s.main;  // files are rank 0's job
  const int world = s.pg ? s.pg->world_size() : 1;
  const bool do_val = cfg_.get_bool("val");
  const int patience = static_cast<int>(cfg_.get_int("patience"));
  const int close_mosaic = static_cast<int>(cfg_.get_int("close_mosaic"));
  const double multi_scale = cfg_.get_float("multi_scale");
  const int64_t stride = s.model->max_stride();
  // Every rank draws its own size, as Ultralytics' ranks do (their seeds differ by rank).
  const uint64_t scale_seed =
      static_cast<uint64_t>(cfg_.get_int("seed")) + static_cast<uint64_t>(std::max(dist_.rank, 0));
  const int save_period = static_cast<int>(cfg_.get_int("save_period"));
  const bool save_every_epoch = cfg_.get_bool("save");
  const double time_limit_h = cfg_.is_null("time") ? 0.0 : cfg_.get_float("time");
  const int64_t nb = static_cast<int64_t>(s.train_loader->batches_per_epoch());
  const int64_t warmup = warmup_iterations(s.schedule, nb);
  // Capped at the run's batch count, except in time-limited runs, whose epoch count changes.
  const int run_accumulate =
      time_limit_h > 0 ? nominal_accumulate(s.schedule) : accumulate_steps(s.schedule, nb);
  auto& det = s.model->detect();
  const bool e2e_output = det.end2end && det.use_one2one;

  if (plots && s.start_epoch == 0 && s.start_batch == 0) {
    save_plot(s.save_dir / "labels.jpg", plot_label_statistics(s.train_records, s.names));
  }

  ExportOptions export_opts;
  export_opts.height = export_opts.width = s.imgsz;
  export_opts.description = fmt::format("yolo-edge {} trained on {}", s.model->config().name,
                                        s.data.yaml_path.filename().string());
  TorchScriptExporter exporter = make_checkpoint_exporter(export_opts);

  ValidatorOptions vopts;
  vopts.conf = 0.001;
  vopts.iou = cfg_.get_float("iou");
  vopts.max_det = static_cast<int>(cfg_.get_int("max_det"));
  vopts.agnostic = cfg_.get_bool("single_cls") || cfg_.get_bool("agnostic_nms");
  vopts.end2end = e2e_output;
  vopts.nc = s.nc;
  vopts.names = s.names;
  vopts.save_dir = s.save_dir;
  vopts.progress = cfg_.get_bool("verbose");

  auto validate = [&](DetectionModelImpl& m, bool with_plots) {
    ValidatorOptions o = vopts;
    o.plots = with_plots && plots;
    Validator validator(o);
    m.eval();
    auto forward = [&](const torch::Tensor& images, const torch::Tensor& targets) {
      AutocastScope scope(s.amp);
      auto train_out = m.forward_train(images);
      ModelBatchOutput r;
      r.predictions = m.detect().inference_output(train_out).to(torch::kFloat);
      auto [anchors, strides] = m.detect().anchors_for(train_out.one2many.feats);
      LossOutput l = s.e2e_loss ? (*s.e2e_loss)(train_out, anchors, strides, targets)
                                : (*s.loss)(train_out.one2many, anchors, strides, targets);
      r.loss_items = l.items;
      return r;
    };
    return validator.run(*s.val_loader, forward, s.device);
  };

  auto save = [&](const fs::path& path, bool with_optimizer) {
    TrainCheckpoint ckpt;
    ckpt.state = s.ts;
    ckpt.state.date = utc_now();
    ckpt.state.ema_updates = s.ema->updates();
    ckpt.state.scaler_scale = s.scaler->current_scale();
    ckpt.state.scaler_tracker = s.scaler->growth_tracker();
    ckpt.args_yaml = cfg_.to_yaml();
    if (with_optimizer) {
      ckpt.model_weights = pickle_state(*s.model);
      ckpt.optimizer = s.optimizer->state();
    } else {
      ckpt.state.finished = true;
    }
    try {
      save_training_checkpoint(path, s.ema->model(), exporter, ckpt);
    } catch (const SpaceError& e) {
      // The previous file of that name is intact (saves are atomic): say so, and how to go on.
      throw SpaceError(fmt::format(
          "{}. Training stopped: epoch {} could not be saved; {} keeps the checkpoint saved before "
          "it, and resume=True continues from there",
          e.what(), s.ts.epoch + 1, fs::exists(path) ? path.string() : "no earlier file"));
    }
  };

  spdlog::info(
      "Image sizes {} train, {} val\nUsing {} dataloader workers\nLogging results to {}\n"
      "Starting training for {} epochs...",
      s.imgsz, s.imgsz, s.workers, s.save_dir.string(), s.epochs);
  const std::string header =
      fmt::format("{:>11}{:>11}{:>11}{:>11}{:>11}{:>11}{:>11}", "Epoch", "GPU_mem", "box_loss",
                  "cls_loss", ResultsLog::third_loss_name(det.reg_max), "Instances", "Size");

  // The loader starts an epoch's batches as soon as the previous epoch's last batch is taken, so
  // that they are made while rank 0 validates and saves rather than after.
  int loading_epoch = -1;
  auto start_loading = [&](int e) {
    s.train_loader->set_mosaic(!(close_mosaic > 0 && e >= s.epochs - close_mosaic));
    const int64_t first_batch = e == s.start_epoch ? s.start_batch : 0;
    s.train_loader->start_epoch(e, static_cast<size_t>(first_batch));
    loading_epoch = e;
  };

  struct {
    double train = 0, validate = 0, save = 0;  // seconds over this run's epochs (rank 0)
  } spent;
  int epoch = s.start_epoch;
  bool interrupted = false;
  // Gradients are zeroed once here and then only by optimiser steps, as in Ultralytics: the
  // batches after an epoch's last step carry into the next epoch's first step.
  s.optimizer->zero_grad();
  for (; epoch < s.epochs; ++epoch) {
    if (close_mosaic > 0 && epoch == s.epochs - close_mosaic)
      spdlog::info("Closing dataloader mosaic");
    const auto t_epoch = Clock::now();
    s.model->train();
    set_frozen_bn_eval(*s.model, s.frozen);
    if (loading_epoch != epoch) start_loading(epoch);
    if (s.main) std::fprintf(stderr, "\n%s\n", header.c_str());
    ProgressBar bar(nb, cfg_.get_bool("verbose") && s.main);
    torch::Tensor tloss = torch::zeros({3}, torch::kDouble);
    int64_t seen_batches = 0;
    int64_t next_index = 0;  // batch_source_: the index of the next batch to ask for
    auto next_batch = [&]() -> std::optional<Batch> {
      if (!batch_source_) return s.train_loader->next();
      Batch b;
      if (!batch_source_(epoch, next_index, b)) return std::nullopt;
      b.index = next_index++;
      return b;
    };
    while (auto batch = next_batch()) {
      const int64_t i = batch->index;
      const int64_t ni = i + nb * epoch;
      const int accumulate =
          apply_schedule(s.schedule, *s.optimizer, ni, warmup, epoch, run_accumulate);
      torch::Tensor images = batch->images.to(s.device, /*non_blocking=*/true);
      if (multi_scale > 0)
        images = resize_batch(
            images, multi_scale_size(s.imgsz, multi_scale, stride, scale_seed, ni), stride);
      LossOutput loss;
      {
        AutocastScope scope(s.amp);
        auto head = s.model->forward_train(images);
        auto [anchors, strides] = det.anchors_for(head.one2many.feats);
        loss = s.e2e_loss ? (*s.e2e_loss)(head, anchors, strides, batch->targets)
                          : (*s.loss)(head.one2many, anchors, strides, batch->targets);
      }
      if (!std::isfinite(loss.total.item<double>())) {
        spdlog::warn("non-finite loss at epoch {} batch {}; skipping this batch", epoch + 1, i);
        s.optimizer->zero_grad();
        continue;
      }
      // Under DDP the gradients are averaged over the ranks; scaling each rank's loss by the
      // world size keeps the step equal to one process on the whole global batch (Ultralytics).
      s.scaler->scale(world > 1 ? loss.total * static_cast<double>(world) : loss.total).backward();
      const bool step_now = ni - s.ts.last_opt_step >= accumulate;
      if (on_schedule_ && s.main) {
        BatchSchedule record;
        record.iteration = ni;
        record.epoch = epoch;
        record.accumulate = accumulate;
        record.stepped = step_now;
        for (const auto& g : s.optimizer->groups()) {
          record.groups.push_back(g.name);
          record.lr.push_back(g.lr);
          record.momentum.push_back(g.momentum);
          record.weight_decay.push_back(g.weight_decay);
          record.sizes.push_back(g.params.size());
        }
        on_schedule_(record);
      }
      if (step_now) {
        std::vector<torch::Tensor> params = s.model->parameters();
        if (s.pg) s.pg->average_gradients(params);
        const bool finite = s.scaler->unscale(params);
        if (finite) {
          torch::nn::utils::clip_grad_norm_(params, kMaxGradNorm);
          s.optimizer->step();
        }
        s.scaler->update(finite);
        s.optimizer->zero_grad();
        s.ema->update(*s.model);
        s.ts.last_opt_step = ni;
        if (on_step_) on_step_(ni, *s.model, s.ema->model());
      }
      tloss = (tloss * static_cast<double>(seen_batches) + loss.items.to(torch::kDouble).cpu()) /
              static_cast<double>(seen_batches + 1);
      ++seen_batches;
      s.ts.iterations = ni + 1;
      bar.update(i + 1,
                 fmt::format("{:>11}{:>11}{:>11.4g}{:>11.4g}{:>11.4g}{:>11}{:>11}",
                             fmt::format("{}/{}", epoch + 1, s.epochs), memory_text(s.device),
                             tloss[0].item<double>(), tloss[1].item<double>(),
                             tloss[2].item<double>(), batch->targets.size(0), images.size(3)));
      if (plots && epoch == 0 && i < kTrainBatchPlots)
        save_plot(s.save_dir / fmt::format("train_batch{}.jpg", i), plot_batch(*batch, s.names));
      if (on_batch_) on_batch_(ni);
      const bool stop_now = s.pg ? s.pg->any(stop_requested_) : stop_requested_.load();
      if (stop_now) {
        // Save mid-epoch: resume continues with the next batch of this epoch.
        bar.finish("  (interrupted)");
        s.ts.epoch = epoch - 1;
        s.ts.batch_in_epoch = i + 1;
        if (s.main) save(s.last, true);
        if (s.main)
          spdlog::warn(
              "Training interrupted; saved {} (resume=True continues from batch {} of "
              "epoch {})",
              s.last.string(), i + 2, epoch + 1);
        interrupted = true;
        break;
      }
    }
    if (interrupted) break;
    bar.finish();
    if (s.e2e_loss) s.e2e_loss->update();
    if (epoch + 1 < s.epochs) start_loading(epoch + 1);

    // ---- validation, results, checkpoints (rank 0), then every rank's decision ----
    const bool final_epoch = epoch + 1 == s.epochs;
    bool stop_interrupt = stop_requested_, stop_patience = false, stop_time = false;
    if (s.main) {
      const auto t_val = Clock::now();
      std::optional<ValidationResult> val;
      if (do_val || final_epoch) {
        val = validate(s.ema->model(), false);
        std::fputs(metrics_table_rows(val->metrics, s.names, false).c_str(), stderr);
      }
      const double fitness = val ? val->fitness() : -tloss.sum().item<double>();
      ResultsRow row;
      row.epoch = epoch + 1;
      row.time = std::chrono::duration<double>(Clock::now() - t_start).count();
      for (int k = 0; k < 3; ++k) row.train_loss[k] = tloss[k].item<double>();
      if (val) {
        row.precision = val->metrics.mp, row.recall = val->metrics.mr;
        row.map50 = val->metrics.map50, row.map50_95 = val->metrics.map50_95;
        if (val->loss) row.val_loss = *val->loss;
      }
      for (const auto& g : s.optimizer->groups()) row.lr.push_back(g.lr);
      s.results.append(row);
      s.results.write_csv(s.save_dir / "results.csv");
      if (plots) s.results.plot(s.save_dir / "results.png");

      s.ts.epoch = epoch;
      s.ts.batch_in_epoch = 0;
      const bool improved = !s.ts.best_fitness || fitness >= *s.ts.best_fitness;
      if (improved) {
        s.ts.best_fitness = fitness;
        s.ts.best_epoch = epoch;
        s.ts.patience_counter = 0;
      } else {
        ++s.ts.patience_counter;
      }
      stop_patience = patience > 0 && s.ts.patience_counter >= patience && !final_epoch;
      stop_time =
          time_limit_h > 0 &&
          std::chrono::duration<double>(Clock::now() - t_start).count() > time_limit_h * 3600;
      const auto t_save = Clock::now();
      // save=False (Ultralytics' meaning): checkpoints only once the run ends, which is also
      // an early stop (patience, time limit, a stop request), so that the run keeps its weights.
      if (save_every_epoch || final_epoch || stop_patience || stop_time || stop_interrupt) {
        save(s.last, true);
        if (improved) copy_file_atomically(s.last, s.best);
      }
      spent.train += std::chrono::duration<double>(t_val - t_epoch).count();
      spent.validate += std::chrono::duration<double>(t_save - t_val).count();
      spent.save += std::chrono::duration<double>(Clock::now() - t_save).count();
      if (save_every_epoch && save_period > 0 && (epoch + 1) % save_period == 0)
        copy_file_atomically(s.last, s.save_dir / "weights" / fmt::format("epoch{}.pt", epoch + 1));
    }
    if (s.pg) {  // rank 0 decided; the others wait here while it validates and saves
      stop_interrupt = s.pg->any(stop_interrupt);
      stop_patience = s.pg->any(stop_patience);
      stop_time = s.pg->any(stop_time);
    }
    out.epochs_completed = epoch + 1;
    if (stop_interrupt) {
      interrupted = true;
      if (s.main)
        spdlog::warn("Training interrupted after epoch {}; resume=True continues", epoch + 1);
      break;
    }
    if (stop_patience) {
      if (s.main)
        spdlog::info(
            "Stopping training early as no improvement observed in last {} epochs. Best "
            "results observed at epoch {}, best model saved as best.pt.",
            patience, s.ts.best_epoch + 1);
      out.stopped_early = true;
      break;
    }
    if (stop_time) {
      if (s.main) spdlog::info("Stopping: time={} hours reached", time_limit_h);
      break;
    }
  }
  out.interrupted = interrupted;
  out.seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
  out.best_fitness = s.ts.best_fitness.value_or(0);
  if (interrupted || !s.main) return out;

  // ---- final: strip optimiser state, validate best.pt with plots ----
  // Where the time went: on small sets per-epoch validation and checkpoints are a visible share
  // (val=False skips the per-epoch validation), and a slow run should say which part was slow.
  spdlog::info(
      "{} epochs completed in {:.3f} hours (training {:.0f} s, validation {:.0f} s, checkpoints "
      "{:.0f} s).",
      out.epochs_completed, out.seconds / 3600, spent.train, spent.validate, spent.save);
  auto final_state = s.ts;
  save(s.last, false);
  if (fs::exists(s.best)) {
    auto best_model = load_eager_model(s.best.string());
    best_model->to(s.device);
    // Re-save best.pt without the optimiser (its traced model and weights are unchanged).
    TrainCheckpoint ckpt;
    ckpt.state = final_state;
    ckpt.state.finished = true;
    ckpt.state.date = utc_now();
    ckpt.args_yaml = cfg_.to_yaml();
    save_training_checkpoint(s.best, *best_model, exporter, ckpt);
    spdlog::info("Validating {}...", s.best.string());
    ValidationResult final_val = validate(*best_model, true);
    std::fputs(metrics_table_rows(final_val.metrics, s.names, true).c_str(), stdout);
    std::fprintf(stdout, "%s\n", final_val.speed_line().c_str());
    out.map50 = final_val.metrics.map50;
    out.map50_95 = final_val.metrics.map50_95;
  }
  std::fprintf(stdout, "Results saved to %s\n", s.save_dir.string().c_str());
  return out;
}

fs::path resolve_resume_checkpoint(const Config& cfg) {
  if (cfg.type_of("resume") == ValueType::kString) {
    fs::path p = cfg.get_string("resume");
    if (!fs::exists(p))
      throw ConfigError(
          fmt::format("resume={}: no such file; give weights/last.pt of the run to "
                      "continue",
                      p.string()));
    return p;
  }
  if (!cfg.is_null("model")) {
    fs::path m = cfg.get_string("model");
    if (m.filename() == "last.pt" && fs::exists(m)) return m;
  }
  const fs::path root =
      cfg.is_null("project") ? fs::path("runs") : fs::path(cfg.get_string("project"));
  fs::path latest;
  fs::file_time_type latest_time{};
  std::error_code ec;
  if (fs::exists(root)) {
    for (auto it = fs::recursive_directory_iterator(root, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->path().filename() != "last.pt") continue;
      auto t = fs::last_write_time(it->path(), ec);
      if (!ec && (latest.empty() || t > latest_time)) latest = it->path(), latest_time = t;
    }
  }
  if (latest.empty())
    throw ConfigError(
        fmt::format("resume=True found no runs/**/weights/last.pt under {}; give "
                    "resume=path/to/last.pt",
                    root.string()));
  return latest;
}

}  // namespace yolo
