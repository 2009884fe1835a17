// One dataset folder for both tools (label `parity`; needs the ultralytics package in the test
// Python: tools/install-deps.sh --oracle; skipped without). A folder written by
// `yolo-trainer synth` is read by Ultralytics where it lies (no `path:` key to misresolve), both
// tools keep their label caches side by side without reading or breaking the other's, and they
// count the same images and instances.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "oracle.h"
#include "test_files.h"
#include "yolo/synth/synthetic_data.h"
#include "yolo/trainer/data/dataset.h"

namespace fs = std::filesystem;

namespace {

// Ultralytics' {split: [images, instances]} for the YAML, read from the given working folder
// (elsewhere than the dataset, so a path resolved against it would be wrong).
nlohmann::json ultralytics_counts(const fs::path& yaml, const fs::path& cwd) {
  return yolo::parity::oracle_json("ultralytics_read_dataset.py '" + yaml.string() + "'", cwd);
}

}  // namespace

TEST(DatasetSharing, OneFolderServesBothTools) {
  YOLO_REQUIRE_ORACLE();
  yolo::testing::TempDir tmp("dataset_sharing");
  const fs::path data_dir = tmp.path / "data";
  const fs::path yaml = yolo::parity::shapes_dataset(data_dir, 12, 5);
  const yolo::DatasetConfig cfg = yolo::load_dataset_config(yaml, tmp.path / "datasets");
  auto ours = [&](const char* split) {
    return yolo::scan_dataset(yolo::list_images(cfg.splits.at(split)), cfg.nc, 1);
  };
  fs::create_directories(tmp.path / "elsewhere");

  const yolo::DatasetScan first = ours("train");  // writes our cache first
  const nlohmann::json theirs = ultralytics_counts(yaml, tmp.path / "elsewhere");
  ASSERT_TRUE(theirs.is_object()) << "Ultralytics could not read the folder ours had cached";
  EXPECT_TRUE(fs::exists(data_dir / "labels" / "train.cache")) << "Ultralytics' cache";
  EXPECT_TRUE(fs::exists(data_dir / "labels" / "train.yolo-edge.cache")) << "ours";

  const yolo::DatasetScan again = ours("train");  // with Ultralytics' cache beside ours
  EXPECT_TRUE(again.from_cache);
  const yolo::DatasetScan val = ours("val");
  for (const auto& [split, scan] : {std::pair{"train", &again}, std::pair{"val", &val}}) {
    EXPECT_EQ(theirs[split][0].get<size_t>(), scan->images.size()) << split << " images";
    EXPECT_EQ(theirs[split][1].get<int>(), scan->instances) << split << " instances";
  }
  EXPECT_EQ(first.instances, again.instances);
  // And Ultralytics again, now reading its own cache next to ours.
  EXPECT_EQ(ultralytics_counts(yaml, tmp.path / "elsewhere"), theirs);
}
