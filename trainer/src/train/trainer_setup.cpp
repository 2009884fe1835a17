// Trainer construction, step by step as Ultralytics' BaseTrainer sets up (_setup_train): the
// settings, device, dataset, model, run folder, loaders, optimiser, loss and EMA, AMP, resume.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "train/amp_probe.h"
#include "train/channels_last.h"
#include "train/trainer_state.h"
#include "yolo/core/atomic_file.h"
#include "yolo/core/cpu_features.h"
#include "yolo/core/run_dir.h"
#include "yolo/core/strings.h"
#include "yolo/trainer/data/dataset_download.h"
#include "yolo/trainer/data/subset_checks.h"
#include "yolo/trainer/settings/model_source.h"
#include "yolo/trainer/train/amp_check.h"
#include "yolo/trainer/train/resume.h"

namespace yolo {
namespace fs = std::filesystem;

Trainer::Trainer(Config config, DistributedEnv dist)
    : cfg_(std::move(config)), dist_(std::move(dist)), s_(std::make_unique<State>()) {
  State& s = *s_;
  s.main = dist_.is_main();
  s.world = dist_.active() ? dist_.world_size : 1;
  const std::optional<ResumePoint> resume = prepare_resume(cfg_);  // may replace the settings
  s.resuming = resume.has_value();
  s.opt = TrainOptions::from_config(cfg_);
  setup_device();
  setup_dataset();
  setup_model();
  setup_run_dir(resume ? &*resume : nullptr);
  setup_loaders();
  setup_optimizer();
  setup_loss_and_ema();
  setup_amp();
  if (resume) restore(*resume);
  s.ts.optimizer = optimizer_name(s.optimizer->kind());
  s.ts.amp = s.amp;
  share_initial_weights();
}

Trainer::~Trainer() = default;

void Trainer::setup_device() {
  State& s = *s_;
  s.selected = select_device(s.opt.device);
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
    return;
  }
  if (s.selected.world_size() > 1)
    throw ConfigError(fmt::format(
        "device={} lists {} GPUs: start multi-GPU training with `yolo-trainer train` (it starts "
        "one worker per GPU) or torchrun-style RANK/WORLD_SIZE variables",
        s.opt.device, s.selected.world_size()));
  s.device = c10::Device(s.selected.torch_string());
}

void Trainer::setup_dataset() {
  State& s = *s_;
  s.data = load_dataset_config(s.opt.data, s.opt.datasets_dir);
  ensure_dataset(s.data);
  s.nc = s.data.nc;
  s.names = s.data.names;
  if (s.opt.single_cls) {
    s.nc = 1;
    s.names = {{0, "item"}};
  }
}

namespace {

// Ultralytics keeps BatchNorm layers of frozen modules in eval mode while training.
void set_frozen_bn_eval(DetectionModelImpl& model, const std::vector<std::string>& prefixes) {
  for (const auto& m : model.named_modules()) {
    if (!dynamic_cast<torch::nn::BatchNorm2dImpl*>(m.value().get())) continue;
    if (is_frozen(m.key() + ".", prefixes) && m.key().find(".dfl") == std::string::npos)
      m.value()->eval();
  }
}

}  // namespace

void set_training_mode(DetectionModelImpl& model, const std::vector<std::string>& frozen) {
  model.train();
  set_frozen_bn_eval(model, frozen);
}

void Trainer::setup_model() {
  State& s = *s_;
  TrainOptions& o = s.opt;
  // Seeds: the same seed gives the same initial weights and batches (init_seeds).
  torch::manual_seed(o.seed + 1);
  // deterministic: reproducible convolution algorithms (cuDNN / MIOpen) rather than
  // torch.use_deterministic_algorithms, whose warn-only mode prints on every scatter_add of the
  // assigner on GPUs. On the CPU every kernel used here is deterministic already.
  at::globalContext().setDeterministicCuDNN(o.deterministic);
  at::globalContext().setBenchmarkCuDNN(!o.deterministic);

  // The loader decodes every image as 3-channel BGR; a grey or 4-channel set would be trained
  // as something it is not.
  if (s.data.channels != 3 && !s.resuming)
    throw ConfigError(fmt::format(
        "{}: channels: {}: training on {}-channel images is not supported yet (the loader reads "
        "3-channel colour images); remove `channels:` to train on the images as RGB",
        o.data, s.data.channels, s.data.channels));
  s.model = model_to_train(cfg_, s.nc, s.names, s.resuming);
  if (s.model->input_channels() != 3)
    throw ConfigError(fmt::format(
        "{} takes {}-channel images; training on other than 3-channel images is not supported "
        "yet",
        o.model, s.model->input_channels()));
  choose_inference_head(*s.model, cfg_);
  s.stride = static_cast<int>(s.model->max_stride());
  if (o.imgsz % s.stride != 0) {
    const int rounded = (o.imgsz + s.stride - 1) / s.stride * s.stride;
    spdlog::warn("imgsz={} is not a multiple of the model stride {}; using imgsz={}", o.imgsz,
                 s.stride, rounded);
    o.imgsz = rounded;
  }
  if (o.batch % s.world != 0)
    throw ConfigError(
        fmt::format("batch={} must be a multiple of the {} DDP processes (each "
                    "takes batch / {} images)",
                    o.batch, s.world, s.world));
  if (o.rect && s.world > 1)
    throw ConfigError(
        "rect=True cannot be combined with DDP here: the batches sorted by shape are not "
        "sharded across processes; train on one device or leave rect off");

  for (auto& p : s.model->named_parameters()) {
    if (is_frozen(p.key(), o.frozen)) {
      p.value().set_requires_grad(false);
    } else if (!p.value().requires_grad()) {
      p.value().set_requires_grad(true);
    }
  }
  if (o.frozen.size() > 1)
    spdlog::info("Freezing layers: {}", fmt::join(o.frozen.begin() + 1, o.frozen.end(), " "));
  s.model->to(s.device);
  // Measured on CPUs only (oneDNN); GPUs keep NCHW until a GPU run measures NHWC there.
  s.channels_last = s.device.is_cpu();
  if (s.channels_last) weights_to_channels_last(*s.model);
}

void Trainer::setup_run_dir(const ResumePoint* resume) {
  State& s = *s_;
  if (resume) {
    s.save_dir = resume->path.parent_path().parent_path();
  } else if (s.main) {
    s.save_dir = make_run_dir(s.opt.project, s.opt.name, "train", s.opt.exist_ok);
  }
  if (!s.main) return;
  fs::create_directories(s.save_dir / "weights");
  s.last = s.save_dir / "weights" / "last.pt";
  s.best = s.save_dir / "weights" / "best.pt";
  write_file_atomically(s.save_dir / "args.yaml", cfg_.to_yaml());
}

namespace {

// The images of one split, labels read (and cached) with `workers` threads.
std::vector<ImageRecord> scan_split(const DatasetConfig& data, const std::string& split,
                                    int workers) {
  auto it = data.splits.find(split);
  if (it == data.splits.end())
    throw DatasetError(fmt::format("{} has no '{}' split", data.yaml_path.string(), split));
  DatasetScan scan = scan_dataset(list_images(it->second), data.nc, workers);
  spdlog::info("{}", scan.summary(split));
  if (scan.images.empty())
    throw DatasetError(
        fmt::format("{}: the '{}' split has no usable images", data.yaml_path.string(), split));
  return scan.images;
}

}  // namespace

void Trainer::setup_loaders() {
  State& s = *s_;
  TrainOptions& o = s.opt;
  if (!s.device.is_cuda() && o.workers > 0) {
    // On the CPU, loader threads compete with LibTorch's compute threads, whose OpenMP barriers
    // spin: a core taken by a loader thread stalls every compute thread at the next barrier, so
    // a batch made beside the step costs about twice its CPU time (8 workers on 2 cores made an
    // epoch 6x slower than 1). Making each batch in the training thread, between steps, costs it
    // once; Ultralytics does the same on the CPU (workers=0).
    spdlog::info(
        "CPU training: batches are made in the training thread instead of {} loader thread{} "
        "(loader threads slow LibTorch's compute threads down)",
        o.workers, o.workers > 1 ? "s" : "");
    o.workers = 0;
  }
  // Scanning labels happens before training starts, so on the CPU it may use every core.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int scan_workers = std::clamp(s.device.is_cuda() ? o.workers : cores, 1, 8);
  s.train_records = scan_split(s.data, "train", scan_workers);
  std::vector<ImageRecord> val_records = scan_split(s.data, o.val_split, scan_workers);
  check_class_filter(o.classes, s.data, s.train_records, "train");
  check_class_filter(o.classes, s.data, val_records, o.val_split, /*required=*/false);
  check_fraction(o.fraction, s.train_records.size(), "train");
  filter_classes(s.train_records, o.classes, o.single_cls);
  filter_classes(val_records, o.classes, o.single_cls);

  LoaderOptions train_opts;
  train_opts.imgsz = o.imgsz;
  train_opts.batch = o.batch / s.world;  // per process; schedules use the global batch
  train_opts.rank = dist_.active() ? dist_.rank : 0;
  train_opts.world = s.world;
  train_opts.workers = o.workers;
  train_opts.seed = o.seed;
  train_opts.stride = s.stride;
  train_opts.fraction = o.fraction;
  train_opts.cache_ram = o.cache == "true" || o.cache == "ram";
  if (o.cache == "disk") {
    std::vector<ImageRecord> all = s.train_records;  // validation caches too, as in Ultralytics
    all.insert(all.end(), val_records.begin(), val_records.end());
    train_opts.cache_disk = disk_cache_fits(all);
  }
  train_opts.pin_memory = s.device.is_cuda();
  if (o.rect) {
    // Ultralytics' rect training: batches of similar aspect ratio in a fixed order, no mosaic.
    train_opts.rect = true;
    train_opts.rect_pad = 0.0;
    train_opts.shuffle = false;
    spdlog::warn(
        "rect=True: training batches are sorted by aspect ratio and not shuffled, and mosaic, "
        "mixup and cutmix are off");
  }
  train_opts.hyp = o.hyp;
  s.train_loader = std::make_unique<DataLoader>(s.train_records, train_opts);
  LoaderOptions val_opts = train_opts;
  val_opts.rank = 0, val_opts.world = 1;  // rank 0 validates alone
  val_opts.augment = false;
  val_opts.shuffle = false;
  val_opts.rect = true;
  val_opts.rect_pad = LoaderOptions{}.rect_pad;  // validation's 0.5, also after rect training
  val_opts.batch = train_opts.batch * 2;
  val_opts.workers = s.device.is_cuda() ? std::min(o.workers * 2, 8) : o.workers;
  val_opts.fraction = 1.0;
  if (s.main) s.val_loader = std::make_unique<DataLoader>(val_records, val_opts);
}

void Trainer::setup_optimizer() {
  State& s = *s_;
  TrainOptions& o = s.opt;
  s.opt.schedule.batch = o.batch;
  // Weight decay scales with the nominal accumulation, before any cap (Ultralytics).
  const int accumulate = nominal_accumulate(o.schedule);
  const double weight_decay = o.weight_decay * o.batch * accumulate / o.schedule.nbs;
  OptimizerKind kind;
  double lr0 = o.lr0, momentum = o.momentum;
  if (o.optimizer == "auto" || o.optimizer == "Auto" || o.optimizer == "AUTO") {
    const int64_t iterations =
        static_cast<int64_t>(std::ceil(static_cast<double>(s.train_loader->size()) /
                                       std::max(o.batch, o.schedule.nbs))) *
        o.epochs;
    AutoChoice choice = auto_optimizer(iterations, s.nc);
    kind = choice.kind, lr0 = choice.lr, momentum = choice.momentum;
    o.schedule.warmup_bias_lr = 0.0;
    o.schedule.momentum = momentum;
    spdlog::info(
        "optimizer: 'optimizer=auto' found, ignoring 'lr0={}' and 'momentum={}' and determining "
        "best 'optimizer', 'lr0' and 'momentum' automatically... ",
        o.lr0, o.momentum);
  } else {
    try {
      kind = parse_optimizer_kind(o.optimizer);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(e.what());
    }
  }
  auto groups = make_param_groups(*s.model, kind, lr0, momentum, weight_decay);
  size_t counts[3] = {0, 0, 0};  // weight (decay), bn weight, bias: Ultralytics' log line
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
  s.optimizer = std::make_unique<Optimizer>(kind, std::move(groups));
}

void Trainer::setup_loss_and_ema() {
  State& s = *s_;
  const auto& det = s.model->detect();
  if (det.end2end)
    s.e2e_loss =
        std::make_unique<EndToEndLoss>(s.nc, det.reg_max, det.stride, s.opt.gains, s.opt.epochs);
  else
    s.loss = std::make_unique<DetectionLoss>(s.nc, det.reg_max, det.stride, s.opt.gains);
  s.results = ResultsLog(det.reg_max);
  s.ema = std::make_unique<ModelEMA>(*s.model);
}

void Trainer::setup_amp() {
  State& s = *s_;
  s.amp = false;
  if (s.opt.amp && s.main) {
    const BackendInfo backend = query_backend();
    std::string gpu_name;
    const int idx = s.selected.primary_index();
    if (idx >= 0 && static_cast<size_t>(idx) < backend.gpus.size())
      gpu_name = backend.gpus[idx].name;
    const cv::Mat probe = s.val_loader->make_sample(0, 0).image;
    AmpTarget target;
    target.device_type = s.device.is_cuda() ? "cuda" : s.device.str();
    target.gpu_name = gpu_name;
    if (cpu_features().native_bf16()) target.cpu_bf16 = cpu_features().describe();
    target.cpu_isa_cap = cpu_features().isa_cap;
    const c10::ScalarType dtype = amp_dtype(target.device_type);
    const AmpDecision d = check_amp(target, [&](bool autocast) {
      return amp_probe_detections(*s.model, probe, s.opt.imgsz, s.device, dtype, autocast);
    });
    s.amp = d.enabled;
    s.amp_dtype = d.dtype;
    if (!d.enabled && s.device.is_cuda())
      spdlog::warn("{}", d.reason);
    else
      spdlog::info("{}", d.reason);
  } else if (s.main) {
    spdlog::info("AMP is off (amp=False): training runs in FP32");
  }
  if (s.pg) {  // rank 0's decision holds for every rank, all on the same kind of device
    s.amp = s.pg->any(s.amp);
    s.amp_dtype = amp_dtype(s.device.is_cuda() ? "cuda" : "cpu");
  }
  // BF16 has FP32's exponent range: only FP16 needs its loss scaled.
  s.scaler = std::make_unique<GradScaler>(s.amp && s.amp_dtype == c10::ScalarType::Half);
}

void Trainer::restore(const ResumePoint& resume) {
  State& s = *s_;
  const TrainCheckpoint& ckpt = resume.checkpoint;
  const std::string path = resume.path.string();
  unpickle_state_into(ckpt.model_weights, *s.model, path);
  auto ema_model = load_eager_model(path);
  ema_model->detect().use_one2one = s.model->detect().use_one2one;
  s.ema = std::make_unique<ModelEMA>(*ema_model, 0.9999, 2000, ckpt.state.ema_updates);
  s.ema->model().to(s.device);
  if (s.channels_last) weights_to_channels_last(s.ema->model());
  if (ckpt.state.optimizer != optimizer_name(s.optimizer->kind()))
    throw CheckpointError(fmt::format("{} was trained with {} but this run builds {}", path,
                                      ckpt.state.optimizer, optimizer_name(s.optimizer->kind())));
  try {
    s.optimizer->load_state(ckpt.optimizer);
  } catch (const std::runtime_error& e) {
    throw CheckpointError(fmt::format("{}: {}", path, e.what()));
  }
  s.scaler->restore(ckpt.state.scaler_scale, ckpt.state.scaler_tracker);
  s.ts = ckpt.state;
  s.start_epoch = ckpt.state.epoch + 1;
  s.start_batch = ckpt.state.batch_in_epoch;
  if (s.e2e_loss) s.e2e_loss->set_updates(s.start_epoch);
  s.results.load(s.save_dir / "results.csv", s.start_epoch);
}

// Every rank starts from rank 0's weights (seeds already agree; this makes it certain).
void Trainer::share_initial_weights() {
  State& s = *s_;
  if (!s.pg) return;
  std::vector<torch::Tensor> state;
  for (auto& p : s.model->parameters()) state.push_back(p.data());
  for (auto& b : s.model->buffers()) state.push_back(b);
  for (auto& p : s.ema->model().parameters()) state.push_back(p.data());
  for (auto& b : s.ema->model().buffers()) state.push_back(b);
  s.pg->broadcast(state, 0);
}

void Trainer::initialise_model(const std::function<void(DetectionModelImpl&)>& fill) {
  State& s = *s_;
  if (s.start_epoch > 0 || s.start_batch > 0)
    throw ConfigError("initialise_model: not for a resumed run");
  fill(*s.model);
  s.ema = std::make_unique<ModelEMA>(*s.model);
}

}  // namespace yolo
