// Dataset YAML files: whatever the bytes, load_dataset_config either returns a configuration
// with at least one class or throws DatasetError naming the file; no other exception (yaml-cpp's
// own, std::stoi's, ...) may escape, because the trainer shows only DatasetError's text as a
// clear message.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "yolo/trainer/data/dataset.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = [] {
    const fs::path d =
        fs::temp_directory_path() / ("fuzz_dataset_yaml." + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  const fs::path yaml = dir / "data.yaml";
  std::ofstream(yaml, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    const yolo::DatasetConfig cfg = yolo::load_dataset_config(yaml, dir / "datasets");
    if (cfg.nc < 1 || static_cast<int>(cfg.names.size()) != cfg.nc) __builtin_trap();
  } catch (const yolo::DatasetError&) {
  }
  return 0;
}
