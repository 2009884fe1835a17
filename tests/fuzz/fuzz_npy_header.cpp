// .npy image caches (cache=disk; Ultralytics writes the same files): whatever the bytes,
// read_npy_image returns an 8-bit 3-channel image or throws NpyError, and never allocates more
// than the file can fill (the header's size is checked against the file's first).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "yolo/trainer/data/npy_image.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path file =
      fs::temp_directory_path() / ("fuzz_npy_header." + std::to_string(getpid()) + ".npy");
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    const cv::Mat image = yolo::read_npy_image(file);
    if (image.type() != CV_8UC3 || image.total() * 3 > size) __builtin_trap();
  } catch (const yolo::NpyError&) {
  }
  return 0;
}
