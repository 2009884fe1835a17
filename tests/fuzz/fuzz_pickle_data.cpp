// data.pkl inside a torch.save file (an Ultralytics .pt a user hands us): whatever the bytes,
// read_pickle_data returns a document whose tensors lie inside their storages and hold no more
// elements than them, or throws
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
      if (t.size.size() != t.stride.size() || t.offset < 0 || t.size.size() > 16) __builtin_trap();
      // In doubles, another way than the reader's: exact below 2^53, and anything larger is
      // past any storage the reader accepts (2^40 elements at most).
      double last = static_cast<double>(t.offset), numel = 1;
      bool empty = false;
      for (size_t i = 0; i < t.size.size(); ++i) {
        if (t.size[i] < 0 || t.stride[i] < 0) __builtin_trap();
        if (t.size[i] == 0) empty = true;
        if (t.size[i] > 0) last += static_cast<double>(t.size[i] - 1) * t.stride[i];
        numel *= static_cast<double>(t.size[i]);
      }
      const auto storage = static_cast<double>(t.storage.numel);
      if (!empty && (last >= storage || numel > storage)) __builtin_trap();
    }
  } catch (const yolo::pickle::PickleError&) {
  }
  return 0;
}
