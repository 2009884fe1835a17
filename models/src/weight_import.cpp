// Fused TorchScript -> eager model: the way to fine-tune from Ultralytics' exported weights.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "yolo/models/checkpoint.h"
#include "yolo/models/nn/block.h"
#include "yolo/models/nn/conv.h"
#include "yolo/models/weight_transfer.h"

namespace yolo {
std::string guess_architecture_yaml(const std::string& path, const std::string& description) {
  static const std::regex re(R"(yolo(v?\d+)([nslmx]))", std::regex::icase);
  std::smatch m;
  const std::string stem = std::filesystem::path(path).stem().string();
  for (const std::string& text : {stem, description}) {
    if (std::regex_search(text, m, re)) {
      std::string version = m[1].str();
      std::transform(version.begin(), version.end(), version.begin(), ::tolower);
      std::string scale = m[2].str();
      std::transform(scale.begin(), scale.end(), scale.begin(), ::tolower);
      return "yolo" + version + scale + ".yaml";
    }
  }
  throw CheckpointError(fmt::format(
      "'{}': cannot tell which architecture this is (neither its name nor its description names "
      "a YOLOv8/YOLO11/YOLO26 scale such as yolo11n); rename the file, e.g. yolo11n.torchscript",
      path));
}

namespace {

// SPPF's first conv has SiLU in the released v8/11 weights but is linear in models trained from
// Ultralytics >= 8.4 YAMLs; the traced module tells which (its `act` child is SiLU or Identity).
void match_sppf_activation(const torch::jit::Module& file, DetectionModelImpl& model) {
  auto layers = model.named_children()["model"]->children();
  for (size_t i = 0; i < layers.size(); ++i) {
    auto* sppf = dynamic_cast<nn::SPPFImpl*>(layers[i].get());
    if (!sppf) continue;
    try {
      torch::jit::Module m =
          file.attr("model").toModule().attr(std::to_string(i)).toModule().attr("cv1").toModule();
      for (const auto& child : m.named_children()) {
        if (child.name != "act") continue;
        const std::string type =
            child.value.type()->name() ? child.value.type()->name()->name() : "";
        const bool silu = type.find("SiLU") != std::string::npos;
        if (silu != sppf->cv1->act) {
          spdlog::info("model.{}.cv1 (SPPF) is {} in '{}'; using that", i, silu ? "SiLU" : "linear",
                       file.type()->name() ? file.type()->name()->name() : "the file");
          sppf->cv1->act = silu;
        }
      }
    } catch (const c10::Error&) {
      // No per-layer modules in this file (e.g. ours): keep the YAML's choice.
    }
  }
}

using Tensors = std::map<std::string, torch::Tensor>;

// Every parameter and buffer of the file, by name.
Tensors file_tensors(const torch::jit::Module& module) {
  Tensors source;
  for (const auto& p : module.named_parameters(/*recurse=*/true)) source[p.name] = p.value;
  for (const auto& b : module.named_buffers(/*recurse=*/true)) source[b.name] = b.value;
  return source;
}

// The eager model for a file: from the architecture embedded in our own exports, else from the
// YAML its name or description names (an Ultralytics export), with the file's SPPF activation.
// The file's class names are kept unless nc asks for another class count.
std::shared_ptr<DetectionModelImpl> build_model_for(const LoadedModel& file,
                                                    const std::string& path,
                                                    std::optional<int> nc) {
  const int file_nc = static_cast<int>(file.metadata.names.size());
  std::shared_ptr<DetectionModelImpl> model;
  auto it = file.extra_files.find(kModelFile);
  if (it != file.extra_files.end()) {
    ModelConfig cfg = model_config_from_json(it->second, path, nc);
    model = std::make_shared<DetectionModelImpl>(cfg);
  } else {
    ModelConfig cfg = load_model_config(guess_architecture_yaml(path, file.metadata.description),
                                        nc ? *nc : file_nc);
    // A model Ultralytics fine-tuned on another class count keeps its pretrained class width.
    if (cfg.nc == file_nc) cfg.cls_hidden = class_branch_width_override(file_tensors(file.module));
    model = std::make_shared<DetectionModelImpl>(cfg);
  }
  if (!nc || *nc == file_nc) model->names = file.metadata.names;
  if (it == file.extra_files.end()) match_sppf_activation(file.module, *model);
  return model;
}

// Copies src into dst when their shapes agree (counted as matched), else leaves dst as it is
// (counted as skipped, by name). Returns whether it copied.
bool copy_counted(const std::string& name, torch::Tensor& dst, const torch::Tensor& src,
                  ImportReport& report) {
  if (src.sizes() != dst.sizes()) {
    ++report.skipped;
    report.skipped_names.push_back(name);
    return false;
  }
  dst.copy_(src.to(dst.dtype()));
  ++report.matched;
  return true;
}

// Convs with BatchNorm whose file holds conv.weight + conv.bias (BN folded in): the weight goes
// to the conv, the bias to an identity BatchNorm. Returns the conv weights taken here (also
// those of another shape, which stay as they are).
std::set<std::string> unfuse_convs(DetectionModelImpl& model, const Tensors& source,
                                   ImportReport& report) {
  std::set<std::string> handled;
  for (const auto& item : model.named_modules()) {
    auto* conv = dynamic_cast<nn::ConvImpl*>(item.value().get());
    if (!conv || !conv->bn) continue;
    const std::string prefix = item.key().empty() ? "" : item.key() + ".";
    auto w = source.find(prefix + "conv.weight");
    auto b = source.find(prefix + "conv.bias");
    if (w == source.end()) continue;
    handled.insert(prefix + "conv.weight");
    if (!copy_counted(prefix + "conv.weight", conv->conv->weight, w->second, report)) continue;
    if (b != source.end() && b->second.size(0) == conv->bn->bias.size(0)) {
      // Identity BN in eval mode: (x - 0) / sqrt((1 - eps) + eps) * 1 + bias.
      conv->bn->weight.fill_(1.0);
      conv->bn->bias.copy_(b->second.to(conv->bn->bias.dtype()));
      conv->bn->running_mean.zero_();
      conv->bn->running_var.fill_(1.0 - conv->bn->options.eps());
      ++report.unfused;
      ++report.matched;  // the bias
    } else {
      // Not fused in the file: BN tensors come by name (copy_by_name).
      handled.erase(prefix + "conv.weight");
    }
  }
  return handled;
}

// The rest by name: parameters outside BatchNorms (but those unfuse_convs took), BN buffers,
// then BN parameters (a file exported without fusing keeps them).
void copy_by_name(DetectionModelImpl& model, const Tensors& source,
                  const std::set<std::string>& handled, ImportReport& report) {
  for (auto& p : model.named_parameters(true)) {
    if (handled.count(p.key()) || p.key().find(".bn.") != std::string::npos) continue;
    auto s = source.find(p.key());
    if (s != source.end()) copy_counted(p.key(), p.value(), s->second, report);
  }
  for (auto& b : model.named_buffers(true)) {
    auto s = source.find(b.key());
    if (s != source.end() && b.key().find(".bn.") != std::string::npos)
      copy_counted(b.key(), b.value(), s->second, report);
  }
  for (auto& p : model.named_parameters(true)) {
    if (p.key().find(".bn.") == std::string::npos) continue;
    auto s = source.find(p.key());
    if (s != source.end()) copy_counted(p.key(), p.value(), s->second, report);
  }
}

// A fused end-to-end export carries only the branch it infers through (one-to-one when
// exported with nms=False, else one-to-many): the missing branch starts from its twin, as
// Ultralytics' head starts its one-to-one branch as a copy of the one-to-many one. The model
// then infers through the branch the file did.
void init_missing_head_branch(DetectionModelImpl& model, const Tensors& source, bool file_end2end,
                              ImportReport& report) {
  auto& det = model.detect();
  if (!det.end2end || !det.has_one2many()) return;
  auto params = model.named_parameters(true);
  auto buffers = model.named_buffers(true);
  const std::string head = "model." + std::to_string(model.layer_infos().size() - 1) + ".";
  auto in_file = [&](const std::string& prefix) {
    auto first = source.lower_bound(head + prefix + "cv2.");
    return first != source.end() && first->first.rfind(head + prefix + "cv2.", 0) == 0;
  };
  auto fill_from_twin = [&](const std::string& to, const std::string& from, int& count) {
    if (in_file(to) || !in_file(from)) return;
    auto twin_of = [&](const std::string& key) {
      return head + from + key.substr(head.size() + to.size());
    };
    for (const char* branch : {"cv2.", "cv3."}) {
      for (auto& p : params) {
        if (p.key().rfind(head + to + branch, 0) != 0) continue;
        const std::string twin = twin_of(p.key());
        if (params.contains(twin) && params[twin].sizes() == p.value().sizes()) {
          p.value().copy_(params[twin]);
          ++count;
        }
      }
      for (auto& b : buffers) {
        if (b.key().rfind(head + to + branch, 0) != 0) continue;
        const std::string twin = twin_of(b.key());
        if (buffers.contains(twin) && buffers[twin].sizes() == b.value().sizes())
          b.value().copy_(buffers[twin]);
      }
    }
  };
  fill_from_twin("", "one2one_", report.copied_one2many);
  fill_from_twin("one2one_", "", report.copied_one2one);
  det.use_one2one = file_end2end;  // infer as the file did
}

// What was transferred and, when tensors were skipped, the first of them.
void log_import(const ImportReport& report, size_t file_tensor_count, const std::string& path,
                int64_t model_nc, int file_nc) {
  spdlog::info("Transferred {}/{} tensors from '{}' ({} fused convs split into conv + BN{}{})",
               report.matched, file_tensor_count, path, report.unfused,
               report.copied_one2many
                   ? fmt::format(", one-to-many head initialised from one-to-one ({} tensors)",
                                 report.copied_one2many)
               : report.copied_one2one
                   ? fmt::format(", one-to-one head initialised from one-to-many ({} tensors)",
                                 report.copied_one2one)
                   : std::string(),
               report.skipped ? fmt::format("; skipped {} with other shapes", report.skipped) : "");
  if (report.skipped) {
    spdlog::info(
        "Skipped (shape differs, e.g. the class head for nc={} instead of {}): {}{}", model_nc,
        file_nc,
        fmt::join(report.skipped_names.begin(),
                  report.skipped_names.begin() + std::min<size_t>(6, report.skipped_names.size()),
                  ", "),
        report.skipped_names.size() > 6 ? ", ..." : "");
  }
}

}  // namespace

std::shared_ptr<DetectionModelImpl> import_fused_torchscript(const std::string& path,
                                                             std::optional<int> nc,
                                                             ImportReport* report_out) {
  LoadedModel file = load_torchscript(path, torch::kCPU);
  std::shared_ptr<DetectionModelImpl> model = build_model_for(file, path, nc);
  const Tensors source = file_tensors(file.module);

  ImportReport report;
  torch::NoGradGuard no_grad;
  const std::set<std::string> handled = unfuse_convs(*model, source, report);
  copy_by_name(*model, source, handled, report);
  init_missing_head_branch(*model, source, file.metadata.end2end, report);

  log_import(report, source.size(), path, model->num_classes(),
             static_cast<int>(file.metadata.names.size()));
  if (report_out) *report_out = report;
  return model;
}

}  // namespace yolo
