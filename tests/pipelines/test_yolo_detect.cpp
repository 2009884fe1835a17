// End to end through the `yolo` element: a small detector trained by yolo-trainer on an easy
// synthetic shapes set finds the shapes of the synthetic video in a real decoding pipeline
// (filesrc ! decodebin ! videoconvert ! yolo ! appsink). Recall at IoU 0.5 against the video's
// per-frame ground truth must reach 0.8.
//
// The model and video come from trained_shapes_model.h (trained once per build folder, cached).
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "../parity/oracle.h"
#include "decoded_frames.h"
#include "gst_test_support.h"
#include "run_command.h"
#include "test_files.h"
#include "trained_shapes_model.h"
#include "yolo/gst/detection_meta.h"

namespace fs = std::filesystem;

namespace {

struct Box {
  float x1, y1, x2, y2;
  int cls;
};

float iou(const Box& a, const Box& b) {
  const float iw = std::max(0.f, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  const float ih = std::max(0.f, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  const float inter = iw * ih;
  const float uni = (a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter;
  return uni > 0 ? inter / uni : 0;
}

// The element's default confidence threshold (precision is printed too).
constexpr double kConf = 0.25;

::testing::Environment* const gst_env =
    ::testing::AddGlobalTestEnvironment(new yolo::testing::GstEnvironment);

}  // namespace

TEST(YoloDetect, FindsTheShapesOfTheSyntheticVideo) {
  // YOLO_DETECT_MODEL / YOLO_DETECT_VIDEO evaluate another model or video (its ground truth is
  // the .jsonl next to it) without training: for sizing the training above.
  const char* model_override = std::getenv("YOLO_DETECT_MODEL");
  const char* video_override = std::getenv("YOLO_DETECT_VIDEO");
  yolo::testing::TrainedShapes f;
  if (model_override && video_override) {
    f = {video_override, fs::path(video_override).replace_extension(".jsonl"), model_override};
  } else {
    f = yolo::testing::trained_shapes_model();
  }
  ASSERT_TRUE(fs::exists(f.model)) << "training did not produce " << f.model;
  if (f.video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";

  const std::string desc = "filesrc location=" + f.video.string() +
                           " ! decodebin ! videoconvert ! yolo model=" + f.model.string() +
                           " conf-threshold=" + std::to_string(kConf) +
                           " ! appsink name=sink sync=false";
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(desc.c_str(), &error);
  ASSERT_EQ(error, nullptr);
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  std::vector<std::vector<yolo::Detection>> per_frame;
  while (GstSample* sample = gst_app_sink_pull_sample(GST_APP_SINK(sink))) {
    per_frame.push_back(yolo::gst::read_roi_metas(gst_sample_get_buffer(sample)));
    gst_sample_unref(sample);
  }
  gst_object_unref(sink);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);

  std::ifstream in(f.labels);
  std::string line;
  size_t frame = 0, truths = 0, found = 0, predictions = 0, correct = 0;
  while (std::getline(in, line)) {
    ASSERT_LT(frame, per_frame.size()) << "the pipeline returned fewer frames than the video has";
    const auto j = nlohmann::json::parse(line);
    std::vector<Box> gt;
    for (const auto& o : j["objects"]) {
      if (o["visibility"].get<double>() < 0.5) continue;  // mostly hidden: not expected
      gt.push_back({o["x1"].get<float>(), o["y1"].get<float>(), o["x2"].get<float>(),
                    o["y2"].get<float>(), o["class_id"].get<int>()});
    }
    std::vector<bool> taken(gt.size(), false);
    auto dets = per_frame[frame];
    std::sort(dets.begin(), dets.end(),
              [](const auto& a, const auto& b) { return a.confidence > b.confidence; });
    for (const auto& d : dets) {
      ++predictions;
      const Box p{d.x1, d.y1, d.x2, d.y2, d.class_id};
      int best = -1;
      float best_iou = 0.5f;
      for (size_t g = 0; g < gt.size(); ++g) {
        const float v = iou(p, gt[g]);
        if (!taken[g] && gt[g].cls == p.cls && v >= best_iou) {
          best = static_cast<int>(g);
          best_iou = v;
        }
      }
      if (best >= 0) {
        taken[static_cast<size_t>(best)] = true;
        ++correct;
      }
    }
    truths += gt.size();
    found += static_cast<size_t>(std::count(taken.begin(), taken.end(), true));
    ++frame;
  }
  ASSERT_GT(truths, 0u);
  const double recall = static_cast<double>(found) / truths;
  const double precision = predictions ? static_cast<double>(correct) / predictions : 0;
  std::printf("video: %zu frames, %zu objects, recall %.3f, precision %.3f at conf %.2f, IoU 0.5\n",
              frame, truths, recall, precision, kConf);
  EXPECT_GE(recall, 0.8) << "precision " << precision;
}

// draw=true is a shortcut for `yolo ! yolooverlay`: the same pixels, on a model whose boxes have
// sub-pixel edges (an untrained model's cover the whole frame).
TEST(YoloDetect, OverlayDrawsWhatDrawTrueDraws) {
  const yolo::testing::TrainedShapes f = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(f.model)) << "training did not produce " << f.model;
  if (f.video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";
  const std::string yolo = "yolo model=" + f.model.string();
  const auto plain = yolo::testing::frames_through(f.video);
  const auto drawn = yolo::testing::frames_through(f.video, yolo + " draw=true");
  const auto overlaid = yolo::testing::frames_through(f.video, yolo + " ! yolooverlay");
  ASSERT_EQ(drawn.size(), plain.size());
  ASSERT_EQ(overlaid.size(), plain.size());
  size_t annotated = 0;
  for (size_t i = 0; i < plain.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_EQ(drawn[i], overlaid[i]);
    annotated += overlaid[i] != plain[i];
  }
  EXPECT_GT(annotated, plain.size() / 2) << "most frames have shapes to draw";
}

namespace {

// The element's detections on every frame of `video` with `model`.
std::vector<std::vector<yolo::Detection>> element_detections(const fs::path& video,
                                                             const fs::path& model) {
  std::vector<std::vector<yolo::Detection>> per_frame;
  yolo::testing::each_buffer_through(
      video, "yolo model=" + model.string() + " conf-threshold=" + std::to_string(kConf),
      [&](GstBuffer* buffer) { per_frame.push_back(yolo::gst::read_roi_metas(buffer)); });
  return per_frame;
}

}  // namespace

// The same weights as an Ultralytics .pt (Ultralytics' DetectionModel, saved by its
// strip_optimizer: FP16) through `yolo model=x.pt`: the element builds and traces it at load and
// finds what the TorchScript checkpoint finds, frame by frame. The FP16 rounding of the weights
// moves boxes by a fraction of a pixel, and the element's boxes are whole pixels: a 30-pixel box
// one pixel off has IoU 0.93.
TEST(YoloDetect, UltralyticsPtFindsWhatItsTorchScriptFinds) {
  YOLO_REQUIRE_ORACLE();
  const yolo::testing::TrainedShapes f = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(f.model)) << "training did not produce " << f.model;
  if (f.video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";
  yolo::testing::TempDir tmp("detect_ultralytics_pt");
  const fs::path pt = tmp.path / "shapes.pt";
  ASSERT_TRUE(
      yolo::parity::oracle_json(
          "ultralytics_pt.py wrap '" + f.model.string() + "' '" + pt.string() + "'", tmp.path)
          .is_object());
  const auto ours = element_detections(f.video, f.model);
  const auto from_pt = element_detections(f.video, pt);
  ASSERT_GT(ours.size(), 0u) << "the pipeline gave no frames";
  ASSERT_EQ(ours.size(), from_pt.size());
  size_t boxes = 0, matched = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    for (const auto& a : ours[i]) {
      ++boxes;
      const Box pa{a.x1, a.y1, a.x2, a.y2, a.class_id};
      bool found = false;
      for (const auto& b : from_pt[i]) {
        if (b.class_id == a.class_id && iou(pa, {b.x1, b.y1, b.x2, b.y2, b.class_id}) >= 0.9f &&
            std::abs(a.confidence - b.confidence) <= 0.02f) {
          found = true;
          break;
        }
      }
      matched += found;
      if (!found) {
        std::printf("frame %zu: box (%.1f %.1f %.1f %.1f) conf %.3f not found; the .pt gave", i,
                    a.x1, a.y1, a.x2, a.y2, a.confidence);
        for (const auto& b : from_pt[i])
          std::printf(" (%.1f %.1f %.1f %.1f) %.3f", b.x1, b.y1, b.x2, b.y2, b.confidence);
        std::printf("\n");
      }
    }
  }
  std::printf("%zu of %zu boxes found again from the .pt\n", matched, boxes);
  EXPECT_GE(boxes, ours.size()) << "the detector found too little to compare";
  // A box whose confidence sits at the threshold may fall on either side of it.
  EXPECT_GE(matched, boxes * 98 / 100);
}
