#include "yolo/trainer/train/resume.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "yolo/trainer/settings/config.h"

namespace yolo {
namespace fs = std::filesystem;

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

std::optional<ResumePoint> prepare_resume(Config& cfg) {
  const bool resuming = cfg.type_of("resume") == ValueType::kString
                            ? !cfg.get_string("resume").empty()
                            : (!cfg.is_null("resume") && cfg.get_bool("resume"));
  if (!resuming) return std::nullopt;
  ResumePoint r;
  r.path = resolve_resume_checkpoint(cfg);
  r.checkpoint = load_training_checkpoint(r.path);
  if (r.checkpoint.state.finished || r.checkpoint.model_weights.empty())
    throw ConfigError(fmt::format(
        "{} is from a finished training run (its optimiser state was dropped); there is nothing "
        "to resume. Start a new run with model={} to fine-tune from it",
        r.path.string(), r.path.string()));
  Config saved = cfg;
  apply_saved_args(saved, r.checkpoint.args_yaml, r.path.string());
  for (const char* key : {"device", "workers", "threads", "verbose", "plots"})
    if (cfg.was_set(key)) saved.set(key, cfg.node(key));
  saved.set("resume", YAML::Node(r.path.string()));
  cfg = std::move(saved);
  spdlog::info("Resuming training from {} (epoch {} done)", r.path.string(),
               r.checkpoint.state.epoch + 1);
  return r;
}

}  // namespace yolo
