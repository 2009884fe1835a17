// Forward passes: output shapes in train and eval mode at square and non-square sizes, Ultralytics
// state-dict keys, fused vs unfused agreement, GFLOPs against the published numbers, and errors
// for bad model YAMLs.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "yolo/models/detection_model.h"
#include "yolo/models/summary.h"

namespace {

std::string model_error(const std::string& yaml_text) {
  try {
    yolo::DetectionModelImpl m(yolo::parse_model_config(yaml_text, "test.yaml", ""));
  } catch (const yolo::ModelError& e) {
    return e.what();
  }
  return "";
}

// Makes BN statistics non-trivial so that fusing has something to fold.
void randomise_bn(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  for (auto& b : model.named_buffers(true)) {
    if (b.key().find("running_mean") != std::string::npos) b.value().normal_(0, 0.1);
    if (b.key().find("running_var") != std::string::npos) b.value().uniform_(0.5, 1.5);
  }
  for (auto& p : model.named_parameters(true)) {
    if (p.key().find(".bn.") != std::string::npos) p.value().uniform_(0.5, 1.5);
  }
}

}  // namespace

TEST(ModelForward, EvalShapesAt640) {
  torch::NoGradGuard no_grad;
  auto v8 = yolo::build_model("yolov8n.yaml");
  v8->eval();
  EXPECT_EQ(v8->forward(torch::rand({1, 3, 640, 640})).sizes(),
            (std::vector<int64_t>{1, 84, 8400}));
  EXPECT_EQ(v8->detect().stride, (std::vector<double>{8, 16, 32}));
  auto v11 = yolo::build_model("yolo11n.yaml");
  v11->eval();
  EXPECT_EQ(v11->forward(torch::rand({1, 3, 640, 640})).sizes(),
            (std::vector<int64_t>{1, 84, 8400}));
  auto v26 = yolo::build_model("yolo26n.yaml");
  v26->eval();
  EXPECT_EQ(v26->forward(torch::rand({1, 3, 640, 640})).sizes(),
            (std::vector<int64_t>{1, 84, 8400}));
  v26->detect().use_one2one = true;  // nms=False: the NMS-free head's top-k rows
  torch::Tensor y = v26->forward(torch::rand({2, 3, 640, 640}));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 300, 6}));
  // Sorted by score, scores in [0, 1], classes are integers < nc, boxes x1 <= x2.
  auto scores = y.select(2, 4);
  EXPECT_TRUE(torch::all(scores.slice(1, 0, -1) >= scores.slice(1, 1)).item<bool>());
  EXPECT_TRUE(torch::all((scores >= 0) & (scores <= 1)).item<bool>());
  auto cls = y.select(2, 5);
  EXPECT_TRUE(torch::all(cls == cls.round()).item<bool>());
  EXPECT_LT(cls.max().item<float>(), 80);
  EXPECT_TRUE(torch::all(y.select(2, 2) >= y.select(2, 0)).item<bool>());
}

TEST(ModelForward, NonSquareAndTrainMode) {
  for (const char* name : {"yolov8n.yaml", "yolo11n.yaml", "yolo26n.yaml"}) {
    auto m = yolo::build_model(name, 3);
    m->eval();
    const int64_t anchors = 40 * 32 + 20 * 16 + 10 * 8;
    {
      torch::NoGradGuard no_grad;
      // Every model infers through its one-to-many head by default (Ultralytics' nms=None);
      // YOLO26's one-to-one head gives top-k rows instead (nms=False).
      torch::Tensor y = m->forward(torch::rand({1, 3, 320, 256}));
      EXPECT_EQ(y.sizes(), (std::vector<int64_t>{1, 7, anchors})) << name;
      if (m->config().end2end) {
        m->detect().use_one2one = true;
        y = m->forward(torch::rand({1, 3, 320, 256}));
        EXPECT_EQ(y.sizes(), (std::vector<int64_t>{1, 300, 6})) << name;
        m->detect().use_one2one = false;
      }
    }
    m->train();
    auto out = m->forward_train(torch::rand({2, 3, 320, 256}));
    const int64_t reg = m->config().reg_max;
    EXPECT_EQ(out.one2many.boxes.sizes(), (std::vector<int64_t>{2, 4 * reg, anchors})) << name;
    EXPECT_EQ(out.one2many.scores.sizes(), (std::vector<int64_t>{2, 3, anchors})) << name;
    EXPECT_EQ(out.one2many.feats.size(), 3u);
    EXPECT_EQ(out.one2one.has_value(), m->config().end2end) << name;
    if (out.one2one) {
      EXPECT_EQ(out.one2one->scores.sizes(), out.one2many.scores.sizes());
      // One-to-one runs on detached features: its loss cannot reach the backbone.
      out.one2one->scores.sum().backward();
      auto first = m->named_parameters()["model.0.conv.weight"];
      EXPECT_FALSE(first.grad().defined() && first.grad().abs().sum().item<double>() > 0);
    }
  }
}

TEST(ModelForward, StateDictKeysMatchUltralytics) {
  auto v8 = yolo::build_model("yolov8n.yaml");
  auto params = v8->named_parameters();
  auto buffers = v8->named_buffers();
  for (const char* key :
       {"model.0.conv.weight", "model.0.bn.weight", "model.2.m.0.cv1.conv.weight",
        "model.22.cv2.0.2.bias", "model.22.cv3.2.2.weight", "model.22.dfl.conv.weight"}) {
    EXPECT_TRUE(params.contains(key)) << key;
  }
  EXPECT_TRUE(buffers.contains("model.22.cv2.0.1.bn.running_mean"));
  EXPECT_TRUE(buffers.contains("model.9.cv1.bn.num_batches_tracked"));
  EXPECT_FALSE(params["model.22.dfl.conv.weight"].requires_grad());

  auto v26 = yolo::build_model("yolo26n.yaml");
  auto p26 = v26->named_parameters();
  for (const char* key : {"model.10.m.0.attn.qkv.conv.weight", "model.10.m.0.ffn.1.bn.bias",
                          "model.22.m.0.1.attn.pe.conv.weight", "model.6.m.0.m.1.cv2.conv.weight",
                          "model.23.cv3.0.0.0.conv.weight", "model.23.one2one_cv2.2.2.bias",
                          "model.23.one2one_cv3.1.1.1.bn.weight"}) {
    EXPECT_TRUE(p26.contains(key)) << key;
  }
  EXPECT_FALSE(p26.contains("model.23.dfl.conv.weight"));
  // Ultralytics deep-copies the one-to-many branch: same initial weights.
  EXPECT_TRUE(torch::equal(p26["model.23.cv2.0.0.conv.weight"],
                           p26["model.23.one2one_cv2.0.0.conv.weight"]));
}

TEST(ModelForward, BiasInit) {
  auto v8 = yolo::build_model("yolov8n.yaml");
  auto p = v8->named_parameters();
  EXPECT_FLOAT_EQ(p["model.22.cv2.0.2.bias"][0].item<float>(), 2.0f);
  EXPECT_NEAR(p["model.22.cv3.0.2.bias"][0].item<float>(), -11.5366, 1e-3);
  EXPECT_NEAR(p["model.22.cv3.1.2.bias"][5].item<float>(), -10.1503, 1e-3);
  EXPECT_NEAR(p["model.22.cv3.2.2.bias"][79].item<float>(), -8.7641, 1e-3);
}

TEST(ModelForward, FusedMatchesUnfused) {
  torch::manual_seed(0);
  for (const char* name : {"yolov8n.yaml", "yolo11n.yaml", "yolo26n.yaml"}) {
    auto m = yolo::build_model(name, 4);
    randomise_bn(*m);
    m->eval();
    torch::NoGradGuard no_grad;
    torch::Tensor x = torch::rand({1, 3, 256, 320});
    torch::Tensor a = m->forward(x);
    m->fuse();
    EXPECT_TRUE(m->is_fused());
    torch::Tensor b = m->forward(x);
    EXPECT_LE((a - b).abs().max().item<double>(), 1e-3) << name;
    for (const auto& kv : m->named_buffers()) {
      EXPECT_EQ(kv.key().find("running_mean"), std::string::npos) << kv.key();
    }
  }
}

// Fusing keeps only the branch inference uses, as Ultralytics' Detect.fuse does: one-to-many by
// default (nms=None), one-to-one when use_one2one (nms=False).
TEST(ModelForward, Yolo26FuseDropsTheUnusedBranch) {
  for (const bool one2one : {false, true}) {
    auto m = yolo::build_model("yolo26n.yaml");
    m->detect().use_one2one = one2one;
    m->eval();
    m->fuse();
    int64_t n = 0;
    for (const auto& p : m->parameters()) n += p.numel();
    // 2,572,280 - one head branch 154,828 = 2,417,452 before folding; folding swaps each BN's
    // 2c parameters for a c-wide conv bias.
    EXPECT_LT(n, 2417452);
    EXPECT_GT(n, 2300000);
    const auto params = m->named_parameters();
    EXPECT_EQ(params.contains("model.23.cv2.0.0.conv.weight"), !one2one);
    EXPECT_EQ(params.contains("model.23.one2one_cv2.0.0.conv.weight"), one2one);
    EXPECT_THROW(m->forward_train(torch::rand({1, 3, 64, 64})), c10::Error);
    torch::NoGradGuard no_grad;
    EXPECT_EQ(m->forward(torch::rand({1, 3, 64, 64})).size(-1), one2one ? 6 : 84);
  }
}

TEST(ModelSummary, GflopsWithinTwoPercentOfPublished) {
  struct Case {
    const char* name;
    bool fused;
    double published;
  };
  for (Case c : {Case{"yolov8n.yaml", false, 8.7}, Case{"yolo11n.yaml", false, 6.5},
                 Case{"yolo26n.yaml", true, 5.4}}) {
    auto m = yolo::build_model(c.name);
    if (c.fused) {
      m->eval();
      m->fuse();
    }
    double g = yolo::count_gflops(*m, 640, 640);
    EXPECT_NEAR(g, c.published, c.published * 0.02) << c.name;
  }
}

TEST(ModelSummary, TableAndTotals) {
  auto m = yolo::build_model("yolov8n.yaml");
  auto s = yolo::summarize(*m, 640, 640);
  EXPECT_EQ(s.layers, 23);
  EXPECT_EQ(s.parameters, 3157200);
  EXPECT_EQ(s.gradients, 3157184);  // the frozen DFL conv
  EXPECT_NE(s.table.find("Conv"), std::string::npos);
  EXPECT_NE(s.table.find("[3, 16, 3, 2]"), std::string::npos) << s.table;
  EXPECT_NE(s.table.find("897,664"), std::string::npos) << s.table;  // Detect
  EXPECT_NE(yolo::summary_line(*m, s).find("3,157,200 parameters"), std::string::npos);
}

TEST(ModelConfig, NameResolution) {
  EXPECT_EQ(yolo::split_model_scale("yolo26n.yaml"),
            (std::pair<std::string, std::string>{"yolo26.yaml", "n"}));
  EXPECT_EQ(yolo::split_model_scale("yolov8x.yaml"),
            (std::pair<std::string, std::string>{"yolov8.yaml", "x"}));
  EXPECT_EQ(yolo::split_model_scale("yolo11.yaml"),
            (std::pair<std::string, std::string>{"yolo11.yaml", ""}));
  auto cfg = yolo::load_model_config("yolo26s.yaml");
  EXPECT_EQ(cfg.scale, "s");
  EXPECT_TRUE(cfg.end2end);
  EXPECT_EQ(cfg.reg_max, 1);
  EXPECT_THROW(yolo::load_model_config("yolo99n.yaml"), yolo::ModelError);
  EXPECT_THROW(yolo::load_model_config("/no/such/model.yaml"), yolo::ModelError);
}

TEST(ModelConfig, UserVariantYamlFromFile) {
  // A user's own variant: other nc, other depth/width, a rearranged small head.
  auto path = std::filesystem::temp_directory_path() / "tiny-variant.yaml";
  std::ofstream(path) << R"(nc: 5
depth_multiple: 0.33
width_multiple: 0.25
backbone:
  - [-1, 1, Conv, [64, 3, 2]]
  - [-1, 1, Conv, [128, 3, 2]]
  - [-1, 3, C2f, [128, True]]
  - [-1, 1, Conv, [256, 3, 2]]
  - [-1, 2, C3k2, [256, False, 0.25]]
  - [-1, 1, Conv, [512, 3, 2]]
  - [-1, 1, SPPF, [512, 5]]
head:
  - [-1, 1, nn.Upsample, [None, 2, "nearest"]]
  - [[-1, 4], 1, Concat, [1]]
  - [-1, 1, C2f, [128]]
  - [[9, 6], 1, Detect, [nc]]
)";
  auto m = yolo::build_model(path.string());
  m->eval();
  torch::NoGradGuard no_grad;
  auto y = m->forward(torch::rand({1, 3, 128, 128}));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{1, 9, 16 * 16 + 8 * 8}));
  EXPECT_EQ(m->detect().stride, (std::vector<double>{8, 16}));
}

TEST(ModelConfig, BadYamlsNameTheLayer) {
  const std::string head = "nc: 2\nbackbone:\n  - [-1, 1, Conv, [16, 3, 2]]\n";
  std::string e =
      model_error(head + "  - [-1, 1, Frobnicate, [16]]\nhead:\n  - [[1], 1, Detect, [nc]]\n");
  EXPECT_NE(e.find("layer 1"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown module 'Frobnicate'"), std::string::npos) << e;
  e = model_error(head + "  - [-1, 1, Conv, [abc]]\nhead:\n  - [[1], 1, Detect, [nc]]\n");
  EXPECT_NE(e.find("layer 1"), std::string::npos) << e;
  EXPECT_NE(e.find("integer"), std::string::npos) << e;
  e = model_error(head + "  - [5, 1, Conv, [16]]\nhead:\n  - [[1], 1, Detect, [nc]]\n");
  EXPECT_NE(e.find("does not name an earlier layer"), std::string::npos) << e;
  e = model_error(head + "  - [-1, 1, Conv]\n");
  EXPECT_NE(e.find("[from, repeats, module, args]"), std::string::npos) << e;
  e = model_error(head);
  EXPECT_NE(e.find("last layer must be Detect"), std::string::npos) << e;
  e = model_error("nc: [1\n");
  EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
  e = model_error(head + "  - [-1, 1, C2f, [16, maybe]]\nhead:\n  - [[1], 1, Detect, [nc]]\n");
  EXPECT_NE(e.find("True or False"), std::string::npos) << e;
}
