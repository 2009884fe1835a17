#include "yolo/models/ultralytics_checkpoint.h"

#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "yolo/core/zip_integrity.h"
#include "yolo/models/nn/conv.h"
#include "yolo/models/pickle_data.h"
#include "yolo/models/shape_tracer.h"
#include "yolo/models/weight_transfer.h"

namespace yolo {
namespace fs = std::filesystem;
using pickle::Value;
using Kind = pickle::Value::Kind;

namespace {

// Ultralytics nests modules 5-6 deep, has about 1 500 of them (yolo26x) and a YAML of a few
// hundred values. A hostile file can make a small tree look huge by sharing children through
// the pickle's memo (each level twice: 2^60 visits), so the walks count what they visit.
constexpr int kMaxModuleDepth = 64;
constexpr int kMaxModules = 100000;
constexpr int kMaxYamlNodes = 100000;
constexpr int64_t kMaxImgsz = 8192;
constexpr size_t kMaxPickleBytes = size_t(16) << 20;  // Ultralytics' data.pkl: about 200 KB

// Ultralytics' model classes for tasks other than detection, and the task each one is.
std::string task_of_class(const std::string& cls) {
  const std::string name = cls.substr(cls.rfind('.') + 1);
  if (name == "SegmentationModel" || name == "YOLOESegModel") return "segment";
  if (name == "PoseModel") return "pose";
  if (name == "OBBModel") return "obb";
  if (name == "ClassificationModel") return "classify";
  if (name == "RTDETRDetectionModel") return "RT-DETR detection";
  if (name == "WorldModel" || name == "YOLOEModel") return "open-vocabulary detection";
  if (name == "DetectionModel") return "detect";
  return "";
}

// data/<key> records become tensors once each: several tensors may view one storage.
class StorageReader {
 public:
  StorageReader(caffe2::serialize::PyTorchStreamReader& zip, std::string path)
      : zip_(zip), path_(std::move(path)) {}

  torch::Tensor tensor(const pickle::TensorRef& ref) {
    torch::Tensor storage = load(ref.storage);
    // The reader checked that no view holds more elements than its storage; this bounds what
    // all views together may copy out (a file may view one storage many times).
    materialised_ += std::max<int64_t>(1, c10::multiply_integers(ref.size));
    if (materialised_ > 4 * loaded_ + (int64_t(1) << 20))
      throw CheckpointError(fmt::format(
          "'{}' views its tensor data many times over; not a checkpoint of weights", path_));
    return storage.as_strided(ref.size, ref.stride, ref.offset).to(torch::kFloat32).contiguous();
  }

 private:
  torch::Tensor load(const pickle::StorageRef& s) {
    auto it = cache_.find(s.key);
    if (it != cache_.end()) {
      // One record, one dtype and size: a second view claiming others must not skip the checks.
      if (it->second.numel() != s.numel || it->second.scalar_type() != dtype_of(s.dtype))
        throw CheckpointError(fmt::format(
            "'{}': tensor record data/{} is given two types or sizes; the file is damaged", path_,
            s.key));
      return it->second;
    }
    const std::string record = "data/" + s.key;
    if (!zip_.hasRecord(record)) {
      throw CheckpointError(fmt::format(
          "'{}' lacks the tensor record {} that its data.pkl refers to (an incomplete copy); copy "
          "the file again",
          path_, record));
    }
    // Sizes compared before anything is read (the reader bounds numel by 2^40: no overflow).
    const int64_t expected = s.numel * *pickle::storage_element_size(s.dtype);
    const size_t declared = zip_.getRecordSize(record);
    if (static_cast<int64_t>(declared) != expected) {
      throw CheckpointError(fmt::format(
          "'{}': tensor record {} holds {} bytes where its {} {} values need {}; the file is "
          "damaged",
          path_, record, declared, s.numel, s.dtype, expected));
    }
    auto [data, size] = zip_.getRecord(record);
    if (size != declared)
      throw CheckpointError(fmt::format("'{}': tensor record {} is damaged", path_, record));
    torch::Tensor t = torch::empty({s.numel}, torch::TensorOptions().dtype(dtype_of(s.dtype)));
    loaded_ += s.numel;
    if (size) std::memcpy(t.data_ptr(), data.get(), size);
    cache_.emplace(s.key, t);
    return t;
  }

  static torch::ScalarType dtype_of(const std::string& dtype) {
    static const std::map<std::string, torch::ScalarType> dtypes = {
        {"Float", torch::kFloat32},     {"Double", torch::kFloat64}, {"Half", torch::kFloat16},
        {"BFloat16", torch::kBFloat16}, {"Long", torch::kInt64},     {"Int", torch::kInt32},
        {"Short", torch::kInt16},       {"Char", torch::kInt8},      {"Byte", torch::kUInt8},
        {"Bool", torch::kBool}};
    return dtypes.at(dtype);  // the reader accepts only these names
  }

  caffe2::serialize::PyTorchStreamReader& zip_;
  std::string path_;
  std::map<std::string, torch::Tensor> cache_;
  int64_t loaded_ = 0, materialised_ = 0;  // elements read from records, and copied out of them
};

// Walks a pickled nn.Module record: parameters and persistent buffers by state-dict name, and
// what our builder cannot see in the YAML (each BatchNorm's eps, each Conv's activation).
class ModuleWalker {
 public:
  ModuleWalker(UltralyticsCheckpoint& out, StorageReader& storages)
      : out_(out), storages_(storages) {}

  void walk(const Value* module, const std::string& prefix, int depth) {
    if (++visited_ > kMaxModules)
      fail(
          fmt::format("it holds more than {} modules (a small tree repeated through shared "
                      "children?)",
                      kMaxModules));
    if (depth > kMaxModuleDepth)
      fail(fmt::format("its modules nest deeper than {} levels at '{}'", kMaxModuleDepth, prefix));
    if (!module->is(Kind::kObject) || !module->state || !module->state->is(Kind::kDict))
      fail(fmt::format("'{}' is {}, not a torch module", prefix, module->describe()));
    const Value& st = *module->state;
    const std::string name = prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1);
    note_layer_settings(module->text, st, name);

    std::set<std::string> non_persistent;
    if (const Value* np = st.find("_non_persistent_buffers_set"))
      for (const Value* v : np->items)
        if (v->is(Kind::kString)) non_persistent.insert(v->text);
    for (const char* group : {"_parameters", "_buffers"}) {
      const Value* tensors = st.find(group);
      if (!tensors) continue;
      for (const auto& [k, v] : tensors->entries) {
        if (!k->is(Kind::kString) || v->is(Kind::kNone) || non_persistent.count(k->text)) continue;
        if (!v->is(Kind::kTensor))
          fail(fmt::format("'{}{}' is {}, not a tensor", prefix, k->text, v->describe()));
        if (v->tensor->storage.dtype == "Half") out_.half = true;
        out_.state[prefix + k->text] = storages_.tensor(*v->tensor);
      }
    }
    if (const Value* children = st.find("_modules")) {
      for (const auto& [k, v] : children->entries) {
        if (!k->is(Kind::kString) || v->is(Kind::kNone)) continue;
        walk(v, prefix + k->text + ".", depth + 1);
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw CheckpointError(
        fmt::format("'{}' is not a model yolo-edge can read: {}", out_.path, what));
  }

  void note_layer_settings(const std::string& cls, const Value& st, const std::string& name) {
    if (cls == "torch.nn.modules.batchnorm.BatchNorm2d") {
      if (const Value* eps = st.find("eps"); eps && eps->is(Kind::kFloat))
        out_.batchnorm_eps[name] = eps->number;
      return;
    }
    // Ultralytics' Conv; older releases pickled it as ultralytics.nn.modules.Conv.
    const bool conv = cls.rfind("ultralytics.", 0) == 0 && cls.size() > 5 &&
                      cls.compare(cls.size() - 5, 5, ".Conv") == 0;
    if (!conv) return;
    const Value* children = st.find("_modules");
    const Value* act = children ? children->find("act") : nullptr;
    if (!act) return;
    const std::string& act_cls = act->text;
    if (act_cls == "torch.nn.modules.activation.SiLU") {
      out_.conv_silu[name] = true;
    } else if (act_cls == "torch.nn.modules.linear.Identity") {
      out_.conv_silu[name] = false;
    } else {
      fail(fmt::format("'{}' uses the activation {}; yolo-edge builds SiLU (the default) only",
                       name, act_cls.substr(act_cls.rfind('.') + 1)));
    }
  }

  UltralyticsCheckpoint& out_;
  StorageReader& storages_;
  int visited_ = 0;
};

// The model's YAML dict (DetectionModel.yaml) as YAML text for our builder.
YAML::Node to_yaml(const Value* v, int depth, int& nodes) {
  if (depth > kMaxModuleDepth) throw CheckpointError("the model YAML nests too deeply");
  if (++nodes > kMaxYamlNodes)
    throw CheckpointError(fmt::format("the model YAML has more than {} values", kMaxYamlNodes));
  switch (v->kind) {
    case Kind::kNone:
      return YAML::Node(YAML::NodeType::Null);
    case Kind::kBool:
      return YAML::Node(v->boolean);
    case Kind::kInt:
      return YAML::Node(v->integer);
    case Kind::kFloat:
      return YAML::Node(fmt::format("{}", v->number));
    case Kind::kString:
      return YAML::Node(v->text);
    case Kind::kList:
    case Kind::kTuple: {
      YAML::Node seq(YAML::NodeType::Sequence);
      for (const Value* item : v->items) seq.push_back(to_yaml(item, depth + 1, nodes));
      return seq;
    }
    case Kind::kDict: {
      YAML::Node map(YAML::NodeType::Map);
      for (const auto& [k, item] : v->entries) {
        if (!k->is(Kind::kString)) throw CheckpointError("the model YAML has a non-text key");
        map[k->text] = to_yaml(item, depth + 1, nodes);
      }
      return map;
    }
    default:
      throw CheckpointError(fmt::format("the model YAML holds {}", v->describe()));
  }
}

// train_args' imgsz (an int or [h, w]); Ultralytics' default 640 when absent or unusable.
std::pair<int64_t, int64_t> imgsz_of(const Value* args, const std::string& path) {
  const Value* imgsz = args ? args->find("imgsz") : nullptr;
  if (!imgsz) return {640, 640};
  auto usable = [](const Value* v) {
    return v->is(Kind::kInt) && v->integer >= 32 && v->integer <= kMaxImgsz;
  };
  if (usable(imgsz)) return {imgsz->integer, imgsz->integer};
  if ((imgsz->is(Kind::kList) || imgsz->is(Kind::kTuple)) && !imgsz->items.empty() &&
      usable(imgsz->items.front()) && usable(imgsz->items.back()))
    return {imgsz->items.front()->integer, imgsz->items.back()->integer};
  spdlog::warn("'{}': its training imgsz ({}) is not a size from 32 to {}; using 640", path,
               imgsz->describe(), kMaxImgsz);
  return {640, 640};
}

std::string text_of(const Value* v) {
  return v && v->is(Kind::kString) ? v->text : "";
}

// The model record's dict: Ultralytics keeps names, yaml, stride and args as attributes.
void read_model_attributes(const Value& model, UltralyticsCheckpoint& out, StorageReader& st) {
  const Value& attrs = *model.state;
  const Value* yaml = attrs.find("yaml");
  if (!yaml || !yaml->is(Kind::kDict))
    throw CheckpointError(fmt::format(
        "'{}': its model carries no architecture YAML (a model built in Python code, not from a "
        "YAML); yolo-edge builds models from Ultralytics' YAMLs only",
        out.path));
  YAML::Node node;
  try {
    int nodes = 0;
    node = to_yaml(yaml, 0, nodes);
  } catch (const CheckpointError& e) {
    throw CheckpointError(fmt::format("'{}': {}", out.path, e.what()));
  }
  const std::string yaml_file = text_of(yaml->find("yaml_file"));
  std::string scale = text_of(yaml->find("scale"));
  std::string name = fs::path(yaml_file.empty() ? out.path : yaml_file).stem().string();
  if (scale.empty() && yaml->find("scales")) scale = split_model_scale(yaml_file).second;
  YAML::Emitter emitter;
  emitter << node;
  try {
    out.config = parse_model_config(emitter.c_str(), name, scale);
  } catch (const ModelError& e) {
    throw CheckpointError(fmt::format("'{}': its architecture ({}) is not one yolo-edge builds: {}",
                                      out.path, name, e.what()));
  }
  out.config.source = out.path;

  if (const Value* names = attrs.find("names")) {
    if (names->is(Kind::kDict)) {
      for (const auto& [k, v] : names->entries)
        if (k->is(Kind::kInt) && v->is(Kind::kString))
          out.names[static_cast<int>(k->integer)] = v->text;
    } else if (names->is(Kind::kList)) {
      for (size_t i = 0; i < names->items.size(); ++i)
        out.names[static_cast<int>(i)] = text_of(names->items[i]);
    }
  }
  if (const Value* stride = attrs.find("stride"); stride && stride->is(Kind::kTensor)) {
    torch::Tensor t = st.tensor(*stride->tensor).to(torch::kFloat64).flatten();
    out.stride.assign(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
  }
}

}  // namespace

UltralyticsCheckpoint read_ultralytics_checkpoint(const std::string& path) {
  return read_ultralytics_checkpoint(open_model_file(path));
}

UltralyticsCheckpoint read_ultralytics_checkpoint(const ModelFile& file) {
  const std::string& path = file.path;
  if (file.kind != ModelFileKind::kTorchSave)
    throw CheckpointError(fmt::format("'{}' is TorchScript, not a torch.save checkpoint", path));
  UltralyticsCheckpoint out;
  out.path = path;
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> zip;
  std::string pickled;
  try {
    zip = std::make_unique<caffe2::serialize::PyTorchStreamReader>(file.reader());
    if (zip->hasRecord("byteorder")) {
      auto [order, n] = zip->getRecord("byteorder");
      if (std::string(static_cast<const char*>(order.get()), n) != "little")
        throw CheckpointError(fmt::format(
            "'{}' was saved on a big-endian machine; load and save it again on a little-endian one",
            path));
    }
    if (zip->getRecordSize("data.pkl") > kMaxPickleBytes)
      throw CheckpointError(fmt::format(
          "'{}': its data.pkl is {} bytes, far more than a checkpoint's structure needs (about "
          "200 KB); refused",
          path, zip->getRecordSize("data.pkl")));
    auto [data, size] = zip->getRecord("data.pkl");
    pickled.assign(static_cast<const char*>(data.get()), size);
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    throw CheckpointError(
        fmt::format("'{}' cannot be read: {}", path, what.substr(0, what.find('\n'))));
  }

  pickle::Document doc;
  try {
    doc = pickle::read_pickle_data(pickled, "data.pkl");
  } catch (const pickle::PickleError& e) {
    throw CheckpointError(fmt::format("'{}' is refused: {}", path, e.what()));
  }
  const Value* root = doc.root;
  const Value* model = nullptr;
  for (const char* key : {"ema", "model"}) {
    const Value* m = root->find(key);
    if (m && m->is(Kind::kObject)) {
      model = m;
      out.model_key = key;
      break;
    }
  }
  if (!model) {
    throw CheckpointError(fmt::format(
        "'{}' is a torch.save file without an Ultralytics model (it holds {}; an Ultralytics "
        "checkpoint has its model under 'model' or 'ema'); a bare state dict carries no "
        "architecture: train from a model YAML instead",
        path, root->describe()));
  }
  const std::string task = task_of_class(model->text);
  if (task != "detect") {
    throw CheckpointError(fmt::format(
        "'{}' holds an Ultralytics {} model ({}); yolo-edge trains and runs detection models "
        "only (YOLOv8, YOLO11, YOLO26 DetectionModel)",
        path, task.empty() ? "non-YOLO" : task, model->text.substr(model->text.rfind('.') + 1)));
  }
  if (!model->state || !model->state->is(Kind::kDict))
    throw CheckpointError(fmt::format("'{}': its model record has no attributes", path));

  StorageReader storages(*zip, path);
  try {
    read_model_attributes(*model, out, storages);
    ModuleWalker(out, storages).walk(model, "", 0);
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    throw CheckpointError(
        fmt::format("'{}': a tensor cannot be read: {}", path, what.substr(0, what.find('\n'))));
  }
  const Value* train_args = root->find("train_args");
  out.imgsz = imgsz_of(train_args ? train_args : model->state->find("args"), path);
  out.version = text_of(root->find("version"));
  out.date = text_of(root->find("date"));
  return out;
}

namespace {

// What the YAML does not say: Ultralytics >= 8.4 builds SPPF's first conv without SiLU, the
// released v8/11 weights have it; BatchNorm eps is Ultralytics' 1e-3 unless the file differs.
void apply_layer_settings(DetectionModelImpl& model, const UltralyticsCheckpoint& ckpt) {
  for (const auto& item : model.named_modules()) {
    if (auto* conv = dynamic_cast<nn::ConvImpl*>(item.value().get())) {
      auto it = ckpt.conv_silu.find(item.key());
      if (it != ckpt.conv_silu.end()) conv->act = it->second;
    }
    if (auto* bn = dynamic_cast<torch::nn::BatchNorm2dImpl*>(item.value().get())) {
      auto it = ckpt.batchnorm_eps.find(item.key());
      if (it != ckpt.batchnorm_eps.end()) bn->options.eps(it->second);
    }
  }
}

std::string first_names(const std::vector<std::string>& v) {
  return fmt::format("{}{}", fmt::join(v.begin(), v.begin() + std::min<size_t>(4, v.size()), ", "),
                     v.size() > 4 ? fmt::format(" and {} more", v.size() - 4) : "");
}

// Copies the checkpoint's tensors into `model` by name. Every tensor must fit, except those of
// the class head when `other_nc` (fine-tuning on another class count), which are counted in the
// report as skipped.
ImportReport fill_weights(DetectionModelImpl& model, const UltralyticsCheckpoint& ckpt,
                          bool other_nc) {
  ImportReport report;
  std::vector<std::string> missing, unexpected;
  std::set<std::string> used;
  torch::NoGradGuard no_grad;
  auto fill = [&](const std::string& name, torch::Tensor& dst) {
    auto it = ckpt.state.find(name);
    if (it == ckpt.state.end()) {
      missing.push_back(name);
      return;
    }
    used.insert(name);
    if (it->second.sizes() != dst.sizes()) {
      ++report.skipped;
      report.skipped_names.push_back(name);
      return;
    }
    dst.copy_(it->second.to(dst.dtype()));
    ++report.matched;
  };
  for (auto& p : model.named_parameters(true)) fill(p.key(), p.value());
  for (auto& b : model.named_buffers(true)) fill(b.key(), b.value());
  for (const auto& [name, t] : ckpt.state)
    if (!used.count(name)) unexpected.push_back(name);
  if (missing.empty() && unexpected.empty() && (!report.skipped || other_nc)) return report;
  std::vector<std::string> parts;
  if (!missing.empty()) parts.push_back("missing " + first_names(missing));
  if (!unexpected.empty()) parts.push_back("not in the architecture " + first_names(unexpected));
  if (report.skipped && !other_nc)
    parts.push_back("of other shapes " + first_names(report.skipped_names));
  throw CheckpointError(fmt::format(
      "'{}': its weights do not fit the architecture of its own YAML ({}): {}; the file is "
      "incomplete or was edited",
      ckpt.path, model.config().name, fmt::join(parts, "; ")));
}

}  // namespace

std::shared_ptr<DetectionModelImpl> build_ultralytics_model(const UltralyticsCheckpoint& ckpt,
                                                            std::optional<int> nc,
                                                            ImportReport* report_out) {
  ModelConfig cfg = ckpt.config;
  const int file_nc = cfg.nc;
  if (nc) cfg.nc = *nc;
  // A model Ultralytics fine-tuned on another class count keeps its pretrained class width.
  if (cfg.nc == file_nc) cfg.cls_hidden = class_branch_width_override(ckpt.state);
  std::shared_ptr<DetectionModelImpl> model;
  try {
    model = std::make_shared<DetectionModelImpl>(cfg);
  } catch (const ModelError& e) {
    throw CheckpointError(fmt::format("'{}': its architecture ({}) cannot be built: {}", ckpt.path,
                                      cfg.name, e.what()));
  }
  if (cfg.nc == file_nc) model->names = ckpt.names;
  apply_layer_settings(*model, ckpt);
  const std::vector<double>& ours = model->detect().stride;
  if (!ckpt.stride.empty() && ckpt.stride != ours) {
    throw CheckpointError(fmt::format(
        "'{}': its strides [{}] differ from those of its own architecture built here [{}]",
        ckpt.path, fmt::join(ckpt.stride, ", "), fmt::join(ours, ", ")));
  }
  const ImportReport report = fill_weights(*model, ckpt, cfg.nc != file_nc);
  spdlog::info("Transferred {}/{} tensors from '{}' ({}, Ultralytics {}{}){}", report.matched,
               ckpt.state.size(), ckpt.path, ckpt.model_key,
               ckpt.version.empty() ? "?" : ckpt.version, ckpt.half ? ", FP16 weights" : "",
               report.skipped ? fmt::format("; the class head for nc={} starts fresh ({} tensors "
                                            "of the file's nc={} left out)",
                                            cfg.nc, report.skipped, file_nc)
                              : "");
  if (report_out) *report_out = report;
  return model;
}

LoadedModel load_ultralytics_as_torchscript(const ModelFile& file, const c10::Device& device,
                                            const std::vector<int64_t>& imgsz) {
  const std::unique_ptr<ShapeTracer> tracer = ShapeTracer::open(file, device);
  const auto [h, w] = tracer->default_size();
  return tracer->trace(imgsz.empty() ? h : imgsz.front(), imgsz.empty() ? w : imgsz.back());
}

}  // namespace yolo
