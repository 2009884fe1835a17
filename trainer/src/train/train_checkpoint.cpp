#include "yolo/trainer/train/train_checkpoint.h"

#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

namespace yolo {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json state_to_json(const TrainState& s) {
  json j = {{"epoch", s.epoch},
            {"batch_in_epoch", s.batch_in_epoch},
            {"ema_updates", s.ema_updates},
            {"iterations", s.iterations},
            {"last_opt_step", s.last_opt_step},
            {"optimizer", s.optimizer},
            {"scaler_scale", s.scaler_scale},
            {"scaler_tracker", s.scaler_tracker},
            {"amp", s.amp},
            {"patience_counter", s.patience_counter},
            {"best_epoch", s.best_epoch},
            {"finished", s.finished},
            {"date", s.date}};
  j["best_fitness"] = s.best_fitness ? json(*s.best_fitness) : json(nullptr);
  if (!s.epoch_losses.empty()) {
    j["epoch_losses"] = s.epoch_losses;
    j["epoch_loss_batches"] = s.epoch_loss_batches;
  }
  return j;
}

TrainState state_from_json(const json& j) {
  TrainState s;
  s.epoch = j.at("epoch").get<int>();
  s.batch_in_epoch = j.value("batch_in_epoch", int64_t{0});
  s.ema_updates = j.at("ema_updates").get<int64_t>();
  s.iterations = j.value("iterations", int64_t{0});
  s.last_opt_step = j.value("last_opt_step", int64_t{-1});
  s.optimizer = j.at("optimizer").get<std::string>();
  s.scaler_scale = j.value("scaler_scale", 65536.0);
  s.scaler_tracker = j.value("scaler_tracker", 0);
  s.amp = j.value("amp", false);
  s.patience_counter = j.value("patience_counter", 0);
  s.best_epoch = j.value("best_epoch", -1);
  s.finished = j.value("finished", false);
  s.date = j.value("date", "");
  if (j.contains("best_fitness") && !j["best_fitness"].is_null())
    s.best_fitness = j["best_fitness"].get<double>();
  if (j.contains("epoch_losses")) {
    s.epoch_losses = j["epoch_losses"].get<std::vector<double>>();
    s.epoch_loss_batches = j.value("epoch_loss_batches", int64_t{0});
  }
  return s;
}

}  // namespace

TorchScriptExporter make_checkpoint_exporter(ExportOptions options) {
  options.include_weights = true;
  options.device = "cpu";
  options.half = false;
  return TorchScriptExporter(std::move(options));
}

void save_training_checkpoint(const fs::path& path, const DetectionModelImpl& ema,
                              TorchScriptExporter& exporter, const TrainCheckpoint& ckpt) {
  std::map<std::string, std::string> extra{{kTrainStateFile, state_to_json(ckpt.state).dump(2)},
                                           {kArgsFile, ckpt.args_yaml}};
  if (!ckpt.model_weights.empty()) extra[kTrainModelFile] = ckpt.model_weights;
  if (!ckpt.optimizer.empty()) extra[kOptimizerFile] = pickle_tensors(ckpt.optimizer);
  exporter.save(ema, path, extra);
}

TrainCheckpoint load_training_checkpoint(const fs::path& path) {
  const std::string source = path.string();
  check_torchscript_file(source);
  std::map<std::string, std::string> files;
  try {
    caffe2::serialize::PyTorchStreamReader reader(source);
    for (const char* name : {kTrainStateFile, kTrainModelFile, kOptimizerFile, kArgsFile}) {
      const std::string record = std::string("extra/") + name;
      if (!reader.hasRecord(record)) continue;
      auto [data, size] = reader.getRecord(record);
      files[name] = std::string(static_cast<const char*>(data.get()), size);
    }
  } catch (const c10::Error& e) {
    throw CheckpointError(fmt::format("'{}' cannot be read ({}); it is truncated or corrupt",
                                      source, e.what_without_backtrace()));
  }
  if (!files.count(kTrainStateFile))
    throw CheckpointError(fmt::format(
        "'{}' is not a yolo-trainer training checkpoint (no {}); resume needs weights/last.pt of "
        "a run",
        source, kTrainStateFile));
  TrainCheckpoint out;
  try {
    out.state = state_from_json(json::parse(files[kTrainStateFile]));
  } catch (const json::exception& e) {
    throw CheckpointError(
        fmt::format("'{}': {} is corrupt ({})", source, kTrainStateFile, e.what()));
  }
  out.args_yaml = files[kArgsFile];
  out.model_weights = files[kTrainModelFile];
  if (files.count(kOptimizerFile))
    out.optimizer = unpickle_tensors(files[kOptimizerFile], source, "optimiser state");
  return out;
}

}  // namespace yolo
