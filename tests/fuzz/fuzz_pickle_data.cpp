// data.pkl inside a torch.save file (an Ultralytics .pt a user hands us): whatever the bytes,
// read_pickle_data returns a document whose tensors lie inside their storages, or throws
// PickleError; it never runs, loops or reads out of bounds.
#include <cstddef>
#include <cstdint>
#include <string>

#include "yolo/models/pickle_data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const yolo::pickle::Document doc = yolo::pickle::read_pickle_data(bytes, "fuzz.pkl");
    if (!doc.root) __builtin_trap();
    for (const auto& v : doc.arena) {
      (void)v->describe();
      if (!v->is(yolo::pickle::Value::Kind::kTensor)) continue;
      const yolo::pickle::TensorRef& t = *v->tensor;
      if (t.size.size() != t.stride.size() || t.offset < 0) __builtin_trap();
      uint64_t last = static_cast<uint64_t>(t.offset);
      bool empty = false;
      for (size_t i = 0; i < t.size.size(); ++i) {
        if (t.size[i] == 0) empty = true;
        if (t.size[i] > 0) last += static_cast<uint64_t>(t.size[i] - 1) * t.stride[i];
      }
      if (!empty && last >= static_cast<uint64_t>(t.storage.numel)) __builtin_trap();
    }
  } catch (const yolo::pickle::PickleError&) {
  }
  return 0;
}
