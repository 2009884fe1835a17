// Fused TorchScript -> eager model: the way to fine-tune from Ultralytics' exported weights.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <filesystem>
#include <regex>

#include "yolo/models/checkpoint.h"
#include "yolo/models/nn/block.h"
#include "yolo/models/nn/conv.h"

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

}  // namespace

std::shared_ptr<DetectionModelImpl> import_fused_torchscript(const std::string& path,
                                                             std::optional<int> nc,
                                                             ImportReport* report_out) {
  LoadedModel file = load_torchscript(path, torch::kCPU);
  const int file_nc = static_cast<int>(file.metadata.names.size());
  std::shared_ptr<DetectionModelImpl> model;
  auto it = file.extra_files.find(kModelFile);
  if (it != file.extra_files.end()) {
    ModelConfig cfg = model_config_from_json(it->second, path, nc);
    model = std::make_shared<DetectionModelImpl>(cfg);
  } else {
    model =
        build_model(guess_architecture_yaml(path, file.metadata.description), nc ? *nc : file_nc);
  }
  if (!nc || *nc == file_nc) model->names = file.metadata.names;
  if (it == file.extra_files.end()) match_sppf_activation(file.module, *model);

  std::map<std::string, torch::Tensor> source;
  for (const auto& p : file.module.named_parameters(/*recurse=*/true)) source[p.name] = p.value;
  for (const auto& b : file.module.named_buffers(/*recurse=*/true)) source[b.name] = b.value;

  ImportReport report;
  torch::NoGradGuard no_grad;
  auto copy_into = [&](const std::string& name, torch::Tensor& dst, const torch::Tensor& src) {
    if (src.sizes() != dst.sizes()) {
      ++report.skipped;
      report.skipped_names.push_back(name);
      return false;
    }
    dst.copy_(src.to(dst.dtype()));
    ++report.matched;
    return true;
  };
  // Convs with BatchNorm: the file holds conv.weight + conv.bias (BN folded in).
  std::set<std::string> handled;
  for (const auto& item : model->named_modules()) {
    auto* conv = dynamic_cast<nn::ConvImpl*>(item.value().get());
    if (!conv || !conv->bn) continue;
    const std::string prefix = item.key().empty() ? "" : item.key() + ".";
    auto w = source.find(prefix + "conv.weight");
    auto b = source.find(prefix + "conv.bias");
    if (w == source.end()) continue;
    handled.insert(prefix + "conv.weight");
    if (!copy_into(prefix + "conv.weight", conv->conv->weight, w->second)) continue;
    if (b != source.end() && b->second.size(0) == conv->bn->bias.size(0)) {
      // Identity BN in eval mode: (x - 0) / sqrt((1 - eps) + eps) * 1 + bias.
      conv->bn->weight.fill_(1.0);
      conv->bn->bias.copy_(b->second.to(conv->bn->bias.dtype()));
      conv->bn->running_mean.zero_();
      conv->bn->running_var.fill_(1.0 - conv->bn->options.eps());
      ++report.unfused;
      ++report.matched;  // the bias
    } else {
      // Not fused in the file: BN tensors come by name below.
      handled.erase(prefix + "conv.weight");
    }
  }
  for (auto& p : model->named_parameters(true)) {
    if (handled.count(p.key()) || p.key().find(".bn.") != std::string::npos) continue;
    auto s = source.find(p.key());
    if (s != source.end()) copy_into(p.key(), p.value(), s->second);
  }
  for (auto& b : model->named_buffers(true)) {
    auto s = source.find(b.key());
    if (s != source.end() && b.key().find(".bn.") != std::string::npos)
      copy_into(b.key(), b.value(), s->second);
  }
  // Unfused BN parameters that the file kept by name (a file exported without fusing).
  for (auto& p : model->named_parameters(true)) {
    if (p.key().find(".bn.") == std::string::npos) continue;
    auto s = source.find(p.key());
    if (s != source.end()) copy_into(p.key(), p.value(), s->second);
  }

  // A fused end-to-end export carries only the branch it infers through (one-to-one when
  // exported with nms=False, else one-to-many): the missing branch starts from its twin, as
  // Ultralytics' head starts its one-to-one branch as a copy of the one-to-many one.
  auto& det = model->detect();
  if (det.end2end && det.has_one2many()) {
    auto params = model->named_parameters(true);
    auto buffers = model->named_buffers(true);
    const std::string head = "model." + std::to_string(model->layer_infos().size() - 1) + ".";
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
    det.use_one2one = file.metadata.end2end;  // infer as the file did
  }

  spdlog::info("Transferred {}/{} tensors from '{}' ({} fused convs split into conv + BN{}{})",
               report.matched, source.size(), path, report.unfused,
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
        "Skipped (shape differs, e.g. the class head for nc={} instead of {}): {}{}",
        model->num_classes(), file_nc,
        fmt::join(report.skipped_names.begin(),
                  report.skipped_names.begin() + std::min<size_t>(6, report.skipped_names.size()),
                  ", "),
        report.skipped_names.size() > 6 ? ", ..." : "");
  }
  if (report_out) *report_out = report;
  return model;
}

}  // namespace yolo
