// Weight transfer for fine-tuning = Ultralytics' DetectionModel.load (issue #64, label parity).
// For each case a person meets, Ultralytics builds the model its trainer would build and loads
// the same source file (tools/parity/ultralytics_transfer.py); ours does the same through
// build_with_pretrained (what `yolo-trainer train` calls). Compared tensor by tensor: the same
// names and shapes, the same tensors taken from the source, the same class rows copied by name,
// the same values wherever the result does not depend on a random draw, and Ultralytics' own
// "Transferred N/M items" count.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "oracle.h"
#include "test_files.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/ultralytics_checkpoint.h"
#include "yolo/models/weight_transfer.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path release_weights() {
  return fs::path(YOLO_TEST_ASSETS) / "yolo11n.pt";
}

std::string names_json(const std::map<int, std::string>& names) {
  json j = json::object();
  for (const auto& [k, v] : names) j[std::to_string(k)] = v;
  return j.dump();
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

struct Fingerprint {
  std::vector<int64_t> shape;
  double sum = 0, wsum = 0, first = 0;
  bool constant = false;
};

Fingerprint fingerprint(const torch::Tensor& v) {
  const torch::Tensor f = v.detach().to(torch::kFloat64).flatten();
  Fingerprint p;
  p.shape = v.sizes().vec();
  if (f.numel() == 0) return p;
  const torch::Tensor w = torch::remainder(torch::arange(f.numel(), torch::kFloat64), 7) + 1;
  p.sum = f.sum().item<double>();
  p.wsum = (f * w).sum().item<double>();
  p.first = f[0].item<double>();
  p.constant = f.eq(f[0]).all().item<bool>();
  return p;
}

std::vector<int64_t> row_sources(const torch::Tensor& v, const torch::Tensor& s) {
  std::vector<int64_t> out;
  for (int64_t r = 0; r < v.size(0); ++r) {
    int64_t hit = -1;
    for (int64_t j = 0; j < s.size(0) && hit < 0; ++j)
      if (torch::equal(v[r], s[j])) hit = j;
    out.push_back(hit);
  }
  return out;
}

bool near(double a, double b) {
  return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b));
}

struct Case {
  std::string name;
  std::string source;  // a .pt file
  std::string cfg;     // a model YAML, or "-": the source's own architecture (model=X.pt)
  std::map<int, std::string> names;
  int channels = 3;
  bool remap = true;
};

// Ours for a case: what the trainer builds (model_to_train) for model= / pretrained=.
std::pair<std::shared_ptr<yolo::DetectionModelImpl>, yolo::TransferReport> ours(const Case& c) {
  const yolo::PretrainedWeights source = yolo::read_pretrained_weights(c.source);
  const int nc = static_cast<int>(c.names.size());
  yolo::ModelConfig cfg = c.cfg == "-" ? source.config : yolo::load_model_config(c.cfg, nc);
  cfg.nc = nc;
  cfg.channels = c.channels;
  yolo::TransferReport report;
  torch::manual_seed(0);
  auto model = yolo::build_with_pretrained(cfg, source, c.names, c.remap, &report);
  return {model, report};
}

// Compares ours with Ultralytics' for a case; returns Ultralytics' JSON.
json compare(const Case& c) {
  const json theirs = yolo::parity::oracle_json(
      "ultralytics_transfer.py load " + quoted(c.source) + " " + quoted(c.cfg) + " " +
      std::to_string(c.names.size()) + " " + quoted(names_json(c.names)) + " " +
      std::to_string(c.channels) + " " + (c.remap ? "1" : "0"));
  if (!theirs.is_object()) {
    ADD_FAILURE() << c.name << ": Ultralytics did not load " << c.source;
    return theirs;
  }
  auto [model, report] = ours(c);
  const yolo::PretrainedWeights source = yolo::read_pretrained_weights(c.source);
  SCOPED_TRACE(c.name + ": " + theirs["transfer_log"].get<std::string>() + " | " +
               theirs["remap_log"].get<std::string>());
  EXPECT_EQ(report.transferred, theirs["transferred"].get<int>());
  EXPECT_EQ(report.total, theirs["total"].get<int>());
  EXPECT_EQ(model->detect().cls_hidden, theirs["cls_hidden"].get<int64_t>());
  const std::string remap_log = theirs["remap_log"];
  if (!remap_log.empty()) {
    std::smatch m;
    if (std::regex_search(remap_log, m, std::regex(R"(Remapped (\d+)/)")))
      EXPECT_EQ(report.remapped_rows, std::stoi(m[1].str()));
    else
      ADD_FAILURE() << "unexpected log line " << remap_log;
  } else {
    EXPECT_EQ(report.remapped_rows, 0);
  }

  std::map<std::string, torch::Tensor> mine;
  for (const auto& p : model->named_parameters(true)) mine[p.key()] = p.value();
  for (const auto& b : model->named_buffers(true)) mine[b.key()] = b.value();
  int compared = 0;
  for (const auto& [key, t] : theirs["tensors"].items()) {
    auto it = mine.find(key);
    if (it == mine.end()) {
      ADD_FAILURE() << key << " is in Ultralytics' model but not in ours";
      continue;
    }
    const torch::Tensor v = it->second.detach().to(torch::kFloat32);
    const Fingerprint f = fingerprint(v);
    if (f.shape != t["shape"].get<std::vector<int64_t>>()) {
      ADD_FAILURE() << key << ": another shape";
      continue;
    }
    auto src = source.state.find(key);
    const bool same = src != source.state.end() && src->second.sizes() == v.sizes() &&
                      torch::equal(src->second.to(torch::kFloat32), v);
    EXPECT_EQ(same, t["same"].get<bool>()) << key << " taken from the source";
    if (t.contains("rows")) {
      if (src == source.state.end()) {
        ADD_FAILURE() << key << ": Ultralytics took rows from the source, which ours lacks";
        continue;
      }
      EXPECT_EQ(row_sources(v, src->second.to(torch::kFloat32)),
                t["rows"].get<std::vector<int64_t>>())
          << key << ": which source row each class row came from";
    }
    // Anything not drawn at random must agree in value: copies, remapped rows, sums of the
    // first layer's filters, BatchNorm constants and head biases.
    const bool random = !t["same"].get<bool>() && !t["const"].get<bool>() && !t.contains("rows");
    if (key == "model.0.conv.weight" || !random) {
      EXPECT_EQ(f.constant, t["const"].get<bool>()) << key;
      if (key == "model.0.conv.weight" && c.channels == 4) {
        // The 4th channel's filters are the model's own draw; the first three are the source's.
      } else if (!t.contains("rows")) {
        EXPECT_TRUE(near(f.sum, t["sum"].get<double>()) && near(f.wsum, t["wsum"].get<double>()))
            << key << ": sum " << f.sum << " vs " << t["sum"] << ", weighted " << f.wsum << " vs "
            << t["wsum"];
      }
    }
    ++compared;
  }
  for (const auto& [key, v] : mine)
    if (!theirs["tensors"].contains(key)) ADD_FAILURE() << key << " is in ours only";
  EXPECT_GT(compared, 200);
  return theirs;
}

std::map<int, std::string> numbered(const std::vector<std::string>& v) {
  std::map<int, std::string> m;
  for (size_t i = 0; i < v.size(); ++i) m[static_cast<int>(i)] = v[i];
  return m;
}

class TransferParity : public ::testing::Test {
 protected:
  void SetUp() override {
    YOLO_REQUIRE_ORACLE();
    if (!fs::exists(release_weights()))
      GTEST_SKIP() << "no " << release_weights() << " (tools/fetch-test-assets.sh)";
  }
  const std::map<int, std::string> own =
      numbered({"scratch", "dent", "crack", "stain", "chip", "burr", "rust"});
  std::map<int, std::string> coco() const {
    return yolo::read_ultralytics_checkpoint(release_weights().string()).names;
  }
};

TEST_F(TransferParity, AnotherClassCountKeepsTheClassBranchHiddenLayers) {
  const json j = compare({"yolo11n.pt, 7 own classes", release_weights(), "-", own});
  EXPECT_EQ(j["cls_hidden"], 80) << "nc=7 alone builds 64";
  EXPECT_EQ(j["transferred"], 493);
}

TEST_F(TransferParity, OverlappingNamesInAnotherOrderAndCountAreRemappedByName) {
  compare({"4 classes, 3 of them COCO's, another order", release_weights(), "-",
           numbered({"Dog", " person ", "unicorn", "car"})});
  compare({"the 80 COCO names reversed", release_weights(), "-", [&] {
             std::map<int, std::string> r;
             const auto c = coco();
             for (const auto& [k, v] : c) r[static_cast<int>(c.size()) - 1 - k] = v;
             return r;
           }()});
  compare(
      {"cls_remap=False", release_weights(), "-", numbered({"dog", "person", "car"}), 3, false});
}

TEST_F(TransferParity, AnotherScaleTransfersWhatFits) {
  compare({"yolo11n.pt into yolo11s.yaml", release_weights(), "yolo11s.yaml", own});
  compare({"yolo11n.pt into yolo11s.yaml, shared names", release_weights(), "yolo11s.yaml",
           numbered({"person", "bicycle", "dog"})});
}

TEST_F(TransferParity, AGreyOrFourChannelFirstLayerIsFilledFromTheRgbFilters) {
  compare({"grey", release_weights(), "yolo11n.yaml", own, 1});
  compare({"4 channels", release_weights(), "yolo11n.yaml", own, 4});
}

// YOLOv8's plain class branch and YOLO26's one-to-one twin, from checkpoints written in
// Ultralytics' layout with random weights (no release file of these families in the assets).
TEST_F(TransferParity, YoloV8AndYolo26Heads) {
  const yolo::testing::TempDir tmp("transfer_parity");
  const fs::path& dir = tmp.path;
  for (const std::string family : {"yolov8n", "yolo26n"}) {
    const fs::path src = dir / (family + "-src.pt");
    const json made =
        yolo::parity::oracle_json("ultralytics_transfer.py make " + family + ".yaml 80 " +
                                  quoted(names_json(coco())) + " " + quoted(src.string()) + " 1");
    ASSERT_TRUE(made.is_object()) << "could not write " << src;
    compare({family + ", 7 own classes", src, "-", own});
    compare({family + ", shared names", src, "-", numbered({"cat", "person", "kite"})});
    compare({family + ", 120 classes", src, "-", [] {
               std::map<int, std::string> m;
               for (int i = 0; i < 120; ++i) m[i] = "part" + std::to_string(i);
               return m;
             }()});
  }
}

// A .pt that Ultralytics fine-tuned on 7 classes keeps the 80-wide class branch: it is read,
// run and exported with that width (built from its YAML alone, its weights would not fit).
TEST_F(TransferParity, APtFineTunedByUltralyticsOnOtherClassesLoads) {
  const yolo::testing::TempDir tmp("transfer_parity");
  const fs::path& dir = tmp.path;
  const fs::path tuned = dir / "tuned.pt";
  const json j = yolo::parity::oracle_json(
      "ultralytics_transfer.py load " + quoted(release_weights()) + " - 7 " +
      quoted(names_json(own)) + " 3 1 " + quoted(tuned.string()));
  ASSERT_TRUE(j.is_object() && fs::exists(tuned)) << "the oracle wrote no " << tuned;
  auto model = yolo::build_ultralytics_model(yolo::read_ultralytics_checkpoint(tuned.string()));
  EXPECT_EQ(model->detect().cls_hidden, 80);
  EXPECT_EQ(model->num_classes(), 7);
  yolo::ExportOptions o;
  o.height = o.width = 64;
  yolo::export_torchscript(*model, o, dir / "tuned.torchscript");
  auto reloaded = yolo::load_eager_model((dir / "tuned.torchscript").string());
  EXPECT_EQ(reloaded->detect().cls_hidden, 80);
}

// A training checkpoint of ours as the source: the same transfer as from the .pt it holds.
TEST_F(TransferParity, OurCheckpointTransfersLikeThePtItHolds) {
  const yolo::testing::TempDir tmp("transfer_parity");
  const fs::path& dir = tmp.path;
  auto model = yolo::build_ultralytics_model(yolo::read_ultralytics_checkpoint(release_weights()));
  yolo::ExportOptions o;
  o.height = o.width = 64;
  yolo::export_torchscript(*model, o, dir / "ours.torchscript");
  const Case from_pt{"from the .pt", release_weights(), "-", own};
  Case from_ours = from_pt;
  from_ours.source = (dir / "ours.torchscript").string();
  auto [a, ra] = ours(from_pt);
  auto [b, rb] = ours(from_ours);
  EXPECT_EQ(ra.transferred, rb.transferred);
  EXPECT_EQ(ra.fresh, rb.fresh);
  EXPECT_EQ(a->detect().cls_hidden, b->detect().cls_hidden);
  auto pb = b->named_parameters(true);
  for (const auto& p : a->named_parameters(true)) {
    if (std::find(ra.fresh.begin(), ra.fresh.end(), p.key()) != ra.fresh.end()) continue;
    EXPECT_TRUE(torch::equal(p.value(), pb[p.key()])) << p.key();
  }
}

}  // namespace

namespace {

yolo::testing::CommandResult trainer(const std::string& args) {
  return yolo::testing::run_command(std::string(YOLO_TRAINER_BIN) + " " + args);
}

// The trainer takes that path: `train model=yolo11n.pt` on 3 classes of its own keeps the
// class branch's hidden layers, and its best.pt carries the kept width so it loads and runs;
// pretrained=False trains the architecture from scratch; a grey data set is refused, not
// trained as RGB.
TEST(TransferInTheTrainer, FineTuneKeepsTheBranchAndItsCheckpointLoads) {
  if (!fs::exists(release_weights())) GTEST_SKIP() << "no " << release_weights();
  const yolo::testing::TempDir tmp("transfer_parity");
  const fs::path& dir = tmp.path;
  const fs::path data = yolo::parity::shapes_dataset(dir / "data", 16, 8);
  const std::string common =
      " data=" + data.string() +
      " epochs=1 imgsz=64 batch=8 plots=False exist_ok=True project=" + (dir / "runs").string();
  const auto tuned = trainer("train model=" + release_weights().string() + common + " name=tuned");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.output;
  EXPECT_NE(tuned.output.find("Transferred 493/499 items from pretrained weights"),
            std::string::npos)
      << tuned.output;
  EXPECT_NE(tuned.output.find("keeps the pretrained hidden width 80 (nc=3"), std::string::npos)
      << tuned.output;
  const fs::path best = dir / "runs" / "tuned" / "weights" / "best.pt";
  ASSERT_TRUE(fs::exists(best)) << tuned.output;
  const auto val = trainer("val model=" + best.string() + " data=" + data.string() +
                           " imgsz=64 batch=8 plots=False project=" + (dir / "val").string());
  EXPECT_EQ(val.exit_code, 0) << val.output;
  // Fine-tuning again from our own checkpoint: every tensor fits, the width included.
  const auto again = trainer("train model=" + best.string() + common + " name=again");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("Transferred 499/499 items"), std::string::npos) << again.output;

  const auto scratch = trainer("train model=" + release_weights().string() + " pretrained=False" +
                               common + " name=scratch");
  EXPECT_EQ(scratch.exit_code, 0) << scratch.output;
  EXPECT_EQ(scratch.output.find("Transferred"), std::string::npos) << scratch.output;

  {
    std::ofstream yaml(data, std::ios::app);
    yaml << "channels: 1\n";
  }
  const auto grey = trainer("train model=" + release_weights().string() + common + " name=grey");
  EXPECT_NE(grey.exit_code, 0);
  EXPECT_NE(grey.output.find("training on 1-channel images is not supported yet"),
            std::string::npos)
      << grey.output;
}

}  // namespace
