// Validation metrics held to Ultralytics' own functions (label `parity`; skipped without the
// ultralytics package in the test Python): thousands of generated cases shaped like real data
// go through our matching, AP, P/R and confusion matrix and through Ultralytics' own
// (tools/parity/ultralytics_metrics.py: box_iou, match_predictions, DetMetrics,
// ConfusionMatrix), and every number must agree to 1e-6.
//
// The cases are what synthetic shapes never produce and real photos do (#52): many classes with
// one or two instances, crowded scenes of 100+ objects, several predictions on one object,
// predictions of classes no label has and labels no prediction finds, boxes on the image border,
// images without labels or without predictions, and confidences quantised so that many tie.
//
// Ties: ap_per_class orders predictions with np.argsort(-conf), which leaves the order of equal
// confidences to NumPy's sort (unspecified: introsort, or SIMD sorts on AVX-512 machines). Ours
// keeps them in the order given, as a stable sort does. So every case must equal Ultralytics run
// with that sort made stable, and Ultralytics as it runs wherever its own result does not depend
// on the tie order (the oracle scores both ways).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "oracle.h"
#include "test_files.h"
#include "yolo/trainer/metrics/metrics.h"

namespace fs = std::filesystem;
namespace m = yolo::metrics;
using nlohmann::json;

namespace {

constexpr int kCases = 2400;
constexpr double kTolerance = 1e-6;
constexpr int kMaxDet = 300;  // NMS keeps at most this many predictions per image

struct Image {
  std::vector<m::Label> labels;
  std::vector<m::Prediction> preds;  // descending confidence, as NMS returns them
};

struct Case {
  int nc = 1;
  std::vector<Image> images;
};

// A case generator: one random engine, every choice drawn from it.
class CaseMaker {
 public:
  explicit CaseMaker(unsigned seed) : rng_(seed) {}

  Case make() {
    Case c;
    c.nc = pick({1, 2, 3, 5, 20, 80});
    tie_levels_ = chance(0.3) ? pick({2, 3, 10, 50}) : 0;
    const float w = static_cast<float>(pick({640, 480, 320}));
    const float h = static_cast<float>(pick({640, 384, 480}));
    const int images = 1 + static_cast<int>(uniform(0, 12));
    for (int i = 0; i < images; ++i) c.images.push_back(image(c.nc, w, h));
    return c;
  }

 private:
  Image image(int nc, float w, float h) {
    Image im;
    const int labels = chance(0.05)   ? 100 + static_cast<int>(uniform(0, 60))  // a crowd
                       : chance(0.15) ? 0
                                      : static_cast<int>(uniform(1, 9));
    for (int i = 0; i < labels; ++i) im.labels.push_back({box(w, h), skewed_class(nc)});
    for (const m::Label& l : im.labels) {
      if (chance(0.2)) continue;  // missed
      const int copies = 1 + chance(0.3) + chance(0.1);
      for (int k = 0; k < copies; ++k) {
        const int cls = chance(0.85) ? l.cls : static_cast<int>(uniform(0, nc));
        im.preds.push_back({jitter(l.box, w, h), confidence(0.2f, 1.0f), cls});
      }
    }
    const int false_positives = chance(0.3) ? 0 : static_cast<int>(uniform(0, 12));
    for (int i = 0; i < false_positives; ++i) {
      // Any class, including ones no label of the case has.
      im.preds.push_back({box(w, h), confidence(0.001f, 0.7f), static_cast<int>(uniform(0, nc))});
    }
    std::stable_sort(
        im.preds.begin(), im.preds.end(),
        [](const m::Prediction& a, const m::Prediction& b) { return a.conf > b.conf; });
    if (im.preds.size() > kMaxDet) im.preds.resize(kMaxDet);
    return im;
  }

  // A box of log-uniform size anywhere in the image, snapped to the border now and then.
  m::Box box(float w, float h) {
    const float bw = std::exp(uniform(std::log(3.0), std::log(w * 0.6)));
    const float bh = std::exp(uniform(std::log(3.0), std::log(h * 0.6)));
    float x1 = uniform(-bw / 4, w - bw * 3 / 4), y1 = uniform(-bh / 4, h - bh * 3 / 4);
    if (chance(0.1)) x1 = 0;
    if (chance(0.1)) y1 = h - bh;
    const float x2 = std::min(x1 + bw, w), y2 = std::min(y1 + bh, h);
    return {std::max(x1, 0.0f), std::max(y1, 0.0f), x2, y2};
  }

  // The label's box moved and resized by up to a third of its size (IoU from about 0.3 to 1),
  // or exactly the label now and then, clipped to the image.
  m::Box jitter(const m::Box& b, float w, float h) {
    if (chance(0.1)) return b;
    const float bw = b.x2 - b.x1, bh = b.y2 - b.y1, s = uniform(0, 0.33);
    auto d = [&](float size) { return uniform(-s, s) * size; };
    return {std::clamp(b.x1 + d(bw), 0.0f, w), std::clamp(b.y1 + d(bh), 0.0f, h),
            std::clamp(b.x2 + d(bw), 0.0f, w), std::clamp(b.y2 + d(bh), 0.0f, h)};
  }

  // Uniform in [lo, hi], or one of tie_levels_ values there when the case ties confidences.
  float confidence(float lo, float hi) {
    const float u = uniform(0, 1);
    if (tie_levels_ == 0) return lo + (hi - lo) * u;
    const int level = std::min(static_cast<int>(u * tie_levels_), tie_levels_ - 1);
    return lo + (hi - lo) * static_cast<float>(level + 1) / static_cast<float>(tie_levels_);
  }

  // Few classes take most labels and most classes have one or two, as in real data.
  int skewed_class(int nc) {
    const double u = uniform(0, 1);
    return std::min(static_cast<int>(nc * u * u * u), nc - 1);
  }

  float uniform(double lo, double hi) {
    return static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(rng_));
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  int pick(std::initializer_list<int> options) {
    return *(options.begin() + static_cast<int>(uniform(0, static_cast<double>(options.size()))));
  }

  std::mt19937 rng_;
  int tie_levels_ = 0;
};

json to_json(const std::vector<Case>& cases) {
  json out = json::array();
  for (const Case& c : cases) {
    json images = json::array();
    for (const Image& im : c.images) {
      json labels = json::array(), preds = json::array();
      for (const m::Label& l : im.labels)
        labels.push_back({l.cls, l.box.x1, l.box.y1, l.box.x2, l.box.y2});
      for (const m::Prediction& p : im.preds)
        preds.push_back({p.box.x1, p.box.y1, p.box.x2, p.box.y2, p.conf, p.cls});
      images.push_back({{"labels", labels}, {"preds", preds}});
    }
    out.push_back({{"nc", c.nc}, {"images", images}});
  }
  return {{"cases", out}};
}

struct Ours {
  m::DetectionMetrics metrics;
  std::vector<double> confusion, confusion_val;  // at conf 0.25 and at validation's 0.001
};

Ours score(const Case& c) {
  m::DetectionStats stats(c.nc);
  m::ConfusionMatrix cm(c.nc), cm_val(c.nc, 0.001);
  for (const Image& im : c.images) {
    stats.add_image(im.preds, im.labels);
    cm.process_batch(im.preds, im.labels);
    cm_val.process_batch(im.preds, im.labels);
  }
  return {m::compute_detection_metrics(stats), cm.matrix(), cm_val.matrix()};
}

// Every number of `want` (the oracle's result) against ours; an empty string when all agree.
std::string differences(const m::DetectionMetrics& got, const json& want) {
  std::string out;
  auto check = [&](const std::string& what, double a, double b) {
    if (!(std::abs(a - b) <= kTolerance))
      out += what + " " + std::to_string(a) + " vs " + std::to_string(b) + "; ";
  };
  check("P", got.mp, want["p"]);
  check("R", got.mr, want["r"]);
  check("mAP50", got.map50, want["map50"]);
  check("mAP75", got.map75, want["map75"]);
  check("mAP50-95", got.map50_95, want["map"]);
  const std::vector<int> classes = want["classes"];
  if (got.per_class.classes != classes) return out + "classes differ";
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const m::ClassMetrics row = got.class_result(i);
    check("AP50 of class " + std::to_string(classes[i]), row.ap50, want["ap50"][i]);
    check("AP50-95 of class " + std::to_string(classes[i]), row.ap50_95, want["ap"][i]);
  }
  return out;
}

bool same_result(const json& a, const json& b) {
  for (const char* key : {"p", "r", "map50", "map75", "map"}) {
    if (std::abs(a[key].get<double>() - b[key].get<double>()) > kTolerance) return false;
  }
  return a["ap"] == b["ap"];
}

}  // namespace

TEST(MetricsParity, RandomCasesEqualUltralyticsOwnFunctions) {
  YOLO_REQUIRE_ORACLE();
  CaseMaker maker(20261206);
  std::vector<Case> cases;
  for (int i = 0; i < kCases; ++i) cases.push_back(maker.make());
  yolo::testing::TempDir tmp("metrics_parity");
  std::ofstream(tmp.path / "cases.json") << to_json(cases).dump();
  const json done =
      yolo::parity::oracle_json("ultralytics_metrics.py '" + (tmp.path / "cases.json").string() +
                                    "' '" + (tmp.path / "oracle.json").string() + "'",
                                tmp.path);
  ASSERT_TRUE(done.is_object()) << "the oracle scored nothing";
  json oracle;
  std::ifstream(tmp.path / "oracle.json") >> oracle;
  ASSERT_EQ(oracle["cases"].size(), cases.size());

  std::size_t images = 0, labels = 0, preds = 0, tie_dependent = 0, failures = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const json& theirs = oracle["cases"][i];
    const Ours ours = score(cases[i]);
    for (const Image& im : cases[i].images) {
      ++images;
      labels += im.labels.size();
      preds += im.preds.size();
    }
    const bool depends_on_ties = !same_result(theirs["default"], theirs["stable"]);
    tie_dependent += depends_on_ties;
    const std::string stable = differences(ours.metrics, theirs["stable"]);
    const std::string as_run =
        depends_on_ties ? std::string() : differences(ours.metrics, theirs["default"]);
    const std::vector<double> confusion = theirs["confusion"], val = theirs["confusion_val"];
    const bool confusion_differs = ours.confusion != confusion || ours.confusion_val != val;
    if (!stable.empty() || !as_run.empty() || confusion_differs) {
      if (++failures <= 10) {
        ADD_FAILURE() << "case " << i << " (nc " << cases[i].nc << ", " << cases[i].images.size()
                      << " images): " << stable << as_run
                      << (confusion_differs ? "confusion matrix differs" : "");
      }
    }
  }
  std::printf(
      "%zu cases, %zu images, %zu labels, %zu predictions: %zu differ; Ultralytics' own result "
      "depends on NumPy's order of tied confidences in %zu\n",
      cases.size(), images, labels, preds, failures, tie_dependent);
  EXPECT_EQ(failures, 0u);
  // Most cases are scored against Ultralytics as it runs, not only its stable variant.
  EXPECT_LT(tie_dependent, cases.size() / 4);
}
