#include "help.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "yolo/trainer/settings/config.h"

namespace yolo {
namespace {

struct ModeDoc {
  const char* summary;
  const char* example;
  std::vector<const char*> sections;  // the schema sections this mode reads
  // Keys of other sections it reads too (export's half; synth's seed), so that giving them draws
  // no "not read" warning.
  std::vector<const char*> also_reads = {};
};

const std::map<std::string, ModeDoc>& mode_docs() {
  static const std::map<std::string, ModeDoc> docs = {
      {"train",
       {"train a detector from a dataset YAML",
        "yolo-trainer train data=coco8.yaml model=yolo26n.yaml epochs=100 imgsz=640 device=0",
        {"Train settings", "Hyperparameters", "Val/Test settings"},
        {"agnostic_nms"}}},
      {"val",
       {"validate a checkpoint on a dataset split (mAP50, mAP50-95, plots)",
        "yolo-trainer val model=best.pt data=coco8.yaml imgsz=640 batch=16",
        {"Train settings", "Val/Test settings"},
        {"classes", "agnostic_nms"}}},
      {"predict",
       {"detect objects in images, folders, videos or streams",
        "yolo-trainer predict model=best.pt source=images/ conf=0.25 save=True",
        {"Predict settings", "Val/Test settings", "Train settings"}}},
      {"track",
       {"follow objects over a video's or stream's frames: predict with a tracker's ids",
        "yolo-trainer track model=best.pt source=video.mp4 tracker=botsort.yaml",
        {"Predict settings", "Val/Test settings", "Train settings"}}},
      {"export",
       {"write a TorchScript checkpoint for the runtime",
        "yolo-trainer export model=best.pt format=torchscript imgsz=640",
        {"Export settings", "Train settings"},
        {"half", "max_det", "nms"}}},
      {"info",
       {"print a model's layers, parameters and GFLOPs",
        "yolo-trainer info model=yolo26n.yaml imgsz=640",
        {"Train settings"}}},
      {"synth",
       {"generate a synthetic dataset of coloured shapes (and a video with ground truth)",
        "yolo-trainer synth dir=datasets/synthetic images=200 imgsz=640 nc=3 seed=0 video=True",
        {"Synthetic data settings (yolo-trainer synth)"},
        {"seed", "imgsz"}}},
      {"checks",
       {"report the LibTorch build, GPUs, BLAS, OpenCV and GStreamer", "yolo-trainer checks", {}}},
      {"version", {"print the version", "yolo-trainer version", {}}},
  };
  return docs;
}

void append_section(std::string& out, const ConfigSchema& schema, const std::string& section) {
  out += fmt::format("\n{}:\n", section);
  for (const auto& k : schema.keys()) {
    if (k.section != section) continue;
    const std::string value =
        k.default_value.IsNull() ? std::string() : render_value(k.default_value);
    // A default wider than its column keeps a space before the text (dir's
    // datasets/synthetic ran into it).
    out +=
        fmt::format("  {:<16}{:<14}{}{}\n", k.name, value, value.size() >= 14 ? " " : "", k.help);
  }
}

}  // namespace

std::vector<std::string> unread_key_warnings(const Config& cfg, const std::string& mode) {
  static const std::set<std::string> every_mode = {"task", "mode", "cfg", "threads"};
  static const std::set<std::string> track_only = {"tracker", "persist", "gt"};
  const auto reads = [](const std::string& m, const KeySpec& k) {
    if (every_mode.count(k.name)) return true;
    if (track_only.count(k.name)) return m == "track";
    const auto it = mode_docs().find(m);
    if (it == mode_docs().end()) return true;  // not a mode that reads keys by section
    const ModeDoc& doc = it->second;
    return std::any_of(doc.sections.begin(), doc.sections.end(),
                       [&](const char* s) { return k.section == s; }) ||
           std::any_of(doc.also_reads.begin(), doc.also_reads.end(),
                       [&](const char* key) { return k.name == key; });
  };
  std::vector<std::string> out;
  for (const KeySpec& k : cfg.schema().keys()) {
    if (!cfg.was_set(k.name) || reads(mode, k)) continue;
    std::vector<std::string> readers;
    for (const auto& [m, doc] : mode_docs()) {
      if (!doc.sections.empty() && reads(m, k)) readers.push_back(m);
    }
    if (readers.empty()) continue;  // a key no mode reads by section: nothing to point at
    out.push_back(
        fmt::format("{0}= is read by {1} and not by {2}: it has no effect here (yolo-trainer {2} "
                    "help lists the keys {2} reads)",
                    k.name, fmt::join(readers, ", "), mode));
  }
  return out;
}

std::string format_help(const ConfigSchema& schema, const std::string& mode) {
  std::string out;
  auto it = mode_docs().find(mode);
  if (it != mode_docs().end()) {
    out +=
        fmt::format("yolo-trainer {}: {}\n\n  {}\n", mode, it->second.summary, it->second.example);
    std::set<std::string> shown;
    for (const char* s : it->second.sections) {
      append_section(out, schema, s);
      shown.insert(s);
    }
    out += "\nAll other keys: yolo-trainer help\n";
    return out;
  }
  out +=
      "Usage: yolo-trainer [detect] MODE key=value ...\n"
      "  key=value pairs override config/default.yaml; a bare key means key=True;\n"
      "  cfg=file.yaml replaces the defaults with a file's keys.\n\nModes:\n";
  for (const auto& [name, doc] : mode_docs()) out += fmt::format("  {:<9}{}\n", name, doc.summary);
  out += "\nExamples:\n";
  for (const auto& [name, doc] : mode_docs()) out += fmt::format("  {}\n", doc.example);
  out += "\nKeys (name, default, meaning):\n";
  std::vector<std::string> sections;
  for (const auto& k : schema.keys()) {
    if (sections.empty() || sections.back() != k.section) sections.push_back(k.section);
  }
  for (const auto& s : sections) append_section(out, schema, s);
  return out;
}

}  // namespace yolo
