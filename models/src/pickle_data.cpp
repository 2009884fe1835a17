#include "yolo/models/pickle_data.h"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

namespace yolo::pickle {

namespace {

using Kind = Value::Kind;

// Functions evaluated here as the data they build (never called).
enum class Builtin {
  kOrderedDict,
  kSet,
  kSize,
  kEncode,
  kRebuildTensor,
  kRebuildParameter,
  kNumpyScalar,
  kNumpyDtype,
  kPath,
  kDevice
};

const std::unordered_map<std::string, Builtin>& builtins() {
  static const std::unordered_map<std::string, Builtin> table = {
      {"collections.OrderedDict", Builtin::kOrderedDict},
      {"__builtin__.set", Builtin::kSet},
      {"builtins.set", Builtin::kSet},
      {"__builtin__.frozenset", Builtin::kSet},
      {"builtins.frozenset", Builtin::kSet},
      {"torch.Size", Builtin::kSize},
      {"_codecs.encode", Builtin::kEncode},
      {"torch._utils._rebuild_tensor", Builtin::kRebuildTensor},
      {"torch._utils._rebuild_tensor_v2", Builtin::kRebuildTensor},
      {"torch._utils._rebuild_parameter", Builtin::kRebuildParameter},
      {"torch._utils._rebuild_parameter_with_state", Builtin::kRebuildParameter},
      {"numpy.core.multiarray.scalar", Builtin::kNumpyScalar},
      {"numpy._core.multiarray.scalar", Builtin::kNumpyScalar},
      {"numpy.dtype", Builtin::kNumpyDtype},
      {"pathlib.Path", Builtin::kPath},
      {"pathlib.PosixPath", Builtin::kPath},
      {"pathlib.WindowsPath", Builtin::kPath},
      {"torch.device", Builtin::kDevice},
  };
  return table;
}

// Classes whose instances become records: torch's layers and Ultralytics' own types (models,
// blocks, namespaces of settings). Python would run their __new__/__setstate__; here their
// state is only kept.
bool is_record_class(const std::string& name) {
  return name.rfind("torch.nn.modules.", 0) == 0 || name.rfind("ultralytics.", 0) == 0 ||
         name == "types.SimpleNamespace" || name == "argparse.Namespace";
}

// torch.HalfStorage -> "Half"; empty when the name is not a typed storage class.
std::string storage_dtype(const std::string& name) {
  static const std::string prefix = "torch.", suffix = "Storage";
  if (name.rfind(prefix, 0) != 0 || name.size() <= prefix.size() + suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return {};
  std::string dtype = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  return storage_element_size(dtype) ? dtype : std::string();
}

// torch.float16 and its kin: dtypes may appear as values (never called).
bool is_torch_dtype(const std::string& name) {
  static const std::unordered_set<std::string> names = {
      "torch.float16", "torch.float32", "torch.float64", "torch.bfloat16", "torch.half",
      "torch.float",   "torch.double",  "torch.int64",   "torch.int32",    "torch.int16",
      "torch.int8",    "torch.uint8",   "torch.bool",    "torch.long",     "torch.int"};
  return names.count(name) > 0;
}

class Reader {
 public:
  // What the values may take: a pickle's values are about 100 bytes per input byte at most when
  // honest (Ultralytics' data.pkl: 180 KB of pickle, 60 000 values); a hostile one can ask for
  // far more by copying memoised lists into sets and tuples again and again.
  Reader(std::string_view bytes, const std::string& source)
      : in_(bytes), source_(source), budget_(64 * bytes.size() + (size_t(64) << 20)) {}

  Document run() {
    while (true) {
      if (pos_ >= in_.size()) fail("the data ends before its STOP opcode (truncated)");
      const size_t at = pos_;
      const unsigned char op = static_cast<unsigned char>(in_[pos_++]);
      if (op == '.') {
        doc_.root = pop("STOP");
        return std::move(doc_);
      }
      step(op, at);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw PickleError(fmt::format("{}: {} (at byte {})", source_, what, pos_));
  }

  std::string_view take(uint64_t n) {
    if (n > in_.size() - pos_)
      fail(fmt::format("a field of {} bytes runs past the end of the data (truncated)", n));
    std::string_view out = in_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return out;
  }
  uint64_t unsigned_le(int n) {
    std::string_view b = take(n);
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[i]);
    return v;
  }
  int64_t signed_le(uint64_t n) {
    if (n == 0) return 0;
    if (n > 8) fail(fmt::format("an integer of {} bytes is larger than 64 bits", n));
    uint64_t v = unsigned_le(static_cast<int>(n));
    if (n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);  // sign-extend
    int64_t out;
    std::memcpy(&out, &v, sizeof out);
    return out;
  }
  std::string line() {
    const size_t end = in_.find('\n', pos_);
    if (end == std::string_view::npos) fail("a GLOBAL name has no end (truncated)");
    std::string out(in_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
  }

  void charge(size_t bytes) {
    if (bytes > budget_)
      fail(fmt::format("the pickle builds far more data than its {} bytes hold; refused",
                       in_.size()));
    budget_ -= bytes;
  }

  Value* make(Kind kind) {
    charge(sizeof(Value));
    doc_.arena.push_back(std::make_unique<Value>());
    doc_.arena.back()->kind = kind;
    return doc_.arena.back().get();
  }
  Value* make_int(int64_t v) {
    Value* x = make(Kind::kInt);
    x->integer = v;
    return x;
  }
  Value* make_text(Kind kind, std::string_view text) {
    charge(text.size());
    Value* x = make(kind);
    x->text = std::string(text);
    return x;
  }

  void push(Value* v) { stack_.push_back(v); }
  Value* pop(const char* op) {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back()))
      fail(fmt::format("{} finds no value on the stack", op));
    Value* v = stack_.back();
    stack_.pop_back();
    return v;
  }
  Value* top(const char* op) {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back()))
      fail(fmt::format("{} finds no value on the stack", op));
    return stack_.back();
  }
  // The values above the newest MARK, which is removed.
  std::vector<Value*> pop_mark(const char* op) {
    if (marks_.empty()) fail(fmt::format("{} finds no MARK", op));
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<Value*> out(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return out;
  }
  Value* make_seq(Kind kind, std::vector<Value*> items) {
    charge(items.size() * sizeof(Value*));
    Value* x = make(kind);
    x->items = std::move(items);
    return x;
  }
  Value* memo_get(uint64_t key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) fail(fmt::format("the memo has no entry {}", key));
    return it->second;
  }

  void append(Value* list, const std::vector<Value*>& items, const char* op) {
    if (!list->is(Kind::kList)) fail(fmt::format("{} on {}, not a list", op, list->describe()));
    charge(items.size() * sizeof(Value*));
    list->items.insert(list->items.end(), items.begin(), items.end());
  }
  void set_items(Value* dict, const std::vector<Value*>& kv, const char* op) {
    if (!dict->is(Kind::kDict)) fail(fmt::format("{} on {}, not a dict", op, dict->describe()));
    if (kv.size() % 2) fail(fmt::format("{} has a key without a value", op));
    charge(kv.size() * sizeof(Value*));
    // A key set twice stays twice; find() returns the last, as Python's dict keeps the last.
    for (size_t i = 0; i < kv.size(); i += 2) dict->entries.emplace_back(kv[i], kv[i + 1]);
  }

  Value* global(const std::string& module, const std::string& name) {
    const std::string full = module + "." + name;
    if (!builtins().count(full) && !is_record_class(full) && storage_dtype(full).empty() &&
        !is_torch_dtype(full)) {
      fail(fmt::format(
          "it names the Python global '{}', which a checkpoint of weights has no use for; refused, "
          "nothing in the file was run (only torch's tensors and modules, Ultralytics' records and "
          "plain data are read)",
          full));
    }
    return make_text(Kind::kClass, full);
  }

  std::vector<int64_t> int_tuple(const Value* v, const char* what) {
    if (!v->is(Kind::kTuple) && !v->is(Kind::kList))
      fail(fmt::format("a tensor's {} is {}, not a tuple", what, v->describe()));
    std::vector<int64_t> out;
    for (const Value* x : v->items) {
      if (!x->is(Kind::kInt) || x->integer < 0)
        fail(fmt::format("a tensor's {} holds {}, not a size", what, x->describe()));
      out.push_back(x->integer);
    }
    return out;
  }

  Value* rebuild_tensor(const std::vector<Value*>& args) {
    if (args.size() < 4 || !args[0]->is(Kind::kStorage) || !args[1]->is(Kind::kInt))
      fail("a tensor is rebuilt from arguments that are not (storage, offset, size, stride)");
    auto t = std::make_shared<TensorRef>();
    t->storage = *args[0]->storage;
    t->offset = args[1]->integer;
    t->size = int_tuple(args[2], "size");
    t->stride = int_tuple(args[3], "stride");
    if (t->size.size() != t->stride.size())
      fail("a tensor's size and stride have different lengths");
    // The last element the view reaches must lie in the storage, and the view may hold no more
    // elements than the storage (a stride-0 view of one value would expand to any size when
    // copied): a hostile file must not make a tensor read past, or blow up, the bytes it holds.
    // Checked arithmetic: any sum or product past 64 bits is past the storage (at most 2^40).
    if (t->offset < 0 || t->offset > (int64_t(1) << 40) || t->size.size() > 16)
      fail("a tensor's offset or rank is impossibly large");
    bool empty = false, overflow = false;
    uint64_t last = static_cast<uint64_t>(t->offset), numel = 1;
    for (size_t i = 0; i < t->size.size(); ++i) {
      if (t->size[i] > (int64_t(1) << 40) || t->stride[i] > (int64_t(1) << 40))
        fail("a tensor's size or stride is impossibly large");
      if (t->size[i] == 0) empty = true;
      uint64_t reach = 0;
      if (t->size[i] > 0)
        overflow |= __builtin_mul_overflow(static_cast<uint64_t>(t->size[i] - 1),
                                           static_cast<uint64_t>(t->stride[i]), &reach) ||
                    __builtin_add_overflow(last, reach, &last);
      overflow |= __builtin_mul_overflow(numel, static_cast<uint64_t>(t->size[i]), &numel);
    }
    const auto storage_numel = static_cast<uint64_t>(t->storage.numel);
    if (!empty && (overflow || last >= storage_numel || numel > storage_numel))
      fail(
          fmt::format("a tensor reaches past, or holds more elements than, its storage '{}' ({} "
                      "elements)",
                      t->storage.key, t->storage.numel));
    Value* x = make(Kind::kTensor);
    x->tensor = std::move(t);
    return x;
  }

  // _codecs.encode(text, 'latin1'): how protocol 2 writes Python 3 bytes.
  Value* encode_latin1(const std::vector<Value*>& args) {
    if (args.size() != 2 || !args[0]->is(Kind::kString) || !args[1]->is(Kind::kString) ||
        (args[1]->text != "latin1" && args[1]->text != "latin-1"))
      fail("_codecs.encode is given something other than (text, 'latin1')");
    std::string out;
    const std::string& s = args[0]->text;
    for (size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c < 0x80) {
        out.push_back(static_cast<char>(c));
      } else if ((c & 0xE0) == 0xC0 && i + 1 < s.size()) {  // U+0080..U+00FF: two bytes
        const unsigned cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(s[++i]) & 0x3Fu);
        if (cp > 0xFF) fail("_codecs.encode: a character outside latin1");
        out.push_back(static_cast<char>(cp));
      } else {
        fail("_codecs.encode: a character outside latin1");
      }
    }
    return make_text(Kind::kBytes, out);
  }

  // numpy.core.multiarray.scalar(dtype, bytes): a numpy number, e.g. a float64 fitness.
  Value* numpy_scalar(const std::vector<Value*>& args) {
    if (args.size() != 2 || !args[0]->is(Kind::kObject) || args[0]->text != "numpy.dtype" ||
        args[0]->items.empty() || !args[0]->items[0]->is(Kind::kString) ||
        !args[1]->is(Kind::kBytes))
      fail("a numpy scalar is given something other than (dtype, bytes)");
    const std::string& code = args[0]->items[0]->text;
    const std::string& b = args[1]->text;
    auto read = [&](auto v) {
      if (b.size() != sizeof v) fail(fmt::format("a numpy {} scalar of {} bytes", code, b.size()));
      std::memcpy(&v, b.data(), sizeof v);
      return v;
    };
    if (code == "f8") {
      Value* x = make(Kind::kFloat);
      x->number = read(double{});
      return x;
    }
    if (code == "f4") {
      Value* x = make(Kind::kFloat);
      x->number = read(float{});
      return x;
    }
    if (code == "i8") return make_int(read(int64_t{}));
    if (code == "i4") return make_int(read(int32_t{}));
    if (code == "b1") {
      Value* x = make(Kind::kBool);
      x->boolean = read(uint8_t{}) != 0;
      return x;
    }
    fail(fmt::format("a numpy scalar of dtype '{}', which this reader does not take", code));
  }

  Value* call(const Value* callable, const std::vector<Value*>& args) {
    const std::string& name = callable->text;
    if (is_record_class(name)) {
      charge(args.size() * sizeof(Value*));
      Value* x = make_text(Kind::kObject, name);
      x->items = args;
      return x;
    }
    auto it = builtins().find(name);
    if (it == builtins().end()) fail(fmt::format("'{}' is called, and it is not a function", name));
    switch (it->second) {
      case Builtin::kOrderedDict: {
        Value* d = make(Kind::kDict);
        if (!args.empty() && (args[0]->is(Kind::kList) || args[0]->is(Kind::kTuple))) {
          for (const Value* pair : args[0]->items) {
            if (!pair->is(Kind::kTuple) || pair->items.size() != 2)
              fail("OrderedDict is given an item that is not a (key, value) pair");
            d->entries.emplace_back(pair->items[0], pair->items[1]);
          }
        }
        return d;
      }
      case Builtin::kSet:
        return make_seq(Kind::kList,
                        args.empty() || !(args[0]->is(Kind::kList) || args[0]->is(Kind::kTuple))
                            ? std::vector<Value*>{}
                            : args[0]->items);
      case Builtin::kSize:
        if (args.size() != 1 || !args[0]->is(Kind::kTuple)) fail("torch.Size of a non-tuple");
        return make_seq(Kind::kTuple, args[0]->items);
      case Builtin::kEncode:
        return encode_latin1(args);
      case Builtin::kRebuildTensor:
        return rebuild_tensor(args);
      case Builtin::kRebuildParameter:
        if (args.empty() || !args[0]->is(Kind::kTensor)) fail("a parameter of a non-tensor");
        return args[0];
      case Builtin::kNumpyScalar:
        return numpy_scalar(args);
      case Builtin::kNumpyDtype: {
        Value* x = make_text(Kind::kObject, name);
        x->items = args;
        return x;
      }
      case Builtin::kPath: {
        std::string path;
        for (const Value* part : args) {
          if (!part->is(Kind::kString)) fail("a pathlib path with a part that is not text");
          path += (path.empty() || path.back() == '/' ? "" : "/") + part->text;
        }
        return make_text(Kind::kString, path);
      }
      case Builtin::kDevice:
        if (args.empty() || !args[0]->is(Kind::kString)) fail("torch.device of a non-string");
        return make_text(Kind::kString, args[0]->text);
    }
    fail("unreachable");
  }

  Value* persistent_load(const Value* pid) {
    if (!pid->is(Kind::kTuple) || pid->items.size() != 5 || !pid->items[0]->is(Kind::kString) ||
        pid->items[0]->text != "storage" || !pid->items[1]->is(Kind::kClass) ||
        !pid->items[2]->is(Kind::kString) || !pid->items[3]->is(Kind::kString) ||
        !pid->items[4]->is(Kind::kInt))
      fail("a persistent id that is not a torch storage ('storage', type, key, location, numel)");
    const std::string dtype = storage_dtype(pid->items[1]->text);
    if (dtype.empty()) fail(fmt::format("a storage of type '{}'", pid->items[1]->text));
    const std::string& key = pid->items[2]->text;
    if (key.empty() || key.find('/') != std::string::npos || key.find("..") != std::string::npos)
      fail(fmt::format("a storage key '{}' that is not a record name", key));
    if (pid->items[4]->integer < 0 || pid->items[4]->integer > (int64_t(1) << 40))
      fail("a storage with an impossible size");
    Value* x = make(Kind::kStorage);
    x->storage = std::make_shared<StorageRef>(
        StorageRef{dtype, key, pid->items[3]->text, pid->items[4]->integer});
    return x;
  }

  void build(Value* obj, Value* state) {
    if (obj->is(Kind::kObject)) {
      // (dict, slots) is how objects with __slots__ keep their state; the dict part is kept.
      if (state->is(Kind::kTuple) && state->items.size() == 2 && state->items[0]->is(Kind::kDict))
        state = state->items[0];
      obj->state = state;
      return;
    }
    // An OrderedDict's instance attributes (a state_dict's _metadata): not data we read.
    if (obj->is(Kind::kDict)) return;
    fail(fmt::format("BUILD sets the state of {}, which takes none", obj->describe()));
  }

  void step(unsigned char op, size_t at) {
    if (scalar_op(op) || text_op(op) || container_op(op) || object_op(op)) return;
    pos_ = at;
    fail(
        op >= 0x20 && op < 0x7f
            ? fmt::format("opcode '{}' (a text-protocol or unknown opcode torch.save never writes)",
                          static_cast<char>(op))
            : fmt::format("unknown opcode 0x{:02x}", op));
  }

  // Framing, the stack's marks, constants and numbers. False: not one of these.
  bool scalar_op(unsigned char op) {
    switch (op) {
      case 0x80:
        take(1);
        return true;  // PROTO
      case 0x95:
        take(8);
        return true;  // FRAME: a length hint only
      case '(':
        marks_.push_back(stack_.size());
        return true;
      case '0':
        pop("POP");
        return true;
      case '1':
        pop_mark("POP_MARK");
        return true;
      case '2':
        push(top("DUP"));
        return true;
      case 'N':
        push(make(Kind::kNone));
        return true;
      case 0x88:
      case 0x89: {
        Value* b = make(Kind::kBool);
        b->boolean = op == 0x88;
        push(b);
        return true;
      }
      case 'J':
        push(make_int(signed_le(4)));
        return true;
      case 'K':
        push(make_int(static_cast<int64_t>(unsigned_le(1))));
        return true;
      case 'M':
        push(make_int(static_cast<int64_t>(unsigned_le(2))));
        return true;
      case 0x8a:
        push(make_int(signed_le(unsigned_le(1))));
        return true;  // LONG1
      case 0x8b:
        push(make_int(signed_le(unsigned_le(4))));
        return true;  // LONG4
      case 'G': {
        std::string_view b = take(8);
        uint64_t bits = 0;
        for (char c : b) bits = (bits << 8) | static_cast<unsigned char>(c);  // big-endian
        Value* x = make(Kind::kFloat);
        std::memcpy(&x->number, &bits, sizeof bits);
        push(x);
        return true;
      }
      default:
        return false;
    }
  }

  // Strings and bytes, each length-prefixed. False: not one of these.
  bool text_op(unsigned char op) {
    switch (op) {
      case 'X':
        push(make_text(Kind::kString, take(unsigned_le(4))));
        return true;
      case 0x8c:
        push(make_text(Kind::kString, take(unsigned_le(1))));
        return true;
      case 0x8d:
        push(make_text(Kind::kString, take(unsigned_le(8))));
        return true;
      case 'T':
        push(make_text(Kind::kString, take(unsigned_le(4))));
        return true;  // Python 2
      case 'U':
        push(make_text(Kind::kString, take(unsigned_le(1))));
        return true;
      case 'B':
        push(make_text(Kind::kBytes, take(unsigned_le(4))));
        return true;
      case 'C':
        push(make_text(Kind::kBytes, take(unsigned_le(1))));
        return true;
      case 0x8e:
      case 0x96:
        push(make_text(Kind::kBytes, take(unsigned_le(8))));
        return true;
      default:
        return false;
    }
  }

  // Tuples, lists, sets (read as lists) and dicts. False: not one of these.
  bool container_op(unsigned char op) {
    switch (op) {
      case ')':
        push(make(Kind::kTuple));
        return true;
      case 't':
        push(make_seq(Kind::kTuple, pop_mark("TUPLE")));
        return true;
      case 0x85:
      case 0x86:
      case 0x87: {
        std::vector<Value*> items(op - 0x84);
        for (auto it = items.rbegin(); it != items.rend(); ++it) *it = pop("TUPLEn");
        push(make_seq(Kind::kTuple, std::move(items)));
        return true;
      }
      case ']':
      case 0x8f:
        push(make(Kind::kList));
        return true;  // EMPTY_LIST, EMPTY_SET
      case 'l':
        push(make_seq(Kind::kList, pop_mark("LIST")));
        return true;
      case 0x91:
        push(make_seq(Kind::kList, pop_mark("FROZENSET")));
        return true;
      case 'a': {
        Value* v = pop("APPEND");
        append(top("APPEND"), {v}, "APPEND");
        return true;
      }
      case 'e':
      case 0x90: {  // APPENDS, ADDITEMS
        const char* name = op == 'e' ? "APPENDS" : "ADDITEMS";
        std::vector<Value*> items = pop_mark(name);
        append(top(name), items, name);
        return true;
      }
      case '}':
        push(make(Kind::kDict));
        return true;
      case 'd': {
        Value* d = make(Kind::kDict);
        set_items(d, pop_mark("DICT"), "DICT");
        push(d);
        return true;
      }
      case 's': {
        Value* v = pop("SETITEM");
        Value* k = pop("SETITEM");
        set_items(top("SETITEM"), {k, v}, "SETITEM");
        return true;
      }
      case 'u': {
        std::vector<Value*> kv = pop_mark("SETITEMS");
        set_items(top("SETITEMS"), kv, "SETITEMS");
        return true;
      }
      default:
        return false;
    }
  }

  // Globals, calls, objects, the memo and persistent ids. False: not one of these.
  bool object_op(unsigned char op) {
    switch (op) {
      case 'c': {
        const std::string module = line();
        push(global(module, line()));
        return true;
      }
      case 0x93: {
        Value* name = pop("STACK_GLOBAL");
        Value* module = pop("STACK_GLOBAL");
        if (!name->is(Kind::kString) || !module->is(Kind::kString))
          fail("STACK_GLOBAL of names that are not text");
        push(global(module->text, name->text));
        return true;
      }
      case 'R': {
        Value* args = pop("REDUCE");
        Value* callable = pop("REDUCE");
        if (!callable->is(Kind::kClass)) fail(fmt::format("REDUCE calls {}", callable->describe()));
        if (!args->is(Kind::kTuple)) fail("REDUCE with arguments that are not a tuple");
        push(call(callable, args->items));
        return true;
      }
      case 0x81:
      case 0x92: {  // NEWOBJ, NEWOBJ_EX (its keyword arguments are dropped)
        if (op == 0x92) pop("NEWOBJ_EX");
        Value* args = pop("NEWOBJ");
        Value* cls = pop("NEWOBJ");
        if (!cls->is(Kind::kClass) || !is_record_class(cls->text))
          fail(fmt::format("NEWOBJ makes an instance of {}, which is not a record type",
                           cls->describe()));
        if (!args->is(Kind::kTuple)) fail("NEWOBJ with arguments that are not a tuple");
        charge(args->items.size() * sizeof(Value*));
        Value* x = make_text(Kind::kObject, cls->text);
        x->items = args->items;
        push(x);
        return true;
      }
      case 'b': {
        Value* state = pop("BUILD");
        build(top("BUILD"), state);
        return true;
      }
      case 'q':
        memo_[unsigned_le(1)] = top("BINPUT");
        return true;
      case 'r':
        memo_[unsigned_le(4)] = top("LONG_BINPUT");
        return true;
      case 0x94: {
        Value* v = top("MEMOIZE");
        memo_[memo_.size()] = v;
        return true;
      }
      case 'h':
        push(memo_get(unsigned_le(1)));
        return true;
      case 'j':
        push(memo_get(unsigned_le(4)));
        return true;
      case 'Q':
        push(persistent_load(pop("BINPERSID")));
        return true;
      default:
        return false;
    }
  }

  std::string_view in_;
  std::string source_;
  size_t pos_ = 0;
  std::vector<Value*> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, Value*> memo_;
  size_t budget_;
  Document doc_;
};

}  // namespace

const Value* Value::find(std::string_view key) const {
  if (kind != Kind::kDict) return nullptr;
  // The last of a key set twice, as a Python dict keeps it.
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (it->first->kind == Kind::kString && it->first->text == key) return it->second;
  return nullptr;
}

std::string Value::describe() const {
  switch (kind) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return boolean ? "True" : "False";
    case Kind::kInt:
      return fmt::format("the integer {}", integer);
    case Kind::kFloat:
      return fmt::format("the number {}", number);
    case Kind::kString:
      return fmt::format("the text '{}'", text.substr(0, 40));
    case Kind::kBytes:
      return fmt::format("{} bytes", text.size());
    case Kind::kList:
      return fmt::format("a list of {}", items.size());
    case Kind::kTuple:
      return fmt::format("a tuple of {}", items.size());
    case Kind::kDict:
      return fmt::format("a dict of {}", entries.size());
    case Kind::kTensor:
      return "a tensor";
    case Kind::kObject:
      return fmt::format("a {}", text.substr(text.rfind('.') + 1));
    case Kind::kClass:
      return fmt::format("the global '{}'", text);
    case Kind::kStorage:
      return "a storage";
  }
  return "a value";
}

Document read_pickle_data(std::string_view bytes, const std::string& source) {
  return Reader(bytes, source).run();
}

std::optional<int64_t> storage_element_size(std::string_view dtype) {
  static const std::array<std::pair<std::string_view, int64_t>, 10> sizes = {{{"Float", 4},
                                                                              {"Double", 8},
                                                                              {"Half", 2},
                                                                              {"BFloat16", 2},
                                                                              {"Long", 8},
                                                                              {"Int", 4},
                                                                              {"Short", 2},
                                                                              {"Char", 1},
                                                                              {"Byte", 1},
                                                                              {"Bool", 1}}};
  for (const auto& [name, size] : sizes)
    if (name == dtype) return size;
  return std::nullopt;
}

}  // namespace yolo::pickle
