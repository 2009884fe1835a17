// The `yolo` element's steady state asks the heap for nothing: frames through the element on a
// real model (GstHarness), with every malloc of the process counted per thread
// (allocation_counter.h).
//
// The streaming side (the chain call: mapping, colour conversion, letterbox, hand-over to the
// batcher) is counted on the pushing thread; the output side (result wait, NMS, metas, drawing,
// push) on the element's "yolo-out" thread, where each allocation is attributed by its caller:
// GStreamer's meta API allocates for every meta (a GstStructure per detection, GLib's slices),
// which is GStreamer's design and is reported, not counted against the element. The model call
// runs on the batcher's thread ("yolo-batcher"): LibTorch's interpreter and op outputs allocate
// there, also reported (the engine's, not the element's).
//
// YOLO_TRACE_ALLOCATIONS=streaming (or =yolo-out) prints the call stack of each counted
// allocation, to find which code a failing count comes from.
#include <gst/check/gstharness.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "allocation_counter.h"
#include "gst_test_support.h"
#include "harness_frames.h"
#include "yolo/gst/detection_meta.h"

namespace {

::testing::Environment* const gst_env =
    ::testing::AddGlobalTestEnvironment(new yolo::testing::GstEnvironment);

using yolo::testing::allocations_between;
using yolo::testing::allocations_by_thread;
using yolo::testing::allocations_of_this_thread;
using yolo::testing::Buffer;
using yolo::testing::caps_string;
using yolo::testing::Harness;
using yolo::testing::make_frame;

pid_t this_tid() {
  return static_cast<pid_t>(syscall(SYS_gettid));
}

bool tracing(const char* what) {
  const char* trace = std::getenv("YOLO_TRACE_ALLOCATIONS");
  return trace && std::string(trace) == what;
}

// Allocations per measured frame.
struct PerFrame {
  double streaming = 0;            // pushing thread, inside the chain call
  double output = 0;               // yolo-out, the element's own
  double output_by_gstreamer = 0;  // yolo-out, asked for by GLib / GStreamer
  double model = 0;                // yolo-batcher
  double detections = 0;
  double metas = 0;  // what GStreamer's meta API allocates for the same metas on a fresh buffer
};

// Pushes `warmup` then `measured` frames one at a time (each pulled before the next, so that
// every frame takes the whole path) and counts the measured ones.
PerFrame allocations_per_frame(const std::string& properties, const std::string& format, int w,
                               int h, int warmup = 20, int measured = 40) {
  const std::string desc = "yolo model=" + yolo::testing::tiny_model().string() + " " + properties;
  Harness harness(gst_harness_new_parse(desc.c_str()));
  gst_harness_set_src_caps_str(harness.get(), caps_string(format, w, h).c_str());
  // The frames exist before the count starts: making them is the source's work.
  std::vector<GstBuffer*> frames;
  for (int i = 0; i < warmup + measured; ++i)
    frames.push_back(make_frame(format, w, h, static_cast<guint64>(i)));
  std::vector<yolo::testing::ThreadAllocations> before;
  uint64_t streaming = 0, detections = 0, metas = 0;
  for (int i = 0; i < warmup + measured; ++i) {
    const bool counted = i >= warmup;
    if (i == warmup) {
      before = allocations_by_thread();
      for (const auto& t : before) {
        if (t.name != "yolo-out") continue;
        yolo::testing::attribute_allocations_of(t.tid);
        if (tracing("yolo-out")) yolo::testing::trace_allocations_of(t.tid);
      }
    }
    const bool trace_push = counted && tracing("streaming");
    if (trace_push) yolo::testing::trace_allocations_of(this_tid());
    const uint64_t pushing = allocations_of_this_thread();
    EXPECT_EQ(gst_harness_push(harness.get(), frames[static_cast<size_t>(i)]), GST_FLOW_OK);
    if (counted) streaming += allocations_of_this_thread() - pushing;
    if (trace_push) yolo::testing::trace_allocations_of(0);
    Buffer out(gst_harness_pull(harness.get()));
    EXPECT_TRUE(out);
    if (counted && out) {
      // The frame's metas again, on a fresh buffer on this thread: GStreamer's own cost for them,
      // which the output thread's GStreamer-made allocations must not exceed (the element
      // calls GStreamer for nothing else per frame).
      const std::vector<yolo::Detection> boxes =
          yolo::gst::read_roi_metas(out.get(), yolo::gst::RoiRegions::kDetections, w, h);
      detections += boxes.size();
      Buffer fresh(gst_buffer_new());
      const uint64_t attaching = allocations_of_this_thread();
      yolo::gst::mark_inference(fresh.get(), true, 0);
      if (yolo::gst::inference_mark(out.get()).value_or(false))
        yolo::gst::attach_roi_metas(fresh.get(), boxes, w, h);
      metas += allocations_of_this_thread() - attaching;
    }
  }
  yolo::testing::trace_allocations_of(0);
  const auto after = allocations_by_thread();
  const auto output = allocations_between(before, after, "yolo-out");
  const auto model = allocations_between(before, after, "yolo-batcher");
  PerFrame r;
  const auto per_frame = [&](uint64_t n) { return static_cast<double>(n) / measured; };
  r.streaming = per_frame(streaming);
  r.output = per_frame(output.count - output.by_gstreamer);
  r.output_by_gstreamer = per_frame(output.by_gstreamer);
  r.model = per_frame(model.count);
  r.detections = per_frame(detections);
  r.metas = per_frame(metas);
  std::printf(
      "[ measured ] %s %s %dx%d, allocations per frame: streaming %.2f, output %.2f (+ %.2f by "
      "GStreamer for %.1f detections; its metas alone: %.2f), model call %.0f (%.0f KiB)\n",
      format.c_str(), properties.c_str(), w, h, r.streaming, r.output, r.output_by_gstreamer,
      r.detections, r.metas, r.model, static_cast<double>(model.bytes) / measured / 1024);
  return r;
}

TEST(ElementAllocations, SteadyStateAllocatesNothingInEveryFormat) {
  // 160x120 letterboxes (and resizes) to the 64x64 model; conf 0 keeps boxes in every frame.
  for (const std::string format : {"I420", "NV12", "BGR", "RGBx"}) {
    const PerFrame a =
        allocations_per_frame("conf-threshold=0 max-detections=20", format, 160, 120);
    EXPECT_EQ(a.streaming, 0.0) << format;
    EXPECT_EQ(a.output, 0.0) << format;
    EXPECT_GT(a.detections, 0.0) << format << ": the NMS and metas path must run";
    // GLib's slice allocator refills a thread's cache now and then: a little slack, far less
    // than one more structure per detection.
    EXPECT_LE(a.output_by_gstreamer, a.metas + 1.0) << format;
  }
}

TEST(ElementAllocations, FramesOfTheModelsSizeBatchesAndIntervalsAllocateNothing) {
  // No resize (the frame is the model's size), a batch of 2 (filled by time-out, one stream),
  // and frames between inferences. (draw=true is left out: OpenCV's text drawing and the labels
  // allocate per box; it is a debugging aid, yolooverlay draws in production.)
  for (const std::string properties :
       {"conf-threshold=0", "conf-threshold=0 batch-size=2 batch-timeout=1000",
        "conf-threshold=0 inference-interval=2"}) {
    const int size = properties.find("batch") == std::string::npos ? 64 : 96;
    const PerFrame a = allocations_per_frame(properties, "I420", size, size);
    EXPECT_EQ(a.streaming, 0.0) << properties;
    EXPECT_EQ(a.output, 0.0) << properties;
    EXPECT_LE(a.output_by_gstreamer, a.metas + 1.0) << properties;
  }
}

}  // namespace
