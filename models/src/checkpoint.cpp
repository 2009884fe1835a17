#include "yolo/models/checkpoint.h"

#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>

#include "yolo/core/atomic_file.h"
#include "yolo/core/strings.h"
#include "yolo/core/text_file.h"
#include "yolo/core/version.h"
#include "yolo/core/zip_integrity.h"
#include "yolo/models/ultralytics_checkpoint.h"

namespace yolo {
namespace fs = std::filesystem;
using nlohmann::json;

// ---- copying and weights ---------------------------------------------------------------------

std::string pickle_tensors(const std::map<std::string, torch::Tensor>& tensors) {
  c10::Dict<std::string, at::Tensor> dict;
  for (const auto& [name, t] : tensors) dict.insert(name, t.detach().cpu());
  std::vector<char> bytes = torch::jit::pickle_save(dict);
  return std::string(bytes.begin(), bytes.end());
}

std::map<std::string, torch::Tensor> unpickle_tensors(const std::string& bytes,
                                                      const std::string& source,
                                                      const std::string& what) {
  c10::IValue value;
  try {
    value = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
  } catch (const c10::Error& e) {
    throw CheckpointError(
        fmt::format("'{}': {} are corrupt ({})", source, what, e.what_without_backtrace()));
  }
  if (!value.isGenericDict())
    throw CheckpointError(fmt::format("'{}': {} are not a dict", source, what));
  std::map<std::string, torch::Tensor> out;
  for (const auto& item : value.toGenericDict()) {
    if (!item.key().isString() || !item.value().isTensor())
      throw CheckpointError(
          fmt::format("'{}': {} hold an entry that is not a named tensor", source, what));
    out[item.key().toStringRef()] = item.value().toTensor();
  }
  return out;
}

std::string pickle_state(const torch::nn::Module& module) {
  std::map<std::string, torch::Tensor> tensors;
  // The standard (contiguous) layout whatever the run trained in (channels-last on CPUs), so a
  // file's tensors read the same in every reader.
  for (const auto& p : module.named_parameters(true)) tensors[p.key()] = p.value().contiguous();
  for (const auto& b : module.named_buffers(true)) tensors[b.key()] = b.value().contiguous();
  return pickle_tensors(tensors);
}

void unpickle_state_into(const std::string& bytes, torch::nn::Module& module,
                         const std::string& source) {
  const auto tensors = unpickle_tensors(bytes, source, "weights");
  torch::NoGradGuard no_grad;
  auto assign = [&](const std::string& name, torch::Tensor& dst) {
    auto it = tensors.find(name);
    if (it == tensors.end()) {
      throw CheckpointError(fmt::format("'{}': weights lack '{}'", source, name));
    }
    const torch::Tensor& src = it->second;
    if (src.sizes() != dst.sizes()) {
      throw CheckpointError(fmt::format("'{}': '{}' has shape [{}] but the model needs [{}]",
                                        source, name, fmt::join(src.sizes().vec(), ", "),
                                        fmt::join(dst.sizes().vec(), ", ")));
    }
    dst.copy_(src);
  };
  for (auto& p : module.named_parameters(true)) assign(p.key(), p.value());
  for (auto& b : module.named_buffers(true)) assign(b.key(), b.value());
}

std::shared_ptr<DetectionModelImpl> clone_model(const DetectionModelImpl& model) {
  auto copy = std::make_shared<DetectionModelImpl>(model.config());
  TORCH_CHECK(!model.is_fused(), "clone_model: clone before fusing");
  nn::copy_state(model, *copy);
  copy->names = model.names;
  copy->detect().max_det = model.detect().max_det;
  copy->detect().agnostic = model.detect().agnostic;
  copy->detect().use_one2one = model.detect().use_one2one;
  auto first = model.parameters().front();
  copy->to(first.device(), first.scalar_type());
  copy->train(model.is_training());
  return copy;
}

// ---- export ---------------------------------------------------------------------------------

namespace {

// "yolo::nn::ConvImpl" -> "__torch__.yolo.Conv"
c10::QualifiedName jit_type_name(const torch::nn::Module& m) {
  std::string n = m.name();
  if (auto p = n.rfind("::"); p != std::string::npos) n = n.substr(p + 2);
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "Impl") == 0) n.resize(n.size() - 4);
  return c10::QualifiedName("__torch__.yolo." + n);
}

// Mirrors the eager module tree as TorchScript modules that hold the very same tensors, so that
// the tracer records parameter uses as attribute reads (model.0.conv.weight ...).
torch::jit::Module mirror(const torch::nn::Module& m,
                          const std::shared_ptr<torch::jit::CompilationUnit>& cu) {
  torch::jit::Module jm(jit_type_name(m), cu, /*shouldMangle=*/true);
  for (const auto& p : m.named_parameters(false)) jm.register_parameter(p.key(), p.value(), false);
  for (const auto& b : m.named_buffers(false)) jm.register_buffer(b.key(), b.value());
  for (const auto& c : m.named_children()) jm.register_module(c.key(), mirror(*c.value(), cu));
  return jm;
}

std::string today() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

}  // namespace

namespace {

// What a cached trace depends on besides the weights: a model that differs in any of these
// is traced again.
std::string trace_signature(const DetectionModelImpl& m) {
  const auto& d = m.detect();
  return fmt::format("{}|{}|{}|{}|{}|{}|{}", m.config().yaml_text, m.config().nc, m.config().scale,
                     d.use_one2one, d.agnostic, m.input_channels(), d.cls_hidden);
}

}  // namespace

struct TorchScriptExporter::Traced {
  std::string signature;
  std::shared_ptr<DetectionModelImpl> fused;  // its tensors are the module's tensors
  torch::jit::Module module;
  int64_t height = 0, width = 0;
};

TorchScriptExporter::TorchScriptExporter(ExportOptions options) : options_(std::move(options)) {
  const c10::Device device(options_.device);
  if (options_.half && !device.is_cuda()) {
    throw CheckpointError(
        "half=True needs a GPU device (device=0); FP16 export on the CPU is not "
        "supported");
  }
  if (options_.batch < 1) throw CheckpointError("export batch must be >= 1");
}

TorchScriptExporter::~TorchScriptExporter() = default;
TorchScriptExporter::TorchScriptExporter(TorchScriptExporter&&) noexcept = default;
TorchScriptExporter& TorchScriptExporter::operator=(TorchScriptExporter&&) noexcept = default;

std::shared_ptr<DetectionModelImpl> TorchScriptExporter::fused_copy(
    const DetectionModelImpl& source) const {
  auto model = clone_model(source);
  model->eval();
  model->fuse();
  model->to(c10::Device(options_.device), options_.half ? torch::kHalf : torch::kFloat);
  // The exported file holds the standard layout whatever the source trained in (channels-last on
  // CPUs); a reader that assumes contiguous tensors then reads it right.
  for (auto& p : model->parameters()) {
    p.set_requires_grad(false);
    p.set_data(p.data().contiguous());
  }
  for (auto& b : model->buffers()) b.set_data(b.data().contiguous());
  return model;
}

void TorchScriptExporter::trace(const DetectionModelImpl& source) {
  const c10::Device device(options_.device);
  const int64_t stride = source.max_stride();
  auto up = [&](int64_t v) { return static_cast<int64_t>(std::ceil(double(v) / stride)) * stride; };
  auto t = std::make_unique<Traced>();
  t->height = up(options_.height), t->width = up(options_.width);
  if (t->height != options_.height || t->width != options_.width) {
    spdlog::warn("export imgsz {}x{} is not a multiple of stride {}; using {}x{}", options_.height,
                 options_.width, stride, t->height, t->width);
  }
  t->signature = trace_signature(source);
  t->fused = fused_copy(source);
  DetectionModelImpl& model = *t->fused;
  int64_t anchors = 0;
  for (double s : model.detect().stride)
    anchors += (t->height / int64_t(s)) * (t->width / int64_t(s));
  model.detect().max_det = std::min(options_.max_det, anchors);

  torch::NoGradGuard no_grad;
  torch::Tensor input = torch::zeros(
      {options_.batch, model.input_channels(), t->height, t->width},
      torch::TensorOptions().device(device).dtype(options_.half ? torch::kHalf : torch::kFloat));
  for (int i = 0; i < 2; ++i) model.forward(input);  // dry runs: anchors cached as constants

  auto cu = std::make_shared<torch::jit::CompilationUnit>();
  t->module = mirror(model, cu);
  auto traced = torch::jit::tracer::trace(
      {input},
      [&](torch::jit::Stack in) -> torch::jit::Stack {
        return {model.forward(in.at(0).toTensor())};
      },
      [](const torch::autograd::Variable&) { return std::string(); },
      /*strict=*/false, /*force_outplace=*/false, &t->module);
  std::shared_ptr<torch::jit::Graph> graph = traced.first->graph;
  torch::jit::EliminateDeadCode(graph);
  auto fn = cu->create_function(c10::QualifiedName(*t->module.type()->name(), "forward"), graph);
  t->module.type()->addMethod(fn);
  traced_ = std::move(t);
}

void TorchScriptExporter::refresh_weights(const DetectionModelImpl& source) {
  // The fused copy has the cached model's structure, so its tensors line up by name; copying in
  // place updates the traced module, which holds the very same tensors.
  auto fresh = fused_copy(source);
  torch::NoGradGuard no_grad;
  auto copy_all = [](auto dst, const auto& src) {
    for (auto& item : dst) {
      const auto* from = src.find(item.key());
      TORCH_CHECK(from, "TorchScriptExporter: the fused model lost '", item.key(), "'");
      item.value().copy_(*from);
    }
  };
  copy_all(traced_->fused->named_parameters(), fresh->named_parameters());
  copy_all(traced_->fused->named_buffers(), fresh->named_buffers());
}

std::string TorchScriptExporter::serialize(const DetectionModelImpl& source,
                                           const std::map<std::string, std::string>& extra_files,
                                           ModelMetadata* metadata) {
  if (!traced_ || traced_->signature != trace_signature(source)) {
    trace(source);
  } else {
    refresh_weights(source);
  }

  ModelMetadata meta;
  const std::string model_name = source.config().name;
  meta.description = options_.description.empty()
                         ? fmt::format("yolo-edge {} detection model", model_name)
                         : options_.description;
  meta.date = today();
  meta.version = kVersion;
  meta.stride = source.max_stride();
  meta.batch = options_.batch;
  meta.imgsz = {traced_->height, traced_->width};
  meta.names = source.names;
  meta.channels = source.input_channels();
  meta.end2end = source.detect().end2end && source.detect().use_one2one;
  meta.args = json{{"batch", options_.batch},
                   {"optimize", false},
                   {"half", options_.half},
                   {"nms", false},
                   {"dynamic", false}};

  torch::jit::ExtraFilesMap files;
  files[kMetadataFile] = meta.to_json().dump();
  const ModelConfig& cfg = source.config();
  json model_json{{"name", cfg.name},
                  {"scale", cfg.scale},
                  {"nc", cfg.nc},
                  {"yaml", cfg.yaml_text},
                  {"source", cfg.source}};
  // Only when it is not the YAML's own rule, so files of models without it stay as they were.
  if (cfg.cls_hidden > 0) model_json["cls_hidden"] = cfg.cls_hidden;
  files[kModelFile] = model_json.dump();
  // The unfused weights travel with training checkpoints (exact restore for fine-tuning).
  if (options_.include_weights) files[kWeightsFile] = pickle_state(source);
  for (const auto& [k, v] : extra_files) files[k] = v;
  // Serialised in memory first: LibTorch's file writer finishes the zip in its destructor, where a
  // full disk terminates the process; the bytes are then written with errors that name the file
  // and the space needed, and the previous file stays until the new one is complete.
  std::ostringstream bytes;
  traced_->module.save(bytes, files);
  if (metadata) *metadata = meta;
  return bytes.str();
}

ModelMetadata TorchScriptExporter::save(const DetectionModelImpl& source, const fs::path& path,
                                        const std::map<std::string, std::string>& extra_files) {
  ModelMetadata meta;
  const std::string bytes = serialize(source, extra_files, &meta);
  write_file_atomically(path, bytes);
  return meta;
}

ModelMetadata export_torchscript(const DetectionModelImpl& source, const ExportOptions& options,
                                 const fs::path& path,
                                 const std::map<std::string, std::string>& extra_files) {
  return TorchScriptExporter(options).save(source, path, extra_files);
}

// ---- load -----------------------------------------------------------------------------------

namespace {

// What LibTorch's PyTorchStreamReader requires of a zip before it reads it: the first entry in a
// folder, and that folder holding a `version` (or `.data/version`) record.
bool has_torch_archive_layout(const std::vector<std::string>& names) {
  if (names.empty()) return false;
  const size_t slash = names.front().find('/');
  if (slash == std::string::npos) return false;
  const std::string folder = names.front().substr(0, slash + 1);
  return std::find_if(names.begin(), names.end(), [&](const std::string& n) {
           return n == folder + "version" || n == folder + ".data/version";
         }) != names.end();
}

// What an archive's records (names inside its folder) say it is: TorchScript has code, a
// torch.save file only a data.pkl.
struct ArchiveKind {
  bool code = false, data = false;
};
ArchiveKind archive_kind(const std::vector<std::string>& records) {
  ArchiveKind k;
  for (const auto& r : records) {
    if (r == "constants.pkl" || r.rfind("code/", 0) == 0) k.code = true;
    if (r == "data.pkl") k.data = true;
  }
  return k;
}

// What to give instead of a model file that is not there. A bare Ultralytics release name
// (yolo26n.pt, yolov8s.pt) is the usual case: Ultralytics downloads those on first use, and a
// user coming from it expects the same.
std::string missing_model_hint(const std::string& path) {
  static const std::regex kRelease(R"(yolo(v?\d+)u?[nsmlx]?u?\.(pt|torchscript))",
                                   std::regex::icase);
  const fs::path p(path);
  const std::string file = p.filename().string();
  std::error_code ec;
  const std::string cwd = fs::current_path(ec).string();
  if (!p.has_parent_path() && std::regex_match(file, kRelease)) {
    // The families this trainer builds from YAML; for the others, the newest one.
    static const std::regex kBuildable(R"(yolo(v8|11|26)[nsmlx])");
    const std::string stem = lower(p.stem().string());
    return fmt::format(
        "'{0}' is the name of an Ultralytics release, which Ultralytics downloads on first use; "
        "yolo-edge downloads nothing. Download {0} yourself (Ultralytics' GitHub releases) and "
        "give its path, give a model you trained (runs/.../weights/best.pt), or train one from a "
        "model YAML (model={1}.yaml)",
        file, std::regex_match(stem, kBuildable) ? stem : "yolo26n");
  }
  return fmt::format(
      "give a checkpoint (runs/.../weights/best.pt), a TorchScript export (.torchscript), or a "
      "model YAML to train from (yolo26n.yaml); relative paths start at the working directory "
      "({})",
      cwd);
}

}  // namespace

namespace {

// The bytes of a ZipArchive as LibTorch's readers take them.
class ZipArchiveReader : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit ZipArchiveReader(std::shared_ptr<const ZipArchive> zip) : zip_(std::move(zip)) {}
  size_t size() const override { return zip_->bytes().size(); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    const std::string& b = zip_->bytes();
    if (pos >= b.size()) return 0;
    n = std::min<size_t>(n, b.size() - static_cast<size_t>(pos));
    std::memcpy(buf, b.data() + pos, n);
    return n;
  }

 private:
  std::shared_ptr<const ZipArchive> zip_;
};

}  // namespace

std::shared_ptr<caffe2::serialize::ReadAdapterInterface> ModelFile::reader() const {
  return std::make_shared<ZipArchiveReader>(zip);
}

bool ModelFile::has_record(const std::string& record) const {
  for (const ZipArchive::Entry& e : zip->entries()) {
    const size_t slash = e.name.find('/');
    if (slash != std::string::npos && e.name.compare(slash + 1, std::string::npos, record) == 0)
      return true;
  }
  return false;
}

namespace {

// The file's bytes, or a CheckpointError saying why there are none.
std::string model_file_bytes(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw CheckpointError(
        fmt::format("model file '{}' does not exist: {}", path, missing_model_hint(path)));
  if (fs::is_directory(path, ec))
    throw CheckpointError(fmt::format("model '{}' is a folder, not a file", path));
  if (fs::file_size(path, ec) == 0)
    throw CheckpointError(fmt::format("model file '{}' is empty", path));
  try {
    return read_file_bytes(path, "model file");
  } catch (const std::runtime_error& e) {
    throw CheckpointError(fmt::format("{}; check its permissions", e.what()));
  }
}

// A zip archive by its first bytes, refusing PyTorch < 1.6's bare pickles and anything else.
void require_zip_signature(const std::string& bytes, const std::string& path) {
  if (static_cast<unsigned char>(bytes[0]) == 0x80) {
    throw CheckpointError(fmt::format(
        "'{}' is a torch.save file in the legacy format of PyTorch < 1.6 (a bare pickle, not a "
        "zip); load and save it again with a current PyTorch (torch.save(torch.load(f), f)), or "
        "export it to TorchScript with Ultralytics (yolo export model=FILE format=torchscript)",
        path));
  }
  if (bytes.size() < 2 || bytes[0] != 'P' || bytes[1] != 'K') {
    throw CheckpointError(
        fmt::format("'{}' is not a TorchScript model (not a zip archive); use a "
                    "checkpoint written by yolo-trainer or an Ultralytics "
                    "TorchScript export",
                    path));
  }
}

// The directory, read here first: LibTorch's reader only sees archives laid out as it expects,
// because its constructor throws on any other zip after opening it, and leaks the open archive's
// state when it does (LibTorch 2.11; a service retrying a wrong file would grow).
std::shared_ptr<const ZipArchive> torch_archive(std::string bytes, const std::string& path) {
  std::shared_ptr<const ZipArchive> zip;
  try {
    zip = std::make_shared<const ZipArchive>(ZipArchive::parse(std::move(bytes)));
  } catch (const std::runtime_error&) {
    throw CheckpointError(
        fmt::format("'{}' is truncated or corrupt (its zip directory cannot be read); copy or "
                    "export it again",
                    path));
  }
  const std::vector<std::string> names = zip->names();
  if (!has_torch_archive_layout(names)) {
    const size_t shown = std::min<size_t>(names.size(), 3);
    const std::string held =
        names.empty()
            ? std::string("no files")
            : fmt::format(
                  "{}{}", fmt::join(names.begin(), names.begin() + shown, ", "),
                  names.size() > shown ? fmt::format(" and {} more", names.size() - shown) : "");
    throw CheckpointError(
        fmt::format("'{}' is a zip archive but not a TorchScript model (it holds {}); use a "
                    "checkpoint written by yolo-trainer or an Ultralytics TorchScript export",
                    path, held));
  }
  return zip;
}

// What LibTorch's reader says the archive holds: TorchScript code, or a torch.save's data.
ArchiveKind libtorch_archive_kind(const ModelFile& file) {
  std::vector<std::string> records;
  try {
    caffe2::serialize::PyTorchStreamReader reader(file.reader());
    records = reader.getAllRecords();
  } catch (const c10::Error& e) {
    // Left for LibTorch to refuse: mainly a format version it does not read; its reason is
    // passed on.
    const std::string what = e.what_without_backtrace();
    throw CheckpointError(fmt::format("'{}' cannot be read by this LibTorch: {}", file.path,
                                      what.substr(0, what.find('\n'))));
  }
  const ArchiveKind kind = archive_kind(records);
  if (!kind.code && !kind.data) {
    throw CheckpointError(
        fmt::format("'{}' is a zip archive but not a TorchScript model", file.path));
  }
  return kind;
}

// Every stored entry's CRC-32 (zip_integrity.h: LibTorch's reader skips them).
void require_intact_entries(const ModelFile& file) {
  std::optional<std::string> damaged;
  try {
    damaged = file.zip->find_corrupt_entry();
  } catch (const std::runtime_error& e) {
    damaged = e.what();
  }
  if (damaged) {
    throw CheckpointError(fmt::format(
        "'{}' is corrupt: {} (its bytes changed after it was written); copy or export it again",
        file.path, *damaged));
  }
}

}  // namespace

ModelFile open_model_file(const std::string& path) {
  std::string bytes = model_file_bytes(path);
  require_zip_signature(bytes, path);
  ModelFile file;
  file.path = path;
  file.zip = torch_archive(std::move(bytes), path);
  const ArchiveKind kind = libtorch_archive_kind(file);
  require_intact_entries(file);
  file.kind = kind.code ? ModelFileKind::kTorchScript : ModelFileKind::kTorchSave;
  return file;
}

ModelFileKind inspect_model_file(const std::string& path) {
  return open_model_file(path).kind;
}

bool is_torch_save_file(const std::string& path) {
  try {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return false;
    std::vector<std::string> records;
    for (const std::string& n : zip_entry_names(path)) records.push_back(n.substr(n.find('/') + 1));
    const ArchiveKind kind = archive_kind(records);
    return kind.data && !kind.code;
  } catch (const std::exception&) {
    return false;
  }
}

namespace {

void require_torchscript(const ModelFile& file) {
  if (file.kind == ModelFileKind::kTorchSave) {
    throw CheckpointError(fmt::format(
        "'{}' is a torch.save checkpoint (such as Ultralytics' .pt), not a yolo-trainer "
        "checkpoint: it runs and fine-tunes as model={} (train, val, predict, export), but a "
        "yolo-trainer run resumes only from its own last.pt",
        file.path, file.path));
  }
}

}  // namespace

void check_torchscript_file(const std::string& path) {
  require_torchscript(open_model_file(path));
}

namespace {

LoadedModel finish_load(torch::jit::Module module, torch::jit::ExtraFilesMap& files,
                        const std::string& source) {
  LoadedModel out;
  out.module = std::move(module);
  out.module.eval();
  if (files[kMetadataFile].empty()) {
    throw CheckpointError(
        fmt::format("'{}' has no config.txt metadata (input size, class names); "
                    "export it with yolo-trainer export or Ultralytics",
                    source));
  }
  out.metadata = ModelMetadata::from_json_text(files[kMetadataFile], source);
  if (!files[kModelFile].empty()) out.extra_files[kModelFile] = files[kModelFile];
  return out;
}

[[noreturn]] void throw_load_error(const c10::Error& e, const std::string& source,
                                   const c10::Device& device) {
  const std::string what = e.what_without_backtrace();
  throw CheckpointError(fmt::format("cannot load '{}' onto {}: {}", source, device.str(),
                                    what.substr(0, what.find('\n'))));
}

}  // namespace

LoadedModel load_torchscript(const std::string& path, const c10::Device& device,
                             const std::vector<int64_t>& build_imgsz) {
  return load_torchscript(open_model_file(path), device, build_imgsz);
}

LoadedModel load_torchscript(const ModelFile& file, const c10::Device& device,
                             const std::vector<int64_t>& build_imgsz) {
  // A torch.save file is built by its own reader; TorchScript is LibTorch's to load.
  if (file.kind == ModelFileKind::kTorchSave)
    return load_ultralytics_as_torchscript(file, device, build_imgsz);
  torch::jit::ExtraFilesMap files{{kMetadataFile, ""}, {kModelFile, ""}};
  try {
    return finish_load(torch::jit::load(file.reader(), device, files), files, file.path);
  } catch (const c10::Error& e) {
    throw_load_error(e, file.path, device);
  }
}

LoadedModel load_torchscript_bytes(const std::string& bytes, const c10::Device& device,
                                   const std::string& source) {
  torch::jit::ExtraFilesMap files{{kMetadataFile, ""}, {kModelFile, ""}};
  std::istringstream in(bytes);
  try {
    return finish_load(torch::jit::load(in, device, files), files, source);
  } catch (const c10::Error& e) {
    throw_load_error(e, source, device);
  }
}

bool has_training_weights(const std::string& path) {
  return has_training_weights(open_model_file(path));
}

bool has_training_weights(const ModelFile& file) {
  return file.kind == ModelFileKind::kTorchScript &&
         file.has_record(std::string("extra/") + kWeightsFile);
}

ModelConfig model_config_from_json(const std::string& json_text, const std::string& source,
                                   std::optional<int> nc) {
  try {
    json m = json::parse(json_text);
    // The stored class count is the model's own, not an override of its YAML's to announce.
    const int stored_nc = m.at("nc").get<int>();
    if (stored_nc < 1)
      throw CheckpointError(fmt::format("'{}': {} says nc={}", source, kModelFile, stored_nc));
    ModelConfig cfg = parse_model_config(m.at("yaml").get<std::string>(), m.value("source", source),
                                         m.value("scale", ""), nc);
    if (!nc) cfg.nc = stored_nc;
    cfg.name = m.value("name", cfg.name);
    cfg.cls_hidden = m.value("cls_hidden", 0);
    if (cfg.cls_hidden < 0 || cfg.cls_hidden > 65536)
      throw CheckpointError(
          fmt::format("'{}': {} says cls_hidden={}", source, kModelFile, cfg.cls_hidden));
    return cfg;
  } catch (const json::exception& e) {
    throw CheckpointError(fmt::format("'{}': {} is corrupt ({})", source, kModelFile, e.what()));
  }
}

std::shared_ptr<DetectionModelImpl> load_eager_model(const std::string& path,
                                                     ModelMetadata* metadata) {
  return load_eager_model(open_model_file(path), metadata);
}

std::shared_ptr<DetectionModelImpl> load_eager_model(const ModelFile& file,
                                                     ModelMetadata* metadata) {
  require_torchscript(file);
  const std::string& path = file.path;
  torch::jit::ExtraFilesMap files{{kMetadataFile, ""}, {kModelFile, ""}, {kWeightsFile, ""}};
  try {
    torch::jit::load(file.reader(), torch::kCPU, files);
  } catch (const c10::Error& e) {
    std::string what = e.what_without_backtrace();
    throw CheckpointError(
        fmt::format("cannot load '{}': {}", path, what.substr(0, what.find('\n'))));
  }
  if (files[kModelFile].empty() || files[kWeightsFile].empty()) {
    throw CheckpointError(
        fmt::format("'{}' carries no yolo-edge architecture and weights (it was "
                    "not written by yolo-trainer)",
                    path));
  }
  ModelConfig cfg = model_config_from_json(files[kModelFile], path);
  auto model = std::make_shared<DetectionModelImpl>(cfg);
  unpickle_state_into(files[kWeightsFile], *model, path);
  if (!files[kMetadataFile].empty()) {
    ModelMetadata meta = ModelMetadata::from_json_text(files[kMetadataFile], path);
    model->names = meta.names;
    if (metadata) *metadata = std::move(meta);
  }
  return model;
}

}  // namespace yolo
