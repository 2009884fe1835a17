// Run folders as Ultralytics names them (cfg/__init__.py: get_save_dir, utils/files.py:
// increment_path): runs/detect/train, train2, train3, ... unless exist_ok.
#pragma once

#include <filesystem>
#include <string>

namespace yolo {

// `base` if it does not exist (or exist_ok), else base2, base3, ... the first free one. Creates
// nothing.
std::filesystem::path increment_path(const std::filesystem::path& base, bool exist_ok);

// project (default runs/detect) / name (default `mode`), incremented; the folder is created.
std::filesystem::path make_run_dir(const std::string& project, const std::string& name,
                                   const std::string& mode, bool exist_ok);

}  // namespace yolo
