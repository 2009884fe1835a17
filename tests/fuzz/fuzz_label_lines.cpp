// Label files (one `class cx cy w h` or polygon per line), read as the dataset scan reads them:
// whatever the bytes, the shared text reader (core/text_file.h) either names a byte inside the
// text or hands it over, and parse_label_text returns; every box it keeps has a known class and
// normalised, finite coordinates.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "yolo/core/text_file.h"
#include "yolo/trainer/data/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const yolo::EditorText text =
      yolo::editor_text(std::string_view(reinterpret_cast<const char*>(data), size));
  if (text.invalid) {
    if (text.invalid->offset >= text.text.size()) __builtin_trap();
    return 0;  // refused, with the byte named
  }
  constexpr int kClasses = 80;
  const yolo::LabelParseResult r = yolo::parse_label_text(text.text, kClasses);
  if (!r.error.empty()) return 0;  // the file is refused as a whole, with the line named
  for (const auto& b : r.boxes) {
    if (b.cls < 0 || b.cls >= kClasses) __builtin_trap();
    for (const float v : {b.cx, b.cy, b.w, b.h})
      if (!std::isfinite(v) || v < 0.0f || v > 1.0f) __builtin_trap();
  }
  return 0;
}
