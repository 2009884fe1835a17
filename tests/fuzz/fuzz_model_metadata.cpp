// config.txt inside a TorchScript model (ours or an Ultralytics export): whatever the bytes,
// ModelMetadata::from_json_text returns metadata whose sizes are usable or throws
// CheckpointError naming the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "yolo/models/model_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const yolo::ModelMetadata m = yolo::ModelMetadata::from_json_text(text, "fuzz.torchscript");
    if (m.imgsz.size() != 2 || m.imgsz[0] < 1 || m.imgsz[1] < 1 || m.stride < 1 || m.batch < 1 ||
        m.channels < 1)
      __builtin_trap();
    (void)m.to_json().dump();
  } catch (const yolo::CheckpointError&) {
  }
  return 0;
}
