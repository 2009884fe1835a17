// Python pickles read as data, never run: the reader for torch.save checkpoints (Ultralytics'
// .pt files) written by people we do not know.
//
// A pickle is a program for a small stack machine; its GLOBAL opcode names any Python callable
// and REDUCE calls it, which is how a hostile .pt runs code in Python. Here nothing is called:
//   - the few functions torch.save and Ultralytics need (OrderedDict, set, torch.Size, the tensor
//     rebuilders, numpy scalars, bytes) are evaluated by this reader as the data they stand for;
//   - classes of the allowed families (torch.nn modules, Ultralytics' modules and namespaces)
//     become named records: class name, constructor arguments and the state BUILD gives them;
//   - any other global (os.system, builtins.eval, ...) refuses the whole file with its name.
// Tensors stay references to their storage records (data/<key> in the zip): the reader needs no
// LibTorch, so it can be fuzzed on its own.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "yolo/core/error.h"

namespace yolo::pickle {

// A pickle this reader refuses: malformed, truncated, or naming a global outside the allowed
// ones. what() says which opcode or name, and where.
class PickleError : public FailureError {
 public:
  using FailureError::FailureError;
};

struct Value;
// Values are owned by their Document; the memo lets one value appear in many places, and a
// hostile file can make cycles, so children are plain pointers into the document's arena.
using ValuePtr = Value*;

// A storage record of a torch.save archive: ('storage', torch.HalfStorage, '0', 'cpu', 3456).
struct StorageRef {
  std::string dtype;  // the storage class without "Storage": "Half", "Float", "Long", ...
  std::string key;    // the record is data/<key>
  std::string location;
  int64_t numel = 0;
};

// torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...), checked to lie inside
// its storage.
struct TensorRef {
  StorageRef storage;
  int64_t offset = 0;
  std::vector<int64_t> size, stride;
};

struct Value {
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kBytes,
    kList,
    kTuple,
    kDict,
    kTensor,
    kObject,
    kClass,
    kStorage
  };
  Kind kind = Kind::kNone;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::string text;                                    // kString, kBytes; kObject/kClass: class
  std::vector<ValuePtr> items;                         // kList, kTuple; kObject: constructor args
  std::vector<std::pair<ValuePtr, ValuePtr>> entries;  // kDict, in insertion order
  ValuePtr state;                                      // kObject: what BUILD set (usually a dict)
  std::shared_ptr<TensorRef> tensor;                   // kTensor
  std::shared_ptr<StorageRef> storage;                 // kStorage

  bool is(Kind k) const { return kind == k; }
  // kDict lookup by string key; nullptr when absent or not a dict.
  const Value* find(std::string_view key) const;
  // A short description for messages: "a dict", "the string 'x'", "a DetectionModel".
  std::string describe() const;
};

// One unpickled file: every value it made, and the one it returned.
struct Document {
  std::vector<std::unique_ptr<Value>> arena;
  const Value* root = nullptr;
};

// Reads one pickle (the binary opcodes of protocols 2-5; torch.save writes protocol 2). `source`
// names the data in errors ("best.pt: data.pkl"). Throws PickleError.
Document read_pickle_data(std::string_view bytes, const std::string& source);

// The element size in bytes of a storage dtype name ("Half" -> 2), or nullopt when unknown.
std::optional<int64_t> storage_element_size(std::string_view dtype);

}  // namespace yolo::pickle
