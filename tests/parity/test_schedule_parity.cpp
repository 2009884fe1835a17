// Parity with Ultralytics, the reference implementation, run as an oracle (label `parity`; needs
// the ultralytics package in the test Python, `tools/install-deps.sh --oracle`; skipped without).
//
// The schedule: a 60-epoch run of 4 batches an epoch (64 images, batch 16, Ultralytics' default
// recipe: optimizer=auto, nbs=64, warm-up of 3 epochs) by both tools on the same images, for
// yolov8n, yolo11n and yolo26n (whose parameter groups differ). For every batch, the learning
// rate, momentum, weight decay and size of each parameter group, the accumulation and whether
// the batch ended with an optimiser step must be identical. The first difference is reported
// with its iteration and field.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "oracle.h"
#include "test_files.h"
#include "yolo/synth/synthetic_data.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/train/trainer.h"

namespace fs = std::filesystem;

namespace {

// The run both tools make, as key=value pairs (Ultralytics' names; ours are the same).
const std::vector<std::pair<std::string, std::string>> kRunArgs = {
    {"imgsz", "32"},   {"epochs", "60"},     {"batch", "16"},     {"workers", "0"},
    {"device", "cpu"}, {"val", "False"},     {"plots", "False"},  {"seed", "0"},
    {"amp", "False"},  {"exist_ok", "True"}, {"verbose", "False"}};

std::vector<yolo::BatchSchedule> run_ours(const std::string& model, const fs::path& data,
                                          const fs::path& project) {
  yolo::Config cfg;
  std::vector<std::pair<std::string, std::string>> args = kRunArgs;
  args.push_back({"model", model});
  args.push_back({"data", data.string()});
  args.push_back({"project", project.string()});
  args.push_back({"name", "ours"});
  cfg.apply_text_overrides(args);
  yolo::Trainer trainer(cfg);
  std::vector<yolo::BatchSchedule> records;
  trainer.set_schedule_callback([&](const yolo::BatchSchedule& r) { records.push_back(r); });
  trainer.train();
  return records;
}

nlohmann::json run_ultralytics(const std::string& model, const fs::path& data,
                               const fs::path& project, const fs::path& out) {
  std::string cmd = std::string(YOLO_TEST_PYTHON) + " " + YOLO_SOURCE_DIR +
                    "/tools/parity/ultralytics_schedule.py " + out.string() + " model=" + model;
  for (const auto& [k, v] : kRunArgs) cmd += " " + k + "=" + v;
  cmd += " data=" + data.string() + " project=" + project.string() + " name=ultralytics";
  cmd += " pretrained=False > " + (out.string() + ".log") + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "the oracle failed; see " << out << ".log";
  std::ifstream in(out);
  return nlohmann::json::parse(in);
}

class ScheduleParity : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(ScheduleParity, EveryBatchMatchesUltralytics) {
  YOLO_REQUIRE_ORACLE();
  const std::string model = GetParam();
  yolo::testing::TempDir tmp("schedule_parity_" + model.substr(0, model.find('.')));
  const fs::path data_dir = tmp.path / "data";
  const fs::path yaml = yolo::parity::shapes_dataset(data_dir, 64, 16);
  // Each tool on its own copy (their label caches share a name), Ultralytics' YAML with an
  // absolute `path` (it resolves a relative one against the working folder).
  const fs::path theirs = tmp.path / "data_ultralytics";
  fs::copy(data_dir, theirs, fs::copy_options::recursive);
  {
    std::ofstream y(theirs / "data.yaml");
    y << "path: " << fs::absolute(theirs).string()
      << "\ntrain: images/train\nval: images/val\nnc: 3\nnames: {0: rectangle, 1: ellipse, 2: "
         "triangle}\n";
  }

  const std::vector<yolo::BatchSchedule> ours = run_ours(model, yaml, tmp.path / "runs");
  const nlohmann::json reference = run_ultralytics(model, theirs / "data.yaml", tmp.path / "runs",
                                                   tmp.path / "ultralytics.json");

  ASSERT_EQ(ours.size(), reference.size()) << "batches in the run";
  ASSERT_EQ(ours.size(), 240u);
  int steps = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    const yolo::BatchSchedule& a = ours[i];
    const nlohmann::json& b = reference[i];
    const std::string at = "iteration " + std::to_string(i) + ": ";
    ASSERT_EQ(a.iteration, b["iteration"].get<int64_t>()) << at;
    ASSERT_EQ(a.epoch, b["epoch"].get<int>()) << at << "epoch";
    ASSERT_EQ(a.accumulate, b["accumulate"].get<int>()) << at << "accumulate";
    ASSERT_EQ(a.stepped, b["stepped"].get<bool>()) << at << "optimiser step";
    steps += a.stepped;
    // Groups by name: Ultralytics orders them weight, bn, bias.
    struct Group {
      double lr, momentum, weight_decay;
      size_t size;
    };
    std::map<std::string, Group> theirs_by_name;
    for (size_t g = 0; g < b["groups"].size(); ++g) {
      theirs_by_name[b["groups"][g].get<std::string>()] = {
          b["lr"][g].get<double>(), b["momentum"][g].get<double>(),
          b["weight_decay"][g].get<double>(), b["sizes"][g].get<size_t>()};
    }
    ASSERT_EQ(a.groups.size(), theirs_by_name.size()) << at << "parameter groups";
    for (size_t g = 0; g < a.groups.size(); ++g) {
      ASSERT_TRUE(theirs_by_name.count(a.groups[g])) << at << "group " << a.groups[g];
      const Group& t = theirs_by_name.at(a.groups[g]);
      ASSERT_NEAR(a.lr[g], t.lr, 1e-12 + 1e-9 * std::abs(t.lr)) << at << a.groups[g] << " lr";
      ASSERT_NEAR(a.momentum[g], t.momentum, 1e-12) << at << a.groups[g] << " momentum";
      ASSERT_NEAR(a.weight_decay[g], t.weight_decay, 1e-12 + 1e-9 * t.weight_decay)
          << at << a.groups[g] << " weight decay";
      ASSERT_EQ(a.sizes[g], t.size) << at << a.groups[g] << " parameters in the group";
    }
  }
  EXPECT_GT(steps, 50);
}

INSTANTIATE_TEST_SUITE_P(Families, ScheduleParity,
                         ::testing::Values("yolov8n.yaml", "yolo11n.yaml", "yolo26n.yaml"),
                         [](const auto& test_param) {
                           return test_param.param.substr(0, test_param.param.find('.'));
                         });
