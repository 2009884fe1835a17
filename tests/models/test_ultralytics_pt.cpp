// Reading Ultralytics' .pt files as data: the pickle reader on hand-made byte strings, and
// hostile or wrong torch.save files (made by tests/models/make_hostile_pt.py with torch only)
// refused with a message naming what is wrong, with nothing in them run. The files Ultralytics
// really writes are read in tests/parity/test_ultralytics_pt_parity.cpp.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "run_command.h"
#include "test_files.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/pickle_data.h"
#include "yolo/models/ultralytics_checkpoint.h"

namespace fs = std::filesystem;
using yolo::pickle::Value;
using Kind = yolo::pickle::Value::Kind;
using namespace std::string_literals;

namespace {

std::string bytes(const char* s, size_t n) {
  return std::string(s, n);
}

std::string pickle_error(const std::string& data) {
  try {
    yolo::pickle::read_pickle_data(data, "test.pkl");
  } catch (const yolo::pickle::PickleError& e) {
    return e.what();
  }
  return "";
}

// GLOBAL module\nname\n
std::string global(const std::string& module, const std::string& name) {
  return "c" + module + "\n" + name + "\n";
}
std::string short_text(const std::string& s) {
  return "\x8c" + std::string(1, static_cast<char>(s.size())) + s;
}

// LONG1 of 8 bytes: any int64.
std::string long1(int64_t v) {
  std::string out = "\x8a\x08";
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF);
  return out;
}

// _rebuild_tensor_v2(('storage', FloatStorage, '0', 'cpu', numel), offset, size, stride, ...)
std::string tensor_pickle(int64_t numel, int64_t offset, int64_t size, int64_t stride) {
  std::string p = "\x80\x02";
  p += global("torch._utils", "_rebuild_tensor_v2");
  p += "(";  // MARK of the argument tuple
  p += "(" + short_text("storage") + global("torch", "FloatStorage") + short_text("0") +
       short_text("cpu") + long1(numel) + "tQ";
  p += long1(offset);
  p += long1(size) + "\x85";
  p += long1(stride) + "\x85";
  p += "\x89";
  p += global("collections", "OrderedDict") + ")R";
  p += "tR.";
  return p;
}

TEST(PickleData, ReadsPlainDataAndSharedValues) {
  // {'a': 1, 'b': [2.5, 'x'], 'c': <the same list>} with the list memoised and fetched again.
  std::string p = "\x80\x02}q\x00("s + short_text("a") + "K\x01" + short_text("b") +
                  "]q\x01(G\x40\x04\x00\x00\x00\x00\x00\x00"s + short_text("x") + "e" +
                  short_text("c") + "h\x01u.";
  const auto doc = yolo::pickle::read_pickle_data(p, "test.pkl");
  ASSERT_TRUE(doc.root->is(Kind::kDict));
  EXPECT_EQ(doc.root->find("a")->integer, 1);
  const Value* b = doc.root->find("b");
  ASSERT_TRUE(b && b->is(Kind::kList));
  ASSERT_EQ(b->items.size(), 2u);
  EXPECT_DOUBLE_EQ(b->items[0]->number, 2.5);
  EXPECT_EQ(b->items[1]->text, "x");
  EXPECT_EQ(doc.root->find("c"), b);
  EXPECT_EQ(doc.root->find("missing"), nullptr);
}

TEST(PickleData, AKeySetTwiceReadsAsPythonReadsIt) {
  // {'a': 1} then SETITEM 'a' = 2: Python's dict keeps the last.
  const std::string p = "\x80\x02}(" + short_text("a") + "K\x01u" + short_text("a") + "K\x02s.";
  const auto doc = yolo::pickle::read_pickle_data(p, "test.pkl");
  EXPECT_EQ(doc.root->find("a")->integer, 2);
}

TEST(PickleData, RefusesPicklesThatBuildFarMoreThanTheyHold) {
  // A list of 4000 memo references copied into a set over and over: each 7-byte step would
  // allocate 32 KB.
  std::string p = "\x80\x02]q\x00("s;
  for (int i = 0; i < 4000; ++i) p += "h\x00"s;
  p += "e" + global("builtins", "set") + "q\x01";
  for (int i = 0; i < 200000; ++i) p += "h\x01h\x00\x85R0"s;
  p += "N.";
  EXPECT_NE(pickle_error(p).find("builds far more data"), std::string::npos);
}

TEST(PickleData, ReadsIntegersOfEveryWidthAndSign) {
  // (-2 as BININT, 255 as BININT1, 65535 as BININT2, -129 and 2^40 as LONG1)
  std::string p = "\x80\x02(J" + bytes("\xfe\xff\xff\xff", 4) + "K\xff" + "M\xff\xff" + "\x8a\x02" +
                  bytes("\x7f\xff", 2) + "\x8a\x06" + bytes("\x00\x00\x00\x00\x00\x01", 6) + "t.";
  const auto doc = yolo::pickle::read_pickle_data(p, "test.pkl");
  ASSERT_EQ(doc.root->items.size(), 5u);
  EXPECT_EQ(doc.root->items[0]->integer, -2);
  EXPECT_EQ(doc.root->items[1]->integer, 255);
  EXPECT_EQ(doc.root->items[2]->integer, 65535);
  EXPECT_EQ(doc.root->items[3]->integer, -129);
  EXPECT_EQ(doc.root->items[4]->integer, int64_t(1) << 40);
}

TEST(PickleData, ReadsTensorReferencesInsideTheirStorage) {
  const auto doc = yolo::pickle::read_pickle_data(tensor_pickle(4, 1, 3, 1), "test.pkl");
  ASSERT_TRUE(doc.root->is(Kind::kTensor));
  EXPECT_EQ(doc.root->tensor->storage.dtype, "Float");
  EXPECT_EQ(doc.root->tensor->storage.key, "0");
  EXPECT_EQ(doc.root->tensor->offset, 1);
  EXPECT_EQ(doc.root->tensor->size, std::vector<int64_t>{3});
}

TEST(PickleData, RefusesTensorsReachingPastTheirStorage) {
  EXPECT_NE(pickle_error(tensor_pickle(4, 2, 3, 1)).find("reaches past"), std::string::npos);
  EXPECT_NE(pickle_error(tensor_pickle(4, 0, 3, 2)).find("reaches past"), std::string::npos);
  // Arithmetic that would wrap 64 bits: (2^32 + 1 - 1) * 2^32 = 2^64 lands on 0 when it wraps.
  EXPECT_NE(pickle_error(tensor_pickle(1, 0, (int64_t(1) << 32) + 1, int64_t(1) << 32))
                .find("reaches past"),
            std::string::npos);
  // A stride-0 view of one value: 2^33 elements out of 1.
  EXPECT_NE(pickle_error(tensor_pickle(1, 0, int64_t(1) << 33, 0)).find("holds more elements"),
            std::string::npos);
}

TEST(PickleData, RefusesGlobalsOutsideTheAllowedRecords) {
  for (const auto& [module, name] :
       std::vector<std::pair<std::string, std::string>>{{"os", "system"},
                                                        {"posix", "system"},
                                                        {"builtins", "eval"},
                                                        {"__builtin__", "exec"},
                                                        {"subprocess", "Popen"},
                                                        {"torch", "load"},
                                                        {"numpy", "load"}}) {
    const std::string p = "\x80\x02" + global(module, name) + "(" + short_text("id") + "tR.";
    const std::string e = pickle_error(p);
    EXPECT_NE(e.find("names the Python global '" + module + "." + name + "'"), std::string::npos)
        << e;
    EXPECT_NE(e.find("nothing in the file was run"), std::string::npos) << e;
  }
  // A record class may be built, but never called as a function through a non-record name.
  const std::string newobj = "\x80\x02" + global("collections", "OrderedDict") + ")\x81.";
  EXPECT_NE(pickle_error(newobj).find("not a record type"), std::string::npos);
}

TEST(PickleData, RefusesMalformedStreams) {
  EXPECT_NE(pickle_error("").find("truncated"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02}q\x00"s).find("truncated"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02X\xff\xff\xff\x7f"
                         "abc.")
                .find("runs past the end"),
            std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02h\x07.").find("no entry 7"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02.").find("no value"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02K\x01"
                         "a.")
                .find("no value"),
            std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02K\x01K\x02"
                         "a.")
                .find("not a list"),
            std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02I1\n.").find("opcode 'I'"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02\xff.").find("unknown opcode 0xff"), std::string::npos);
  EXPECT_NE(pickle_error("\x80\x02"
                         "e.")
                .find("no MARK"),
            std::string::npos);
}

TEST(PickleData, SurvivesCycles) {
  // A list appended to itself: read without looping or leaking (values live in the arena).
  const auto doc = yolo::pickle::read_pickle_data(
      "\x80\x02]q\x00h\x00"
      "a."s,
      "test.pkl");
  ASSERT_TRUE(doc.root->is(Kind::kList));
  ASSERT_EQ(doc.root->items.size(), 1u);
  EXPECT_EQ(doc.root->items[0], doc.root);
}

std::string load_error(const fs::path& path) {
  try {
    yolo::load_torchscript(path.string(), torch::kCPU);
  } catch (const yolo::CheckpointError& e) {
    return e.what();
  }
  return "";
}

TEST(UltralyticsPt, HostileAndWrongFilesAreRefusedAndNothingRuns) {
  yolo::testing::TempDir tmp("hostile_pt");
  const fs::path marker = tmp.path / "ran";
  const auto made = yolo::testing::run_command(
      std::string(YOLO_TEST_PYTHON) + " " + YOLO_SOURCE_DIR + "/tests/models/make_hostile_pt.py '" +
      (tmp.path / "files").string() + "' '" + marker.string() + "' 2>&1 | tail -n 1");
  const nlohmann::json files = nlohmann::json::parse(made.output, nullptr, false);
  if (!files.is_object()) GTEST_SKIP() << "the test Python has no torch: " << made.output;
  auto path = [&](const char* key) { return fs::path(files.at(key).get<std::string>()); };

  const std::vector<std::pair<const char*, std::vector<std::string>>> cases = {
      {"os_system", {"names the Python global 'posix.system'", "nothing in the file was run"}},
      {"builtins_exec", {"'__builtin__.exec'", "nothing in the file was run"}},
      {"state_dict", {"without an Ultralytics model", "bare state dict"}},
      {"shared_children", {"more than 100000 modules"}},
      {"stride0", {"holds more elements than, its storage"}},
      {"segment", {"Ultralytics segment model", "detection models only"}},
      {"pose", {"Ultralytics pose model", "detection models only"}},
      {"wrong_weights", {"do not fit the architecture", "missing model.0.conv.weight"}},
      {"missing_tensor", {"lacks the tensor record data/0", "copy the file again"}},
      {"truncated", {"truncated or corrupt"}},
  };
  for (const auto& [key, phrases] : cases) {
    SCOPED_TRACE(key);
    const std::string e = load_error(path(key));
    EXPECT_NE(e.find(path(key).string()), std::string::npos) << e;  // names the file
    for (const std::string& phrase : phrases) EXPECT_NE(e.find(phrase), std::string::npos) << e;
    // The trainer's way in (model= for train and export) refuses them the same way.
    EXPECT_THROW(
        yolo::build_ultralytics_model(yolo::read_ultralytics_checkpoint(path(key).string())),
        yolo::CheckpointError);
  }
  EXPECT_FALSE(fs::exists(marker)) << "a pickle's code ran";
  // Resuming takes only our own last.pt, and says what the .pt is good for.
  try {
    yolo::check_torchscript_file(path("wrong_weights").string());
    ADD_FAILURE() << "a torch.save file passed as TorchScript";
  } catch (const yolo::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("resumes only from its own last.pt"), std::string::npos);
  }
  EXPECT_TRUE(yolo::is_torch_save_file(path("wrong_weights").string()));
  EXPECT_FALSE(yolo::is_torch_save_file(path("truncated").string()));
}

}  // namespace
