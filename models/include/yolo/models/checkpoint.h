// The checkpoint format (shared/DESIGN.md): a TorchScript archive holding a traced forward of the
// fused model at a fixed input size, plus extra files:
//   config.txt         JSON metadata with Ultralytics' keys (stride, task, batch, imgsz, names,
//                      channels, end2end, args, description, date, version, author)
//   yolo/model.json    our architecture: YAML text, name, scale, nc (to rebuild the eager model)
//   yolo/weights.pkl   the unfused weights (pickled dict name -> tensor), so that our own
//                      checkpoints restore exactly for fine-tuning; further files (optimizer,
//                      EMA, epoch) are added by the trainer.
// Files are loaded with the target device given to torch::jit::load, never moved afterwards:
// anchors are baked into the trace as constants.
#pragma once

#include <torch/script.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "yolo/models/detection_model.h"
#include "yolo/models/model_metadata.h"

namespace caffe2::serialize {
class ReadAdapterInterface;
}  // namespace caffe2::serialize

namespace yolo {

class ZipArchive;  // yolo/core/zip_integrity.h

struct ExportOptions {
  int64_t height = 640, width = 640;  // traced input size; rounded up to a stride multiple
  int64_t batch = 1;
  bool half = false;           // FP16 (GPU only; refused on CPU)
  std::string device = "cpu";  // torch device string of the export, e.g. "cuda:0"
  int64_t max_det = 300;       // end-to-end output rows
  std::string description;     // free text for the metadata
  // Store yolo/weights.pkl (the unfused weights): training checkpoints do, so that they restore
  // exactly; exports for deployment leave it out (half the size).
  bool include_weights = true;
};

// Writes archives of one architecture many times: the first save traces a fused copy of the
// model on the export device; later saves of a model with the same architecture and head
// settings only re-fuse its current weights into that trace. The trainer writes last.pt every
// epoch, and tracing took 0.15-0.4 s of a 0.55 s save (yolov8n at 320, 2 CPU cores).
// Throws CheckpointError for options it cannot honour (half on the CPU, batch < 1).
class TorchScriptExporter {
 public:
  explicit TorchScriptExporter(ExportOptions options);
  ~TorchScriptExporter();
  TorchScriptExporter(TorchScriptExporter&&) noexcept;
  TorchScriptExporter& operator=(TorchScriptExporter&&) noexcept;

  // Writes `path` atomically from `model`'s current weights; `extra_files` are stored next to
  // the standard ones. Returns the metadata written.
  ModelMetadata save(const DetectionModelImpl& model, const std::filesystem::path& path,
                     const std::map<std::string, std::string>& extra_files = {});
  // The same archive in memory (the runtime loads Ultralytics .pt files this way).
  std::string serialize(const DetectionModelImpl& model,
                        const std::map<std::string, std::string>& extra_files = {},
                        ModelMetadata* metadata = nullptr);

  const ExportOptions& options() const { return options_; }

 private:
  struct Traced;
  std::shared_ptr<DetectionModelImpl> fused_copy(const DetectionModelImpl& source) const;
  void trace(const DetectionModelImpl& source);
  void refresh_weights(const DetectionModelImpl& source);

  ExportOptions options_;
  std::unique_ptr<Traced> traced_;
};

// One archive: TorchScriptExporter(options).save(model, path, extra_files).
ModelMetadata export_torchscript(const DetectionModelImpl& model, const ExportOptions& options,
                                 const std::filesystem::path& path,
                                 const std::map<std::string, std::string>& extra_files = {});

struct LoadedModel {
  torch::jit::Module module;  // eval mode, on the requested device
  ModelMetadata metadata;
  std::map<std::string, std::string> extra_files;  // our yolo/* files when present
};

enum class ModelFileKind {
  kTorchScript,  // ours, or exported by Ultralytics
  kTorchSave,    // a torch.save zip such as Ultralytics' .pt (ultralytics_checkpoint.h)
};

// A model file read from disk once and checked: what it is (kind), and its bytes, which every
// loader below reads instead of the file (the overloads that take a ModelFile), so that loading
// a model reads its file once. Copies share the bytes.
struct ModelFile {
  std::string path;
  ModelFileKind kind = ModelFileKind::kTorchScript;
  std::shared_ptr<const ZipArchive> zip;

  // The bytes as LibTorch's readers take them (torch::jit::load, PyTorchStreamReader).
  std::shared_ptr<caffe2::serialize::ReadAdapterInterface> reader() const;
  // True when the archive has an entry whose name ends with "/<record>" (e.g. "extra/x").
  bool has_record(const std::string& record) const;
};

// Reads and checks a model file before LibTorch reads it, so that every bad input gets a clear
// CheckpointError (missing, empty, not a zip, truncated or damaged, a legacy pickle, a zip of
// something else).
ModelFile open_model_file(const std::string& path);

// open_model_file(path).kind.
ModelFileKind inspect_model_file(const std::string& path);

// True when `path` is a zip written by torch.save (a data.pkl and no TorchScript code): the
// format of Ultralytics' .pt files. Reads the zip directory only (no checks); false for
// anything else, a missing or damaged file included.
bool is_torch_save_file(const std::string& path);

// inspect_model_file, refusing a torch.save file too: for what only TorchScript can be
// (resuming a yolo-trainer run, reading our extra files).
void check_torchscript_file(const std::string& path);

// LibTorch's load of TorchScript bytes with our metadata checks; `source` names them in errors.
LoadedModel load_torchscript_bytes(const std::string& bytes, const c10::Device& device,
                                   const std::string& source);

// True when the file carries yolo/weights.pkl (a yolo-trainer training checkpoint).
bool has_training_weights(const std::string& path);
bool has_training_weights(const ModelFile& file);

// Loads any detection model file onto `device`: TorchScript (ours or exported by Ultralytics),
// or an Ultralytics .pt, which is built and traced at load (ultralytics_checkpoint.h) at
// `build_imgsz` ([h, w]; empty: the size it was trained at). TorchScript keeps its traced size.
LoadedModel load_torchscript(const std::string& path, const c10::Device& device,
                             const std::vector<int64_t>& build_imgsz = {});
LoadedModel load_torchscript(const ModelFile& file, const c10::Device& device,
                             const std::vector<int64_t>& build_imgsz = {});

// An independent copy (same architecture, parameters, buffers, names, head settings).
std::shared_ptr<DetectionModelImpl> clone_model(const DetectionModelImpl& model);

// Rebuilds the eager, unfused model from one of our checkpoints (yolo/model.json +
// yolo/weights.pkl); throws CheckpointError for files without them. `metadata`, when given,
// receives the file's config.txt.
std::shared_ptr<DetectionModelImpl> load_eager_model(const std::string& path,
                                                     ModelMetadata* metadata = nullptr);
std::shared_ptr<DetectionModelImpl> load_eager_model(const ModelFile& file,
                                                     ModelMetadata* metadata = nullptr);

struct ImportReport {
  int matched = 0;          // eager tensors filled from the file
  int unfused = 0;          // fused convs split back into conv + identity BatchNorm
  int skipped = 0;          // tensors whose shape differs (e.g. a class head for another nc)
  int copied_one2many = 0;  // one-to-many tensors initialised from the one-to-one head
  int copied_one2one = 0;   // one-to-one tensors initialised from the one-to-many head
  std::vector<std::string> skipped_names;
};

// Initialises an eager, unfused model from any fused TorchScript detection checkpoint: an
// Ultralytics export (architecture found by name, e.g. yolo11n) or one of ours. Each fused conv
// is split back into conv + identity BatchNorm; tensors of other shapes (nc differs from the
// file's) are left at their initial values and reported. An end-to-end export lacks the
// one-to-many head; it starts as a copy of the one-to-one head.
std::shared_ptr<DetectionModelImpl> import_fused_torchscript(const std::string& path,
                                                             std::optional<int> nc,
                                                             ImportReport* report = nullptr);

// The built-in architecture of a file without our yolo/model.json: from its name
// (yolo11n.torchscript -> yolo11n.yaml), else from the description Ultralytics writes
// ("Ultralytics YOLO11n model trained on ..."); throws CheckpointError when neither says.
std::string guess_architecture_yaml(const std::string& path, const std::string& description);

// The architecture stored in our yolo/model.json (YAML text, name, scale, nc); nc overrides the
// stored class count when set. Throws CheckpointError naming `source` when the file is corrupt.
ModelConfig model_config_from_json(const std::string& json_text, const std::string& source,
                                   std::optional<int> nc = {});

// Name -> tensor maps pickled as TorchScript reads them (weights, optimiser state). unpickle
// throws CheckpointError naming `source` and `what` ("weights", "optimiser state") when corrupt.
std::string pickle_tensors(const std::map<std::string, torch::Tensor>& tensors);
std::map<std::string, torch::Tensor> unpickle_tensors(const std::string& bytes,
                                                      const std::string& source,
                                                      const std::string& what);

// Serialised weights (name -> tensor), as stored in yolo/weights.pkl.
std::string pickle_state(const torch::nn::Module& module);
void unpickle_state_into(const std::string& bytes, torch::nn::Module& module,
                         const std::string& source);

}  // namespace yolo
