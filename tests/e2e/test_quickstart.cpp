// The README's main command at miniature size: tools/quickstart.sh from synthetic data through
// training, validation, prediction and export to a gst-launch-1.0 pipeline with the `yolo`
// element whose HTTP endpoint is polled. Same script, same steps; only the sizes shrink (48
// images of 128 px, 2 epochs, 60 video frames) and install/build are skipped (ctest runs in a
// built tree).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "free_port.h"
#include "run_command.h"

namespace fs = std::filesystem;

TEST(Quickstart, MiniatureRunFromSyntheticDataToDetectionsOverHttp) {
  const fs::path run = fs::path(YOLO_BINARY_DIR) / "test-quickstart";
  fs::remove_all(run);
  const fs::path build = fs::path(YOLO_BINARY_DIR);
  const std::string cmd =
      "cd " + std::string(YOLO_SOURCE_DIR) + " && SKIP_SETUP=1 BUILD_DIR=" + build.string() +
      " RUN_DIR=" + run.string() +
      " IMAGES=48 IMGSZ=128 EPOCHS=2 FRAMES=60 PORT=" + std::to_string(yolo::testing::free_port()) +
      " tools/quickstart.sh";
  const auto r = yolo::testing::run_command(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(r.output.size() > 6000 ? r.output.size() - 6000 : 0);

  for (const char* step : {"[3/9]", "[4/9]", "[5/9]", "[6/9]", "[7/9]", "[8/9]", "[9/9]"})
    EXPECT_NE(r.output.find(step), std::string::npos) << "step " << step << " missing";
  EXPECT_EQ(r.output.find("[1/9]"), std::string::npos) << "SKIP_SETUP must skip the install";
  // Detections polled over HTTP while the pipeline played.
  EXPECT_NE(r.output.find("GET /api/v1/streams/synthetic/detections: frame"), std::string::npos)
      << r.output;
  for (const fs::path& p :
       {run / "data" / "data.yaml", run / "data" / "video" / "synthetic.mp4",
        run / "train" / "results.csv", run / "train" / "results.png",
        run / "train" / "weights" / "best.pt", run / "train" / "weights" / "best.torchscript",
        run / "pipeline" / "annotated.mp4", run / "pipeline" / "snapshot.jpg"}) {
    EXPECT_TRUE(fs::exists(p)) << p;
    if (fs::exists(p)) {
      EXPECT_GT(fs::file_size(p), 100u) << p;
    }
  }
  EXPECT_TRUE(fs::exists(run / "val")) << "validation run folder";
  EXPECT_TRUE(fs::exists(run / "predict")) << "prediction run folder";
}
