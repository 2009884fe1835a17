// resume=...: which checkpoint a run continues from, and the settings it continues with (the
// run's own, from the checkpoint's args.yaml, plus the few a user may change on resuming).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "yolo/trainer/train/train_checkpoint.h"

namespace yolo {

class Config;

struct ResumePoint {
  std::filesystem::path path;  // weights/last.pt of the run
  TrainCheckpoint checkpoint;
};

// The checkpoint resume=... refers to: a path as given, or for resume=True the `model` setting
// when it is a last.pt, else the most recently written runs/**/weights/last.pt. Throws ConfigError
// when none is found.
std::filesystem::path resolve_resume_checkpoint(const Config& cfg);

// Settings stored in a checkpoint's args.yaml, applied key by key onto `cfg` (unknown keys from
// other versions are skipped with a warning rather than making old runs unresumable). Throws
// CheckpointError naming `source` when the YAML is corrupt.
void apply_saved_args(Config& cfg, const std::string& yaml_text, const std::string& source);

// When `cfg` asks to resume: reads the checkpoint and replaces `cfg` with the run's saved
// settings, keeping device, workers, threads, verbose and plots when given now. nullopt when not
// resuming. Throws ConfigError for a finished run's checkpoint (nothing left to resume).
std::optional<ResumePoint> prepare_resume(Config& cfg);

}  // namespace yolo
