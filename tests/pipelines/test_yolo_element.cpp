// The `yolo` element through GstHarness: caps for every format, ROI metas in the frame's
// coordinates (against the runtime Engine on the same frame), padded strides, inference-interval,
// EOS with a partial batch, flushing, cross-stream batching, latency and allocation queries,
// drawing, messages and load errors.
#include <gst/check/gstharness.h>
#include <gst/video/gstvideometa.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <opencv2/imgproc.hpp>
#include <thread>
#include <utility>
#include <vector>

#include "gst_test_support.h"
#include "harness_frames.h"
#include "yolo/gst/detection_meta.h"
#include "yolo/runtime/engine.h"
#include "yolo/runtime/image_detect.h"
#include "yolo/runtime/inference_settings.h"

namespace {

using yolo::Detection;

::testing::Environment* const gst_env =
    ::testing::AddGlobalTestEnvironment(new yolo::testing::GstEnvironment);

using yolo::testing::Buffer;
using yolo::testing::caps_string;
using yolo::testing::Harness;
using yolo::testing::make_frame;

Harness make_harness(const std::string& properties) {
  const std::string desc = "yolo model=" + yolo::testing::tiny_model().string() + " " + properties;
  return Harness(gst_harness_new_parse(desc.c_str()));
}

std::vector<Detection> sorted(std::vector<Detection> d) {
  std::sort(d.begin(), d.end(), [](const Detection& a, const Detection& b) {
    return std::tie(a.x1, a.y1, a.x2, a.y2) < std::tie(b.x1, b.y1, b.x2, b.y2);
  });
  return d;
}

// A counter of the `stats` property of the harness' yolo element.
guint64 stat(const Harness& h, const char* field) {
  GstElement* element = gst_harness_find_element(h.get(), "yolo");
  GstStructure* s = nullptr;
  g_object_get(element, "stats", &s, nullptr);
  gst_object_unref(element);
  guint64 v = 0;
  gst_structure_get_uint64(s, field, &v);
  gst_structure_free(s);
  return v;
}

// A time of the `stats` property (its mean-*-us fields, model-mean-batch).
double time_stat(const Harness& h, const char* field) {
  GstElement* element = gst_harness_find_element(h.get(), "yolo");
  GstStructure* s = nullptr;
  g_object_get(element, "stats", &s, nullptr);
  gst_object_unref(element);
  double v = -1;
  EXPECT_TRUE(gst_structure_get_double(s, field, &v)) << field;
  gst_structure_free(s);
  return v;
}

// The engine's detections of `frame` (conf 0, 20 boxes), as detect_images gives them.
torch::Tensor engine_boxes(yolo::Engine& engine, const cv::Mat& frame, bool rect) {
  yolo::NmsOptions nms;
  nms.conf = 0;
  nms.max_det = 20;
  return yolo::detect_images(engine, {frame}, nms, nullptr, rect).front().boxes;
}

// The element's ROI metas (sorted) are the engine's boxes rounded outwards to whole pixels.
void expect_engine_boxes(const std::vector<Detection>& got, const torch::Tensor& boxes) {
  ASSERT_EQ(static_cast<size_t>(boxes.size(0)), got.size());
  std::vector<Detection> want;
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    auto r = boxes[i];
    Detection d;
    d.x1 = std::floor(r[0].item<float>());
    d.y1 = std::floor(r[1].item<float>());
    d.x2 = std::ceil(r[2].item<float>());
    d.y2 = std::ceil(r[3].item<float>());
    d.confidence = r[4].item<float>();
    d.class_id = static_cast<int>(r[5].item<float>());
    want.push_back(d);
  }
  want = sorted(want);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].x1, want[i].x1);
    EXPECT_EQ(got[i].y1, want[i].y1);
    EXPECT_EQ(got[i].x2, want[i].x2);
    EXPECT_EQ(got[i].y2, want[i].y2);
    EXPECT_NEAR(got[i].confidence, want[i].confidence, 1e-5);
    EXPECT_EQ(got[i].class_id, want[i].class_id);
  }
}

}  // namespace

TEST(YoloElement, EveryFormatNegotiatesAndGetsDetectionsInsideTheFrame) {
  for (const std::string format : {"RGB", "BGR", "RGBx", "BGRx", "RGBA", "BGRA", "NV12", "I420"}) {
    SCOPED_TRACE(format);
    Harness h = make_harness("conf-threshold=0 max-detections=5");
    gst_harness_set_src_caps_str(h.get(), caps_string(format, 96, 64).c_str());
    ASSERT_EQ(gst_harness_push(h.get(), make_frame(format, 96, 64)), GST_FLOW_OK);
    Buffer out(gst_harness_pull(h.get()));
    ASSERT_TRUE(out);
    GstCaps* caps = gst_pad_get_current_caps(h->sinkpad);
    GstCaps* expected = gst_caps_from_string(caps_string(format, 96, 64).c_str());
    EXPECT_TRUE(gst_caps_is_equal(caps, expected));
    gst_caps_unref(caps);
    gst_caps_unref(expected);
    const std::vector<Detection> dets = yolo::gst::read_roi_metas(out.get());
    EXPECT_EQ(dets.size(), 5u);  // untrained model, conf 0: max-detections boxes
    for (const Detection& d : dets) {
      EXPECT_GE(d.x1, 0);
      EXPECT_GE(d.y1, 0);
      EXPECT_LE(d.x2, 96);
      EXPECT_LE(d.y2, 64);
      EXPECT_LE(d.x1, d.x2);
      EXPECT_TRUE(d.class_name == "a" || d.class_name == "b" || d.class_name == "c");
    }
  }
}

TEST(YoloElement, RoiMetasAreTheEnginesBoxesInFramePixels) {
  // A non-square frame letterboxed into a square model: the element must map boxes back exactly
  // as detect_images does (boxes rounded outwards to whole pixels).
  const int w = 200, h = 120;
  Harness hs = make_harness("conf-threshold=0 max-detections=20");
  gst_harness_set_src_caps_str(hs.get(), caps_string("BGR", w, h).c_str());
  GstBuffer* in = make_frame("BGR", w, h);
  cv::Mat frame(h, w, CV_8UC3);
  gst_buffer_extract(in, 0, frame.data, frame.total() * 3);
  ASSERT_EQ(gst_harness_push(hs.get(), in), GST_FLOW_OK);
  Buffer out(gst_harness_pull(hs.get()));
  std::vector<Detection> got = sorted(yolo::gst::read_roi_metas(out.get()));

  yolo::Engine engine(yolo::testing::tiny_model().string(), {});
  expect_engine_boxes(got, engine_boxes(engine, frame, false));
}

// On a model that runs any size, a 16:9 stream runs at its smallest stride-multiple rectangle
// (192x108 at 128: 128x96) by default, as detect_images(rect) does, and square with rect=false.
TEST(YoloElement, ACheckpointRunsEachStreamAtItsOwnRectangle) {
  const std::string model =
      yolo::testing::tiny_model("yolov8n.yaml", 128, 128, 3, 'a', /*checkpoint=*/true).string();
  const int w = 192, h = 108;
  GstBuffer* in = make_frame("BGR", w, h);
  cv::Mat frame(h, w, CV_8UC3);
  gst_buffer_extract(in, 0, frame.data, frame.total() * 3);
  yolo::Engine engine(model, {});
  ASSERT_TRUE(engine.rect());
  const torch::Tensor rect_boxes = engine_boxes(engine, frame, true);
  const torch::Tensor square_boxes = engine_boxes(engine, frame, false);
  ASSERT_EQ(engine.prepared_shapes().size(), 2u) << "128x128 and 96x128";
  ASSERT_FALSE(rect_boxes.sizes() == square_boxes.sizes() && rect_boxes.equal(square_boxes))
      << "the two inputs must give boxes that tell them apart";
  for (const bool rect : {true, false}) {
    SCOPED_TRACE(rect ? "rect" : "square");
    Harness hs(gst_harness_new_parse(
        ("yolo model=" + model +
         " conf-threshold=0 max-detections=20 rect=" + (rect ? "true" : "false"))
            .c_str()));
    gst_harness_set_src_caps_str(hs.get(), caps_string("BGR", w, h).c_str());
    ASSERT_EQ(gst_harness_push(hs.get(), gst_buffer_copy(in)), GST_FLOW_OK);
    Buffer out(gst_harness_pull(hs.get()));
    expect_engine_boxes(sorted(yolo::gst::read_roi_metas(out.get())),
                        rect ? rect_boxes : square_boxes);
  }
  gst_buffer_unref(in);
}

TEST(YoloElement, PaddedRowsFromVideoMetaGiveTheSameDetections) {
  const int w = 100, h = 60;
  const gint padded_stride = 512;
  Harness a = make_harness("conf-threshold=0 max-detections=8");
  Harness b = make_harness("conf-threshold=0 max-detections=8");
  gst_harness_set_src_caps_str(a.get(), caps_string("BGR", w, h).c_str());
  gst_harness_set_src_caps_str(b.get(), caps_string("BGR", w, h).c_str());
  GstBuffer* packed = make_frame("BGR", w, h);
  // The same pixels with 512-byte rows and a 64-byte offset, described by a GstVideoMeta.
  GstBuffer* padded = gst_buffer_new_allocate(nullptr, 64 + padded_stride * h, nullptr);
  GstMapInfo src, dst;
  gst_buffer_map(packed, &src, GST_MAP_READ);
  gst_buffer_map(padded, &dst, GST_MAP_WRITE);
  std::memset(dst.data, 255, dst.size);
  for (int y = 0; y < h; ++y)
    std::memcpy(dst.data + 64 + y * padded_stride, src.data + y * w * 3, w * 3);
  gst_buffer_unmap(padded, &dst);
  gst_buffer_unmap(packed, &src);
  gsize offsets[GST_VIDEO_MAX_PLANES] = {64};
  gint strides[GST_VIDEO_MAX_PLANES] = {padded_stride};
  gst_buffer_add_video_meta_full(padded, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_BGR, w, h, 1,
                                 offsets, strides);
  ASSERT_EQ(gst_harness_push(a.get(), packed), GST_FLOW_OK);
  ASSERT_EQ(gst_harness_push(b.get(), padded), GST_FLOW_OK);
  Buffer out_a(gst_harness_pull(a.get())), out_b(gst_harness_pull(b.get()));
  const auto da = sorted(yolo::gst::read_roi_metas(out_a.get()));
  const auto db = sorted(yolo::gst::read_roi_metas(out_b.get()));
  ASSERT_EQ(da.size(), db.size());
  ASSERT_FALSE(da.empty());
  for (size_t i = 0; i < da.size(); ++i) {
    EXPECT_EQ(da[i].x1, db[i].x1);
    EXPECT_EQ(da[i].y2, db[i].y2);
    EXPECT_FLOAT_EQ(da[i].confidence, db[i].confidence);
  }
}

TEST(YoloElement, InferenceIntervalLeavesTheFramesBetweenWithoutMetas) {
  Harness h = make_harness("conf-threshold=0 max-detections=3 inference-interval=3");
  gst_harness_set_src_caps_str(h.get(), caps_string("BGRx", 64, 48).c_str());
  for (int i = 0; i < 7; ++i)
    ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGRx", 64, 48, i)), GST_FLOW_OK);
  for (int i = 0; i < 7; ++i) {
    Buffer out(gst_harness_pull(h.get()));
    ASSERT_TRUE(out);
    EXPECT_EQ(GST_BUFFER_PTS(out.get()), static_cast<GstClockTime>(i) * GST_SECOND / 30)
        << "frames leave in order";
    EXPECT_EQ(yolo::gst::read_roi_metas(out.get()).size(), i % 3 == 0 ? 3u : 0u) << "frame " << i;
  }
  EXPECT_EQ(stat(h, "frames"), 7u);
  EXPECT_EQ(stat(h, "inferred"), 3u);
  EXPECT_EQ(stat(h, "skipped-interval"), 4u);
}

// A camera that changes resolution ten times in a row: each frame is inferred at its own size,
// and a frame of the previous size arriving under the new caps (what a leaky queue upstream can
// deliver) is dropped and counted, not an error that ends the stream.
TEST(YoloElement, ResolutionChangesKeepTheStreamAndDropOnlyAnUnfitFrame) {
  Harness h = make_harness("conf-threshold=0 max-detections=3");
  const std::vector<std::pair<int, int>> sizes = {{64, 64}, {128, 48}, {96, 96}, {160, 64}};
  std::vector<std::pair<int, int>> pushed;
  guint64 pts = 0;
  int unfit = 0;
  for (int change = 0; change < 10; ++change) {
    const auto [w, hgt] = sizes[change % sizes.size()];
    gst_harness_set_src_caps_str(h.get(), caps_string("I420", w, hgt).c_str());
    if (change % 2 == 1) {
      // A frame of the previous size under the new caps; it is the smaller one at odd changes
      // (a larger one maps; the monitor's queue guard is what keeps those out).
      const auto [pw, ph] = sizes[(change - 1) % sizes.size()];
      ASSERT_EQ(gst_harness_push(h.get(), make_frame("I420", pw, ph, pts++)), GST_FLOW_OK)
          << "change " << change;
      ++unfit;
    }
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(gst_harness_push(h.get(), make_frame("I420", w, hgt, pts++)), GST_FLOW_OK)
          << "change " << change;
      pushed.emplace_back(w, hgt);
    }
  }
  for (size_t i = 0; i < pushed.size(); ++i) {
    Buffer out(gst_harness_pull(h.get()));
    ASSERT_TRUE(out) << "frame " << i;
    EXPECT_EQ(gst_buffer_get_size(out.get()),
              static_cast<gsize>(pushed[i].first * pushed[i].second * 3 / 2))
        << "frame " << i << " left in order";
    const std::vector<Detection> boxes = yolo::gst::read_roi_metas(out.get());
    EXPECT_EQ(boxes.size(), 3u) << "frame " << i;
    for (const Detection& d : boxes) {
      EXPECT_LE(d.x2, pushed[i].first) << "frame " << i << " boxed at its own size";
      EXPECT_LE(d.y2, pushed[i].second) << "frame " << i << " boxed at its own size";
    }
  }
  EXPECT_EQ(stat(h, "unfit"), static_cast<guint64>(unfit));
  EXPECT_EQ(stat(h, "inferred"), pushed.size());
}

// The same for frames that are not inferred (inference-interval): a frame that does not fit its
// caps never travels on, whether or not the model sees it.
TEST(YoloElement, AnUnfitFrameIsDroppedEvenWhenItIsNotInferred) {
  Harness h = make_harness("conf-threshold=0 max-detections=3 inference-interval=3");
  gst_harness_set_src_caps_str(h.get(), caps_string("I420", 96, 96).c_str());
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("I420", 96, 96, 0)), GST_FLOW_OK);  // inferred
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("I420", 64, 64, 1)), GST_FLOW_OK);  // unfit
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("I420", 96, 96, 2)), GST_FLOW_OK);  // skipped
  // A decoder's padded frame (a video meta of 96x128 under 96x96 caps) fits, as GStreamer's own
  // frame mapping has it.
  GstBuffer* padded = make_frame("I420", 96, 128, 3);
  gst_buffer_add_video_meta(padded, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_I420, 96, 128);
  ASSERT_EQ(gst_harness_push(h.get(), padded), GST_FLOW_OK);
  for (guint64 pts : {0u, 2u, 3u}) {
    Buffer out(gst_harness_pull(h.get()));
    ASSERT_TRUE(out);
    EXPECT_EQ(GST_BUFFER_PTS(out.get()), pts * GST_SECOND / 30);
  }
  EXPECT_EQ(stat(h, "unfit"), 1u);
  EXPECT_EQ(stat(h, "frames"), 3u);
  EXPECT_EQ(stat(h, "skipped-interval"), 2u);  // numbered 0, 1, 2: the unfit frame never was
}

TEST(YoloElement, EosRunsAPartialBatchAndComesAfterItsFrames) {
  // batch-size 4 and a 30 s batch-timeout: three frames can only leave because EOS flushes them.
  Harness h = make_harness("conf-threshold=0 max-detections=2 batch-size=4 batch-timeout=10000000");
  gst_harness_set_src_caps_str(h.get(), caps_string("BGR", 64, 64).c_str());
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGR", 64, 64, i)), GST_FLOW_OK);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_eos()));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20))
      << "EOS waited for batch-timeout instead of flushing";
  // Everything the element pushed before forwarding EOS is already queued in the harness.
  EXPECT_EQ(gst_harness_buffers_in_queue(h.get()), 3u);
  for (int i = 0; i < 3; ++i) {
    Buffer out(gst_harness_pull(h.get()));
    EXPECT_EQ(yolo::gst::read_roi_metas(out.get()).size(), 2u);
  }
  EXPECT_EQ(stat(h, "model-batches"), 1u);
  EXPECT_EQ(stat(h, "largest-batch"), 3u);
  // Where the frames' time went: the three ran in one partial batch at EOS. (How much of the
  // model's call the output thread waited through depends on when it was scheduled: under load
  // it may start waiting after the call began, so only "it waited" is certain.)
  EXPECT_DOUBLE_EQ(time_stat(h, "model-mean-batch"), 3.0);
  EXPECT_GT(time_stat(h, "mean-preprocess-us"), 0.0);
  EXPECT_GT(time_stat(h, "model-mean-inference-us"), 0.0);
  EXPECT_GT(time_stat(h, "mean-result-wait-us"), 0.0);
  EXPECT_GT(time_stat(h, "mean-postprocess-us"), 0.0);
  EXPECT_GE(time_stat(h, "mean-backpressure-us"), 0.0);
  EXPECT_GE(time_stat(h, "mean-push-us"), 0.0);
  bool saw_eos = false;
  while (GstEvent* e = gst_harness_try_pull_event(h.get())) {
    saw_eos |= GST_EVENT_TYPE(e) == GST_EVENT_EOS;
    gst_event_unref(e);
  }
  EXPECT_TRUE(saw_eos);
}

TEST(YoloElement, FlushingUnblocksAndDropsQueuedFrames) {
  Harness h = make_harness("conf-threshold=0 batch-size=4 batch-timeout=10000000");
  gst_harness_set_src_caps_str(h.get(), caps_string("BGR", 64, 64).c_str());
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGR", 64, 64, i)), GST_FLOW_OK);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_flush_stop(TRUE)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(gst_harness_buffers_in_queue(h.get()), 0u) << "flushed frames must not come out";
  // Streaming resumes after the flush.
  gst_harness_push_event(h.get(), gst_event_new_segment([] {
                           static GstSegment s;
                           gst_segment_init(&s, GST_FORMAT_TIME);
                           return &s;
                         }()));
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGR", 64, 64, 5)), GST_FLOW_OK);
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_eos()));
  Buffer out(gst_harness_pull(h.get()));
  ASSERT_TRUE(out);
  EXPECT_EQ(GST_BUFFER_PTS(out.get()), 5 * GST_SECOND / 30);
}

TEST(YoloElement, TwoStreamsSharingAModelInstanceAreBatchedTogether) {
  // A 30 s batch-timeout: a batch only runs when it is full, i.e. holds one frame of each stream.
  const std::string props =
      "conf-threshold=0 max-detections=2 batch-size=2 batch-timeout=10000000 "
      "model-instance-id=shared-test ";
  Harness a = make_harness(props + "stream-id=cam-a");
  Harness b = make_harness(props + "stream-id=cam-b");
  gst_harness_set_src_caps_str(a.get(), caps_string("BGR", 64, 64).c_str());
  gst_harness_set_src_caps_str(b.get(), caps_string("NV12", 96, 64).c_str());
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(gst_harness_push(a.get(), make_frame("BGR", 64, 64, i)), GST_FLOW_OK);
    ASSERT_EQ(gst_harness_push(b.get(), make_frame("NV12", 96, 64, i)), GST_FLOW_OK);
    Buffer out_a(gst_harness_pull(a.get())), out_b(gst_harness_pull(b.get()));
    EXPECT_EQ(yolo::gst::read_roi_metas(out_a.get()).size(), 2u);
    EXPECT_EQ(yolo::gst::read_roi_metas(out_b.get()).size(), 2u);
  }
  // Both elements see the one shared model: 3 calls of 2 frames.
  EXPECT_EQ(stat(a, "model-batches"), 3u);
  EXPECT_EQ(stat(b, "model-frames"), 6u);
  EXPECT_EQ(stat(a, "largest-batch"), 2u);
  EXPECT_EQ(stat(a, "inferred"), 3u);
  EXPECT_EQ(stat(b, "inferred"), 3u);
}

TEST(YoloElement, LatencyQueryAddsTheBatchWait) {
  Harness h = make_harness("batch-size=4 batch-timeout=20000");
  gst_harness_set_src_caps_str(h.get(), caps_string("BGR", 64, 64).c_str());
  gst_harness_set_upstream_latency(h.get(), 10 * GST_MSECOND);
  GstQuery* q = gst_query_new_latency();
  ASSERT_TRUE(gst_pad_peer_query(h->sinkpad, q));
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency(q, &live, &min, &max);
  EXPECT_EQ(min, 30 * GST_MSECOND);
  gst_query_unref(q);
}

TEST(YoloElement, AllocationQueryAdvertisesRoiAndVideoMeta) {
  Harness h = make_harness("");
  gst_harness_set_src_caps_str(h.get(), caps_string("BGR", 64, 64).c_str());
  GstCaps* caps = gst_caps_from_string(caps_string("BGR", 64, 64).c_str());
  GstQuery* q = gst_query_new_allocation(caps, TRUE);
  ASSERT_TRUE(gst_pad_peer_query(h->srcpad, q));
  EXPECT_TRUE(
      gst_query_find_allocation_meta(q, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE, nullptr));
  EXPECT_TRUE(gst_query_find_allocation_meta(q, GST_VIDEO_META_API_TYPE, nullptr));
  gst_query_unref(q);
  gst_caps_unref(caps);
}

TEST(YoloElement, DrawPaintsBoxesOnPackedAndYuvFrames) {
  for (const std::string format : {"BGR", "RGBA", "NV12", "I420"}) {
    SCOPED_TRACE(format);
    Harness h = make_harness("conf-threshold=0 max-detections=3 draw=true");
    gst_harness_set_src_caps_str(h.get(), caps_string(format, 96, 64).c_str());
    GstBuffer* in = make_frame(format, 96, 64);
    const std::vector<uint8_t> before = yolo::testing::buffer_bytes(in);
    ASSERT_EQ(gst_harness_push(h.get(), in), GST_FLOW_OK);
    Buffer out(gst_harness_pull(h.get()));
    const std::vector<uint8_t> after = yolo::testing::buffer_bytes(out.get());
    ASSERT_EQ(before.size(), after.size());
    const auto changed = std::inner_product(before.begin(), before.end(), after.begin(), size_t{0},
                                            std::plus<>(), std::not_equal_to<>());
    EXPECT_GT(changed, 50u) << "the overlay should change pixels";
  }
}

TEST(YoloElement, WithoutDrawFramesPassThroughUntouched) {
  Harness h = make_harness("conf-threshold=0 max-detections=3");
  gst_harness_set_src_caps_str(h.get(), caps_string("I420", 96, 64).c_str());
  GstBuffer* in = make_frame("I420", 96, 64);
  const std::vector<uint8_t> before = yolo::testing::buffer_bytes(in);
  ASSERT_EQ(gst_harness_push(h.get(), in), GST_FLOW_OK);
  Buffer out(gst_harness_pull(h.get()));
  const std::vector<uint8_t> after = yolo::testing::buffer_bytes(out.get());
  EXPECT_EQ(before, after);
}

namespace {

// Runs `description` to its end and returns the first error message text ("" if none).
std::string first_error(const std::string& description) {
  GError* parse_error = nullptr;
  GstElement* pipeline = gst_parse_launch(description.c_str(), &parse_error);
  if (parse_error) {
    std::string m = parse_error->message;
    g_error_free(parse_error);
    if (pipeline) gst_object_unref(pipeline);
    return "parse: " + m;
  }
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* msg = gst_bus_timed_pop_filtered(
      bus, 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  std::string text;
  if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
    GError* err = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(msg, &err, &debug);
    text = std::string(err->message) + " | " + (debug ? debug : "");
    g_error_free(err);
    g_free(debug);
  }
  if (msg) gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return text;
}

}  // namespace

TEST(YoloElement, UnloadableModelsPostAnErrorNamingTheFile) {
  const std::string missing =
      first_error("videotestsrc num-buffers=2 ! yolo model=/no/such/best.pt ! fakesink");
  EXPECT_NE(missing.find("Could not load model '/no/such/best.pt'"), std::string::npos) << missing;

  const auto truncated =
      std::filesystem::path(YOLO_BINARY_DIR) / "test-models" / "truncated.torchscript";
  {
    std::ifstream in(yolo::testing::tiny_model(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(truncated, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  const std::string broken =
      first_error("videotestsrc num-buffers=2 ! yolo model=" + truncated.string() + " ! fakesink");
  EXPECT_NE(broken.find("Could not load model"), std::string::npos) << broken;
  EXPECT_NE(broken.find("truncated.torchscript"), std::string::npos) << broken;

  const std::string none = first_error("videotestsrc num-buffers=2 ! yolo ! fakesink");
  EXPECT_NE(none.find("No model set"), std::string::npos) << none;

  const std::string npu = first_error(
      "videotestsrc num-buffers=2 ! yolo model=" + yolo::testing::tiny_model().string() +
      " device=npu ! fakesink");
  EXPECT_NE(npu.find("npu"), std::string::npos) << npu;

  const std::string odd = first_error(
      "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=95,height=63 ! yolo model=" +
      yolo::testing::tiny_model().string() + " ! fakesink");
  EXPECT_NE(odd.find("odd size"), std::string::npos) << odd;
}

// Every element's number properties show their real range (the GParamSpec's minimum and maximum,
// which gst-inspect-1.0 prints), yet a value outside it still reaches the element, which refuses
// to start naming it: with a plain spec GLib would drop the value with a warning and the element
// would run on its default.
TEST(YoloElements, NumberPropertiesShowTheirRangeAndRefuseValuesOutsideIt) {
  struct Case {
    const char* factory;
    const char* property;
    double lo, hi;
  };
  const Case cases[] = {{"yolo", "conf-threshold", 0, 1},
                        {"yolo", "max-detections", 1, 30000},
                        {"yolo", "http-port", -1, 65535},
                        {"yolooverlay", "line-width", 0, 64},
                        {"yolooverlay", "trails", 0, 10000},
                        {"yolopublish", "mqtt-qos", 0, 1},
                        {"yolopublish", "buffer-max-messages", 1, 10000000}};
  for (const Case& c : cases) {
    GstElement* element = gst_element_factory_make(c.factory, nullptr);
    ASSERT_NE(element, nullptr) << c.factory;
    GParamSpec* p = g_object_class_find_property(G_OBJECT_GET_CLASS(element), c.property);
    ASSERT_NE(p, nullptr) << c.property;
    double lo = 0, hi = 0;
    if (G_IS_PARAM_SPEC_DOUBLE(p)) {
      lo = G_PARAM_SPEC_DOUBLE(p)->minimum, hi = G_PARAM_SPEC_DOUBLE(p)->maximum;
    } else if (G_IS_PARAM_SPEC_UINT(p)) {
      lo = G_PARAM_SPEC_UINT(p)->minimum, hi = G_PARAM_SPEC_UINT(p)->maximum;
    } else if (G_IS_PARAM_SPEC_INT(p)) {
      lo = G_PARAM_SPEC_INT(p)->minimum, hi = G_PARAM_SPEC_INT(p)->maximum;
    } else {
      ADD_FAILURE() << c.property << " is not a number property";
    }
    EXPECT_EQ(lo, c.lo) << c.factory << " " << c.property;
    EXPECT_EQ(hi, c.hi) << c.factory << " " << c.property;
    gst_object_unref(element);
  }
  // The shared inference settings are the yolo element's properties under their table names.
  GstElement* yolo_element = gst_element_factory_make("yolo", nullptr);
  const yolo::InferenceNames& n = yolo::kInferenceNames;
  for (const yolo::SettingNames* s : {&n.device, &n.conf, &n.iou, &n.max_det, &n.classes,
                                      &n.agnostic, &n.half, &n.bf16, &n.rect}) {
    if (!*s->element) continue;
    EXPECT_NE(g_object_class_find_property(G_OBJECT_GET_CLASS(yolo_element), s->element), nullptr)
        << s->element;
  }
  gst_object_unref(yolo_element);
  std::string e = first_error("videotestsrc num-buffers=2 ! yolooverlay line-width=100 ! fakesink");
  EXPECT_NE(e.find("line-width=100 is out of range: use 0 to 64"), std::string::npos) << e;
  e = first_error(
      "videotestsrc num-buffers=2 ! yolopublish url=mqtt://127.0.0.1:9 mqtt-qos=2 "
      "detections-every=2000000 ! fakesink");
  EXPECT_NE(e.find("mqtt-qos=2 is out of range: use 0 to 1"), std::string::npos) << e;
  EXPECT_NE(e.find("detections-every=2000000 is out of range: use 0 to 1000000"), std::string::npos)
      << e;
  EXPECT_EQ(first_error("videotestsrc num-buffers=2 ! yolooverlay line-width=64 trails=5 ! "
                        "fakesink"),
            "");
}

// Out-of-range values and classes the model does not have fail the start with the property, the
// value and the range named (GLib alone would warn and run on the default); a running stream
// keeps its previous value when one is changed to something invalid.
TEST(YoloElement, InvalidSettingsAreRefusedNamingTheProperty) {
  const std::string model = yolo::testing::tiny_model().string();
  auto error_with = [&](const std::string& props) {
    return first_error("videotestsrc num-buffers=2 ! yolo model=" + model + " " + props +
                       " ! fakesink");
  };
  std::string e = error_with("conf-threshold=2");
  EXPECT_NE(e.find("conf-threshold=2 is out of range: use 0 to 1"), std::string::npos) << e;
  e = error_with("iou-threshold=-0.5 batch-size=0");
  EXPECT_NE(e.find("iou-threshold=-0.5 is out of range"), std::string::npos) << e;
  EXPECT_NE(e.find("batch-size=0 is out of range: use 1 to 256"), std::string::npos) << e;
  e = error_with("classes=99");
  EXPECT_NE(e.find("'99' is not a class of this model (it has 0: a, 1: b, 2: c)"),
            std::string::npos)
      << e;
  e = error_with("classes=a,zebra");
  EXPECT_NE(e.find("'zebra' is not a class"), std::string::npos) << e;
  EXPECT_EQ(error_with("classes=2,a conf-threshold=1"), "");
  e = error_with("bf16=yes");
  EXPECT_NE(e.find("bf16=yes is not one of auto, true, false"), std::string::npos) << e;
  EXPECT_EQ(error_with("bf16=false"), "");
  EXPECT_EQ(error_with("bf16=true"), "");

  Harness h = make_harness("conf-threshold=0.5");
  gst_harness_set_src_caps_str(h.get(), caps_string("RGB", 96, 64).c_str());
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("RGB", 96, 64)), GST_FLOW_OK);
  Buffer out(gst_harness_pull(h.get()));
  GstElement* element = gst_harness_find_element(h.get(), "yolo");
  g_object_set(element, "conf-threshold", 7.0, nullptr);
  double conf = 0;
  g_object_get(element, "conf-threshold", &conf, nullptr);
  EXPECT_DOUBLE_EQ(conf, 0.5);
  g_object_set(element, "conf-threshold", 0.25, nullptr);
  g_object_get(element, "conf-threshold", &conf, nullptr);
  EXPECT_DOUBLE_EQ(conf, 0.25);
  gst_object_unref(element);

  // model-check-interval is a property like the others (it used to be neither set nor read).
  GstElement* idle = gst_element_factory_make("yolo", nullptr);
  ASSERT_NE(idle, nullptr);
  g_object_set(idle, "model-check-interval", 0u, nullptr);
  guint check = 1;
  g_object_get(idle, "model-check-interval", &check, nullptr);
  EXPECT_EQ(check, 0u);
  gst_object_unref(idle);
}

TEST(YoloElement, MessagesCarryTheDetections) {
  GError* error = nullptr;
  const std::string desc =
      "videotestsrc num-buffers=4 ! video/x-raw,width=80,height=48 ! videoconvert ! yolo model=" +
      yolo::testing::tiny_model().string() +
      " conf-threshold=0 max-detections=4 post-messages=true stream-id=msgcam ! fakesink";
  GstElement* pipeline = gst_parse_launch(desc.c_str(), &error);
  ASSERT_EQ(error, nullptr);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  int messages = 0;
  for (;;) {
    GstMessage* msg = gst_bus_timed_pop_filtered(
        bus, 60 * GST_SECOND,
        static_cast<GstMessageType>(GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_NE(msg, nullptr);
    const GstMessageType type = GST_MESSAGE_TYPE(msg);
    if (type == GST_MESSAGE_ELEMENT) {
      const GstStructure* s = gst_message_get_structure(msg);
      if (gst_structure_has_name(s, yolo::gst::kDetectionsMessage)) {
        EXPECT_STREQ(gst_structure_get_string(s, "stream-id"), "msgcam");
        guint64 frame = 99;
        gst_structure_get_uint64(s, "frame", &frame);
        EXPECT_EQ(frame, static_cast<guint64>(messages));
        const GValue* list = gst_structure_get_value(s, "detections");
        EXPECT_EQ(gst_value_list_get_size(list), 4u);
        const GstStructure* d = gst_value_get_structure(gst_value_list_get_value(list, 0));
        double x2 = -1;
        gst_structure_get_double(d, "x2", &x2);
        EXPECT_GE(x2, 0);
        EXPECT_LE(x2, 80);
        ++messages;
      }
    }
    gst_message_unref(msg);
    if (type != GST_MESSAGE_ELEMENT) {
      EXPECT_EQ(type, GST_MESSAGE_EOS);
      break;
    }
  }
  EXPECT_EQ(messages, 4);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

TEST(YoloElement, LateFramesSkipInferenceButPassThrough) {
  Harness h = make_harness("conf-threshold=0 max-detections=2");
  gst_harness_set_src_caps_str(h.get(), caps_string("BGR", 64, 64).c_str());
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGR", 64, 64, 0)), GST_FLOW_OK);
  Buffer first(gst_harness_pull(h.get()));
  EXPECT_EQ(yolo::gst::read_roi_metas(first.get()).size(), 2u);
  // Downstream reports that frames are 1 s late at running time 0: everything before 1 s is late.
  ASSERT_TRUE(gst_harness_push_upstream_event(
      h.get(), gst_event_new_qos(GST_QOS_TYPE_UNDERFLOW, 0.5, GST_SECOND, 0)));
  for (int i = 1; i <= 3; ++i)
    ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGR", 64, 64, i)), GST_FLOW_OK);
  for (int i = 1; i <= 3; ++i) {
    Buffer out(gst_harness_pull(h.get()));
    ASSERT_TRUE(out) << "late frames must still pass";
    EXPECT_TRUE(yolo::gst::read_roi_metas(out.get()).empty());
  }
  EXPECT_EQ(stat(h, "skipped-qos"), 3u);
  // A frame after the late window is inferred again.
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGR", 64, 64, 40)), GST_FLOW_OK);
  Buffer later(gst_harness_pull(h.get()));
  EXPECT_EQ(yolo::gst::read_roi_metas(later.get()).size(), 2u);
  // With qos=false the element ignores lateness.
  GstElement* yolo = gst_harness_find_element(h.get(), "yolo");
  g_object_set(yolo, "qos", FALSE, nullptr);
  gst_object_unref(yolo);
  ASSERT_TRUE(gst_harness_push_upstream_event(
      h.get(), gst_event_new_qos(GST_QOS_TYPE_UNDERFLOW, 0.5, 10 * GST_SECOND, 0)));
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGR", 64, 64, 41)), GST_FLOW_OK);
  Buffer kept(gst_harness_pull(h.get()));
  EXPECT_EQ(yolo::gst::read_roi_metas(kept.get()).size(), 2u);
}

TEST(YoloElement, ReplacedModelFileIsSwappedInWithoutStopping) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-models" / "swap";
  fs::create_directories(dir);
  const fs::path live = dir / "best.pt";
  fs::copy_file(yolo::testing::tiny_model(), live, fs::copy_options::overwrite_existing);
  const std::string desc =
      "yolo model=" + live.string() + " conf-threshold=0 max-detections=4 model-check-interval=50";
  Harness h(gst_harness_new_parse(desc.c_str()));
  gst_harness_set_src_caps_str(h.get(), caps_string("BGR", 96, 64).c_str());
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGR", 96, 64, 0)), GST_FLOW_OK);
  Buffer before(gst_harness_pull(h.get()));
  for (const auto& d : yolo::gst::read_roi_metas(before.get()))
    EXPECT_TRUE(d.class_name == "a" || d.class_name == "b" || d.class_name == "c");

  // A new training run renames its best.pt over the old one: another size, other classes.
  const fs::path tmp = dir / "best.pt.tmp";
  fs::copy_file(yolo::testing::tiny_model("yolov8n.yaml", 96, 96, 2, 'x'), tmp,
                fs::copy_options::overwrite_existing);
  fs::rename(tmp, live);
  std::vector<Detection> after;
  for (int i = 1; i < 200 && stat(h, "model-swaps") == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(stat(h, "model-swaps"), 1u) << "the replaced model was not picked up";
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGR", 96, 64, 1)), GST_FLOW_OK);
  Buffer out(gst_harness_pull(h.get()));
  after = yolo::gst::read_roi_metas(out.get());
  ASSERT_EQ(after.size(), 4u);
  for (const auto& d : after) {
    EXPECT_TRUE(d.class_name == "x" || d.class_name == "y") << d.class_name;
    EXPECT_LE(d.x2, 96);
    EXPECT_LE(d.y2, 64);
  }

  // A broken replacement is refused; the running model stays.
  { std::ofstream(tmp, std::ios::binary) << "not a model"; }
  fs::rename(tmp, live);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(stat(h, "model-swaps"), 1u);
  ASSERT_EQ(gst_harness_push(h.get(), make_frame("BGR", 96, 64, 2)), GST_FLOW_OK);
  Buffer still(gst_harness_pull(h.get()));
  EXPECT_EQ(yolo::gst::read_roi_metas(still.get()).size(), 4u);
}
