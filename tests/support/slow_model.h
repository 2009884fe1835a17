// A model that takes seconds to load, for the tests of what services say while they start: a
// YOLOv8n (random weights) exported by yolo-trainer at 1920 px, so the engine's warm-up inference
// at load runs on 9x the pixels of a 640 px model. Its file is small (13 MB) and it loads through
// the same code as any model; only the warm-up is long.
#pragma once

#include <filesystem>
#include <string>

#include "run_command.h"

namespace yolo::testing {

// Exports it into `dir` (made if missing) with the given yolo-trainer; returns its path, or an
// empty path when the export failed (`log` gets the output).
inline std::filesystem::path export_slow_model(const std::string& trainer,
                                               const std::filesystem::path& dir,
                                               std::string* log = nullptr) {
  std::filesystem::create_directories(dir);
  const CommandResult r = run_command("cd '" + dir.string() + "' && '" + trainer +
                                      "' export model=yolov8n.yaml imgsz=1920 device=cpu");
  if (log) *log = r.output;
  const std::filesystem::path model = dir / "yolov8n.torchscript";
  if (r.exit_code != 0 || !std::filesystem::exists(model)) return {};
  return model;
}

}  // namespace yolo::testing
