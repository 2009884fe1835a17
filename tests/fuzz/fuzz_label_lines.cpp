// Label files (one `class cx cy w h` or polygon per line): whatever the bytes, parse_label_text
// returns; every box it keeps has a known class and normalised, finite coordinates.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "yolo/trainer/data/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  constexpr int kClasses = 80;
  const yolo::LabelParseResult r = yolo::parse_label_text(text, kClasses);
  if (!r.error.empty()) return 0;  // the file is refused as a whole, with the line named
  for (const auto& b : r.boxes) {
    if (b.cls < 0 || b.cls >= kClasses) __builtin_trap();
    for (const float v : {b.cx, b.cy, b.w, b.h})
      if (!std::isfinite(v) || v < 0.0f || v > 1.0f) __builtin_trap();
  }
  return 0;
}
