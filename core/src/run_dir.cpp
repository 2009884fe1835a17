#include "yolo/core/run_dir.h"

namespace yolo {
namespace fs = std::filesystem;

fs::path increment_path(const fs::path& base, bool exist_ok) {
  if (exist_ok || !fs::exists(base)) return base;
  for (int n = 2;; ++n) {
    fs::path candidate = base.parent_path() / (base.filename().string() + std::to_string(n));
    if (!fs::exists(candidate)) return candidate;
  }
}

fs::path make_run_dir(const std::string& project, const std::string& name, const std::string& mode,
                      bool exist_ok) {
  const fs::path root = project.empty() ? fs::path("runs") / "detect" : fs::path(project);
  fs::path dir = increment_path(root / (name.empty() ? mode : name), exist_ok);
  fs::create_directories(dir);
  return dir;
}

}  // namespace yolo
