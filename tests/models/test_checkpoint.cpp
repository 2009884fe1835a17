// Checkpoints: export -> load gives the eager fused outputs, metadata with Ultralytics' keys,
// exact restore of our own weights, Python interoperability, and clear errors for bad files.
#include <caffe2/serialize/inline_container.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "test_files.h"
#include "yolo/core/zip_integrity.h"
#include "yolo/models/checkpoint.h"

namespace fs = std::filesystem;

namespace {

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / "yolo_checkpoint_test";
  fs::create_directories(d);
  return d;
}

std::string load_error(const std::string& path) {
  try {
    yolo::load_torchscript(path, torch::kCPU);
  } catch (const yolo::CheckpointError& e) {
    return e.what();
  }
  return "";
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  yolo::testing::write_file(p, bytes);
}

std::string read_bytes(const fs::path& p) {
  return yolo::testing::read_file(p);
}

}  // namespace

// YOLO26 twice: through the one-to-many head with NMS (the default, Ultralytics' nms=None) and
// through the NMS-free one-to-one head (nms=False).
TEST(Checkpoint, ExportLoadMatchesEagerFused) {
  torch::manual_seed(1);
  for (const auto& [name, one2one] :
       {std::pair{"yolov8n.yaml", false}, {"yolo26n.yaml", false}, {"yolo26n.yaml", true}}) {
    auto model = yolo::build_model(name, 3);
    model->names = {{0, "cat"}, {1, "dog"}, {2, "bird"}};
    model->detect().use_one2one = one2one;
    const fs::path path =
        temp_dir() / (std::string(name) + (one2one ? "-nms-free" : "") + ".torchscript");
    yolo::ExportOptions opts;
    opts.height = 256;
    opts.width = 320;
    auto meta = yolo::export_torchscript(*model, opts, path);
    EXPECT_EQ(meta.imgsz, (std::vector<int64_t>{256, 320}));

    auto fused = yolo::clone_model(*model);
    fused->eval();
    fused->fuse();
    torch::NoGradGuard no_grad;
    torch::Tensor x = torch::rand({1, 3, 256, 320});
    torch::Tensor expected = fused->forward(x);

    auto loaded = yolo::load_torchscript(path.string(), torch::kCPU);
    torch::Tensor got = loaded.module.forward({x}).toTensor();
    ASSERT_EQ(got.sizes(), expected.sizes()) << name;
    EXPECT_LE((got - expected).abs().max().item<double>(), 1e-4) << name;
    // The batch stays free in the trace: two images give the same per-image results.
    torch::Tensor two = loaded.module.forward({torch::cat({x, x})}).toTensor();
    EXPECT_LE((two[1] - expected[0]).abs().max().item<double>(), 1e-4) << name;

    EXPECT_EQ(loaded.metadata.task, "detect");
    EXPECT_EQ(loaded.metadata.stride, 32);
    EXPECT_EQ(loaded.metadata.imgsz, (std::vector<int64_t>{256, 320}));
    EXPECT_EQ(loaded.metadata.names.at(1), "dog");
    EXPECT_EQ(loaded.metadata.end2end, one2one) << name;
    // (1, 300, 6) rows from the NMS-free head, else (1, 4 + nc, anchors) for NMS.
    const int64_t anchors = 32 * 40 + 16 * 20 + 8 * 10;
    const std::vector<int64_t> rows{1, 300, 6}, raw{1, 7, anchors};
    EXPECT_EQ(got.sizes().vec(), one2one ? rows : raw) << name;
    EXPECT_EQ(loaded.metadata.channels, 3);
    // Parameters are module attributes with Ultralytics' names, not anonymous constants.
    bool found = false;
    for (const auto& p : loaded.module.named_parameters()) found |= p.name == "model.0.conv.weight";
    EXPECT_TRUE(found) << name;
  }
}

// The trainer saves every epoch through one exporter: later saves reuse the first trace with
// the new weights, so each file must equal a fresh export of the weights it was saved from.
TEST(Checkpoint, ExporterReusesItsTraceWithNewWeights) {
  torch::manual_seed(2);
  auto model = yolo::build_model("yolov8n.yaml", 2);
  model->train();
  {  // non-trivial BatchNorm statistics, so that fusing them matters
    torch::NoGradGuard no_grad;
    model->forward_train(torch::rand({2, 3, 64, 64}));
  }
  model->eval();
  yolo::ExportOptions opts;
  opts.height = opts.width = 64;
  yolo::TorchScriptExporter exporter(opts);
  const fs::path first = temp_dir() / "exporter_first.torchscript";
  const fs::path second = temp_dir() / "exporter_second.torchscript";
  const fs::path fresh = temp_dir() / "exporter_fresh.torchscript";
  exporter.save(*model, first);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model->parameters()) p.add_(torch::randn_like(p) * 0.05);
    for (auto& b : model->named_buffers())
      if (b.key().find("running_var") != std::string::npos) b.value().mul_(1.5);
  }
  exporter.save(*model, second);
  yolo::export_torchscript(*model, opts, fresh);

  torch::NoGradGuard no_grad;
  const torch::Tensor x = torch::rand({1, 3, 64, 64});
  auto out = [&](const fs::path& p) {
    return yolo::load_torchscript(p.string(), torch::kCPU).module.forward({x}).toTensor();
  };
  const torch::Tensor a = out(first), b = out(second), c = out(fresh);
  EXPECT_GT((a - b).abs().max().item<double>(), 1e-2) << "the second save kept the old weights";
  EXPECT_LE((b - c).abs().max().item<double>(), 1e-5);
  auto restored = yolo::load_eager_model(second.string());  // the unfused weights are new too
  for (const auto& p : model->named_parameters())
    EXPECT_TRUE(torch::equal(p.value(), restored->named_parameters()[p.key()])) << p.key();

  // Another architecture through the same exporter is traced anew, not forced into the old one.
  auto other = yolo::build_model("yolo26n.yaml", 2);
  const fs::path third = temp_dir() / "exporter_other.torchscript";
  other->detect().use_one2one = true;
  auto meta = exporter.save(*other, third);
  EXPECT_TRUE(meta.end2end);
  auto fused = yolo::clone_model(*other);
  fused->eval();
  fused->fuse();
  const torch::Tensor expected = fused->forward(x);
  const torch::Tensor got = out(third);
  ASSERT_EQ(got.sizes(), expected.sizes());
  EXPECT_LE((got - expected).abs().max().item<double>(), 1e-4);
}

TEST(Checkpoint, ExportRoundsImgszToStrideAndRefusesHalfOnCpu) {
  auto model = yolo::build_model("yolov8n.yaml", 2);
  yolo::ExportOptions opts;
  opts.height = 100;
  opts.width = 130;
  auto meta = yolo::export_torchscript(*model, opts, temp_dir() / "round.torchscript");
  EXPECT_EQ(meta.imgsz, (std::vector<int64_t>{128, 160}));
  opts.half = true;
  EXPECT_THROW(yolo::export_torchscript(*model, opts, temp_dir() / "half.torchscript"),
               yolo::CheckpointError);
  EXPECT_FALSE(fs::exists(temp_dir() / "half.torchscript"));
}

TEST(Checkpoint, OwnCheckpointRestoresExactly) {
  auto model = yolo::build_model("yolo11n.yaml", 2);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model->parameters()) p.add_(torch::randn_like(p) * 0.01);
  }
  model->names = {{0, "a"}, {1, "b"}};
  const fs::path path = temp_dir() / "restore.torchscript";
  yolo::ExportOptions opts;
  opts.height = opts.width = 64;
  yolo::export_torchscript(*model, opts, path);
  auto restored = yolo::load_eager_model(path.string());
  auto a = model->named_parameters(), b = restored->named_parameters();
  ASSERT_EQ(a.size(), b.size());
  for (const auto& p : a) EXPECT_TRUE(torch::equal(p.value(), b[p.key()])) << p.key();
  auto ab = model->named_buffers(), bb = restored->named_buffers();
  for (const auto& p : ab) EXPECT_TRUE(torch::equal(p.value(), bb[p.key()])) << p.key();
  EXPECT_EQ(restored->names.at(1), "b");
  EXPECT_EQ(restored->config().scale, "n");
}

TEST(Checkpoint, MetadataVariantsFromUltralytics) {
  auto m = yolo::ModelMetadata::from_json_text(
      R"({"stride": 32, "task": "detect", "batch": 1, "imgsz": [640, 480],
          "names": {"0": "person", "1": "bicycle"}, "end2end": true, "channels": 3})",
      "x");
  EXPECT_EQ(m.imgsz, (std::vector<int64_t>{640, 480}));
  EXPECT_EQ(m.names.at(1), "bicycle");
  EXPECT_TRUE(m.end2end);
  // Older exports: Python literals as strings, int keys.
  m = yolo::ModelMetadata::from_json_text(
      R"({"stride": "32", "imgsz": "[320, 320]", "names": "{0: 'person', 1: \"it's\"}",
          "end2end": "False"})",
      "x");
  EXPECT_EQ(m.stride, 32);
  EXPECT_EQ(m.imgsz, (std::vector<int64_t>{320, 320}));
  EXPECT_EQ(m.names.at(0), "person");
  EXPECT_EQ(m.names.at(1), "it's");
  EXPECT_FALSE(m.end2end);
  m = yolo::ModelMetadata::from_json_text(R"({"imgsz": 416, "names": ["a", "b"]})", "x");
  EXPECT_EQ(m.imgsz, (std::vector<int64_t>{416, 416}));
  EXPECT_EQ(m.names.at(1), "b");
  EXPECT_THROW(yolo::ModelMetadata::from_json_text("{not json", "x"), yolo::CheckpointError);
  EXPECT_THROW(yolo::ModelMetadata::from_json_text(R"({"task": "segment"})", "x"),
               yolo::CheckpointError);
  EXPECT_THROW(yolo::ModelMetadata::from_json_text(R"({"imgsz": [1, 2, 3]})", "x"),
               yolo::CheckpointError);
  // Sizes a damaged or hand-edited file must not hand on: zero, negative, beyond int64.
  for (const char* bad : {R"({"imgsz": 0})", R"({"imgsz": [640, -1]})", R"({"imgsz": 1e300})",
                          R"({"stride": 0})", R"({"batch": 100000})", R"({"channels": 0})",
                          R"({"names": {"-1": "a"}})", R"({"imgsz": 2.5})"})
    EXPECT_THROW(yolo::ModelMetadata::from_json_text(bad, "x"), yolo::CheckpointError) << bad;
  EXPECT_EQ(yolo::ModelMetadata::from_json_text(R"({"imgsz": 320.0})", "x").imgsz,
            (std::vector<int64_t>{320, 320}));
  // The reason is the real one (#57): too large is not "not a whole number".
  for (const char* big : {R"({"stride": 1e300})", R"({"stride": "99999999999999999999"})",
                          R"({"stride": 18446744073709551615})"}) {
    try {
      yolo::ModelMetadata::from_json_text(big, "x");
      ADD_FAILURE() << big;
    } catch (const yolo::CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find("too large"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("not a whole number"), std::string::npos) << e.what();
    }
  }
}

TEST(Checkpoint, BadFilesGiveClearErrors) {
  const fs::path dir = temp_dir();
  const std::string missing = load_error((dir / "missing.pt").string());
  EXPECT_NE(missing.find("does not exist"), std::string::npos) << missing;
  EXPECT_NE(missing.find("best.pt"), std::string::npos) << "what to give instead: " << missing;
  EXPECT_EQ(missing.find("Ultralytics release"), std::string::npos) << missing;
  // Ultralytics' release names are downloaded by Ultralytics on first use; nothing is here. The
  // message says so, whichever version, size or extension, and what to give instead.
  for (const char* release : {"yolo26n.pt", "yolov8s.pt", "yolo11x.torchscript", "YOLOv5nu.pt",
                              "yolov10m.pt", "yolo12l.pt"}) {
    const std::string e = load_error(release);
    EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
    EXPECT_NE(e.find("Ultralytics release"), std::string::npos) << e;
    EXPECT_NE(e.find("downloads nothing"), std::string::npos) << e;
    EXPECT_NE(e.find("Download " + std::string(release) + " yourself"), std::string::npos) << e;
  }
  const std::string yaml_hint = load_error("yolo26n.pt");
  EXPECT_NE(yaml_hint.find("model=yolo26n.yaml"), std::string::npos) << yaml_hint;

  write_bytes(dir / "empty.pt", "");
  EXPECT_NE(load_error((dir / "empty.pt").string()).find("empty"), std::string::npos);

  write_bytes(dir / "random.pt", std::string("\x13\x37garbage bytes that are not a model", 36));
  EXPECT_NE(load_error((dir / "random.pt").string()).find("not a TorchScript model"),
            std::string::npos);

  // An old-style (non-zip) pickle.
  write_bytes(dir / "old.pt", std::string("\x80\x02}q\x00.", 6));
  EXPECT_NE(load_error((dir / "old.pt").string()).find("legacy format of PyTorch < 1.6"),
            std::string::npos);

  // A zip-format torch.save file (what Ultralytics' .pt is: data.pkl, no code/) that holds no
  // Ultralytics model (test_ultralytics_pt has the rest of the kind).
  std::vector<char> pickled = torch::pickle_save(c10::IValue(torch::ones({2})));
  write_bytes(dir / "zip_pickle.pt", std::string(pickled.begin(), pickled.end()));
  std::string e = load_error((dir / "zip_pickle.pt").string());
  EXPECT_NE(e.find("without an Ultralytics model"), std::string::npos) << e;

  // A whole zip archive of something else (LibTorch's reader says its directory "cannot be read"
  // because the entries are not under one folder): named as the wrong kind of file, not as
  // damaged.
  {
    const std::string body = "hello";
    const unsigned long crc = yolo::crc32_of(body.data(), body.size());
    auto le = [](uint64_t v, int n) {
      std::string out;
      for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
      return out;
    };
    const std::string name = "notes.txt";
    const std::string local = le(0x04034b50, 4) + le(10, 2) + le(0, 2) + le(0, 2) + le(0, 4) +
                              le(crc, 4) + le(body.size(), 4) + le(body.size(), 4) +
                              le(name.size(), 2) + le(0, 2) + name + body;
    const std::string central = le(0x02014b50, 4) + le(20, 2) + le(10, 2) + le(0, 2) + le(0, 2) +
                                le(0, 4) + le(crc, 4) + le(body.size(), 4) + le(body.size(), 4) +
                                le(name.size(), 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) +
                                le(0, 4) + le(0, 4) + name;
    const std::string end = le(0x06054b50, 4) + le(0, 2) + le(0, 2) + le(1, 2) + le(1, 2) +
                            le(central.size(), 4) + le(local.size(), 4) + le(0, 2);
    write_bytes(dir / "notes.zip", local + central + end);
    EXPECT_EQ(yolo::zip_entry_names((dir / "notes.zip").string()),
              std::vector<std::string>{"notes.txt"});
    e = load_error((dir / "notes.zip").string());
    EXPECT_NE(e.find("is a zip archive but not a TorchScript model (it holds notes.txt)"),
              std::string::npos)
        << e;
    EXPECT_EQ(e.find("truncated"), std::string::npos) << e;
  }

  // A real export cut short.
  auto model = yolo::build_model("yolov8n.yaml", 1);
  yolo::ExportOptions opts;
  opts.height = opts.width = 64;
  yolo::export_torchscript(*model, opts, dir / "whole.torchscript");
  std::string bytes = read_bytes(dir / "whole.torchscript");
  write_bytes(dir / "truncated.torchscript", bytes.substr(0, bytes.size() / 2));
  e = load_error((dir / "truncated.torchscript").string());
  EXPECT_NE(e.find("truncated or corrupt"), std::string::npos) << e;
  EXPECT_THROW(yolo::load_eager_model((dir / "truncated.torchscript").string()),
               yolo::CheckpointError);

  // Whole, but one weight byte changed after writing (LibTorch's reader skips the zip CRCs and
  // would load it): refused, naming the file and the damaged entry.
  size_t offset = 0;
  std::string entry;
  {
    caffe2::serialize::PyTorchStreamReader reader((dir / "whole.torchscript").string());
    for (const auto& r : reader.getAllRecords())
      if (r.rfind("data/", 0) == 0 && std::get<1>(reader.getRecord(r)) > 64) entry = r;
    ASSERT_FALSE(entry.empty());
    offset = reader.getRecordOffset(entry) + 10;
  }
  bytes[offset] = static_cast<char>(bytes[offset] ^ 0x5A);
  write_bytes(dir / "flipped.torchscript", bytes);
  e = load_error((dir / "flipped.torchscript").string());
  EXPECT_NE(e.find("flipped.torchscript' is corrupt"), std::string::npos) << e;
  EXPECT_NE(e.find(entry + "' fails its CRC-32 check"), std::string::npos) << e;
  EXPECT_FALSE(yolo::find_corrupt_zip_entry((dir / "whole.torchscript").string()).has_value());
  EXPECT_EQ(yolo::crc32_of("123456789", 9), 0xCBF43926ul);  // the standard check value
}

TEST(Checkpoint, OpensInPythonTorchJitLoad) {
  // The project venv's Python torch (tools/install-deps.sh), the same LibTorch the build uses;
  // skipped only in a build without that venv.
  const std::string python = YOLO_TEST_PYTHON;
  if (std::system((python + " -c 'import torch' >/dev/null 2>&1").c_str()) != 0) {
    GTEST_SKIP() << python << " has no torch; skipping the Python interoperability check";
  }
  auto model = yolo::build_model("yolo26n.yaml", 2);
  model->names = {{0, "person"}, {1, "car"}};
  model->detect().use_one2one = true;  // the NMS-free rows, (1, 300, 6)
  const fs::path path = temp_dir() / "python.torchscript";
  yolo::ExportOptions opts;
  opts.height = opts.width = 128;
  yolo::export_torchscript(*model, opts, path);
  const std::string script =
      "import json, sys, torch\n"
      "files = {'config.txt': ''}\n"
      "m = torch.jit.load(sys.argv[1], map_location='cpu', _extra_files=files)\n"
      "meta = json.loads(files['config.txt'])\n"
      "for k in ['stride', 'task', 'batch', 'imgsz', 'names', 'channels', 'end2end', 'args',\n"
      "          'description', 'date', 'version']:\n"
      "    assert k in meta, k\n"
      "assert meta['imgsz'] == [128, 128] and meta['names']['1'] == 'car' and meta['end2end']\n"
      "y = m(torch.zeros(1, 3, 128, 128))\n"
      "assert tuple(y.shape) == (1, 300, 6), y.shape\n"
      "sd = m.state_dict()\n"
      "assert 'model.0.conv.weight' in sd, list(sd)[:5]\n"
      "print('python-ok')\n";
  const fs::path py = temp_dir() / "check.py";
  std::ofstream(py) << script;
  FILE* pipe = popen((python + " " + py.string() + " " + path.string() + " 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << out;
  EXPECT_NE(out.find("python-ok"), std::string::npos) << out;
}

TEST(WeightImport, FusedExportUnfusesToTheSameOutputs) {
  // A lean export (no training weights, as `yolo-trainer export` and Ultralytics write) must
  // initialise an eager model that computes what the original did.
  torch::manual_seed(3);
  for (const auto& [name, one2one] :
       {std::pair{"yolo11n.yaml", false}, {"yolo26n.yaml", false}, {"yolo26n.yaml", true}}) {
    auto model = yolo::build_model(name, 4);
    model->detect().use_one2one = one2one;
    {
      torch::NoGradGuard no_grad;
      for (auto& b : model->named_buffers()) {
        if (b.key().find("running_var") != std::string::npos) b.value().uniform_(0.5, 1.5);
      }
    }
    model->names = {{0, "a"}, {1, "b"}, {2, "c"}, {3, "d"}};
    const fs::path path =
        temp_dir() / (std::string("lean-") + name + (one2one ? "-nms-free" : "") + ".torchscript");
    yolo::ExportOptions opts;
    opts.height = opts.width = 128;
    opts.include_weights = false;
    yolo::export_torchscript(*model, opts, path);
    EXPECT_FALSE(yolo::has_training_weights(path.string()));

    yolo::ImportReport report;
    auto imported = yolo::import_fused_torchscript(path.string(), std::nullopt, &report);
    EXPECT_EQ(report.skipped, 0) << name;
    EXPECT_GT(report.unfused, 60) << name;
    EXPECT_EQ(imported->names.at(3), "d");
    model->eval();
    imported->eval();
    torch::NoGradGuard no_grad;
    torch::Tensor x = torch::rand({1, 3, 128, 128});
    EXPECT_LE((model->forward(x) - imported->forward(x)).abs().max().item<double>(), 1e-3) << name;
    // The file holds the branch it was traced with; the other one starts as its copy.
    if (imported->config().end2end) {
      EXPECT_EQ(imported->detect().use_one2one, one2one);
      EXPECT_GT(one2one ? report.copied_one2many : report.copied_one2one, 0) << name;
      EXPECT_EQ(one2one ? report.copied_one2one : report.copied_one2many, 0) << name;
      const auto params = imported->named_parameters();
      const std::string branch = "model.23.cv3.0.2.weight",
                        twin = "model.23.one2one_cv3.0.2.weight";
      EXPECT_TRUE(torch::equal(params[branch], params[twin])) << name;
    }
  }
}

TEST(WeightImport, OtherClassCountSkipsTheClassHead) {
  auto model = yolo::build_model("yolov8n.yaml", 5);
  const fs::path path = temp_dir() / "yolov8n-5cls.torchscript";
  yolo::ExportOptions opts;
  opts.height = opts.width = 64;
  opts.include_weights = false;
  yolo::export_torchscript(*model, opts, path);
  yolo::ImportReport report;
  auto imported = yolo::import_fused_torchscript(path.string(), 2, &report);
  EXPECT_EQ(imported->num_classes(), 2);
  EXPECT_EQ(report.skipped, 6);  // cv3.{0,1,2}.2.{weight,bias}
  for (const auto& n : report.skipped_names) EXPECT_NE(n.find(".cv3."), std::string::npos) << n;
  auto fused = yolo::clone_model(*model);
  fused->eval();
  fused->fuse();
  EXPECT_TRUE(torch::equal(imported->named_parameters()["model.0.conv.weight"],
                           fused->named_parameters()["model.0.conv.weight"]));
}

TEST(WeightImport, ArchitectureFromNameOrDescription) {
  // Ultralytics' exports carry no model.json: the file name or the description names the model.
  EXPECT_EQ(yolo::guess_architecture_yaml("weights/yolo11n.torchscript", ""), "yolo11n.yaml");
  EXPECT_EQ(yolo::guess_architecture_yaml("best.torchscript",
                                          "Ultralytics YOLOv8s model trained on coco.yaml"),
            "yolov8s.yaml");
  EXPECT_EQ(yolo::guess_architecture_yaml("x/YOLO26M.torchscript", ""), "yolo26m.yaml");
  EXPECT_THROW(yolo::guess_architecture_yaml("best.torchscript", "my detector"),
               yolo::CheckpointError);
}
