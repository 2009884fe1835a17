// Logic of the `yolo` element, plain C++; the GObject glue is in gst_yolo.cpp.
//
// The element's state and streaming work.
//
// Data flow. The streaming thread (submit_input_buffer) maps each frame, preprocesses it on the
// model's device (letterbox, colour conversion, normalisation: cpu_frame_preprocess.h on a CPU,
// device_preprocess.h on a GPU), submits it to the shared DynamicBatcher and queues it, with the
// slot its result arrives in, in `pending_`. An output thread
// takes queued frames in order, waits for their model output, runs NMS, attaches the ROI metas
// (and draws, publishes, posts) and pushes them downstream. So frames are pipelined: the next
// frames are preprocessed while a batch runs, one stream can fill a batch, and a frame leaves as
// soon as its result exists, not when the next frame arrives.
//
// Steady state without the heap (on a CPU device, with no HTTP endpoint or messages, whose stored
// results are new memory by nature): the settings are a shared snapshot, the input tensors and
// result slots come from pools, the queue is a reserved vector, NMS and the detections reuse
// their buffers. What is left is GStreamer's (a meta's structures per detection) and OpenCV's
// (the resize's coefficient table); test_element_allocations counts it.
//
// At most 2 x batch-size frames are in flight per element; upstream blocks beyond that
// (back-pressure; live sources put a leaky queue before the element). Serialized events (EOS,
// segments, caps) wait until every queued frame has been pushed, so a partial batch is finished
// before EOS. FLUSH_START wakes every wait and drops the queued frames.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "element_settings.h"
#include "result_publisher.h"
#include "yolo/runtime/cpu_frame_preprocess.h"
#include "yolo/runtime/detection.h"
#include "yolo/runtime/device_preprocess.h"
#include "yolo/runtime/frame_view.h"
#include "yolo/runtime/letterbox.h"
#include "yolo/runtime/postprocess.h"
#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/readiness_board.h"

namespace at {
class Tensor;
}

namespace yolo::gst {

class ModelInstance;
}  // namespace yolo::gst
namespace yolo {
class Engine;
class ResultSlot;
}  // namespace yolo
namespace yolo::gst {
class HttpService;

struct BufferUnref {
  void operator()(GstBuffer* b) const { gst_buffer_unref(b); }
};
using BufferPtr = std::unique_ptr<GstBuffer, BufferUnref>;

// Counters behind the read-only `stats` property.
struct ElementStats {
  uint64_t frames = 0;            // buffers received
  uint64_t inferred = 0;          // frames that got detections
  uint64_t skipped_interval = 0;  // frames skipped by inference-interval
  uint64_t skipped_qos = 0;       // frames too late for inference (QoS), passed on without it
  uint64_t dropped_by_batcher = 0;
  // Frames that do not fit the negotiated caps (a frame of the previous size after a resolution
  // change, from a leaky queue upstream): dropped, with one warning per caps.
  uint64_t unfit = 0;
  // Where a frame's time goes (bench_gst's breakdown), summed over the frames that were timed:
  //   backpressure  the streaming thread waiting for room (frames in flight at their limit)
  //   preprocess    mapping, colour conversion, letterbox and the hand-over to the batcher
  //   result_wait   the output thread waiting for the model's row (queue, batch wait, forward)
  //   postprocess   NMS, boxes to the frame, metas, drawing and publishing
  //   push          downstream's time in gst_pad_push
  uint64_t timed_in = 0, timed_out = 0;  // frames counted in the first two / the last three
  double backpressure_us = 0, preprocess_us = 0, result_wait_us = 0, postprocess_us = 0,
         push_us = 0;
};

class YoloLogic {
 public:
  explicit YoloLogic(GstBaseTransform* element);
  ~YoloLogic();
  YoloLogic(const YoloLogic&) = delete;
  YoloLogic& operator=(const YoloLogic&) = delete;

  // Properties: copies under the settings lock, readable from any thread.
  ElementSettings settings() const;
  // The settings now, shared (no copy: the per-frame paths read them without allocating).
  std::shared_ptr<const ElementSettings> current_settings() const;
  void update_settings(const std::function<void(ElementSettings&)>& change);

  // GstBaseTransform hooks.
  bool start();  // READY -> PAUSED: loads (or joins) the model, starts the output thread
  bool stop();   // PAUSED -> READY: stops the output thread, releases the model
  bool set_caps(GstCaps* caps);
  GstFlowReturn submit(GstBuffer* buffer);  // takes ownership
  // Serialized events: wait for every queued frame to be pushed. false when flushing.
  bool drain();
  void flush_start();
  void flush_stop();
  void on_qos(GstClockTimeDiff diff, GstClockTime timestamp);
  // What the element adds to the pipeline latency (the batch wait).
  GstClockTime added_latency() const;
  GstStructure* stats_structure() const;

 private:
  struct Pending {
    BufferPtr buffer;
    guint64 frame = 0;
    bool infer = false;
    std::shared_ptr<ResultSlot> result;  // from slot_pool_
    std::shared_ptr<Engine> engine;      // the model the frame was prepared for (hot swaps)
    LetterboxTransform transform;
    GstVideoInfo info;
    PixelFormat format = PixelFormat::kBGR;
    std::chrono::steady_clock::time_point arrived;
  };

  // start()'s HTTP step (http-port): joins or starts the shared service; false with an element
  // error when the port cannot be served.
  bool start_http(const ElementSettings& s);
  // Leaves the HTTP service: the stream's metrics and start-up state go with it.
  void stop_http();
  // start()'s model step: joins or loads the model instance and checks the classes property
  // against it; false with an element error.
  bool load_model(const ElementSettings& s);
  // Where the start-up is (starting, loading model, waiting for frames): on the HTTP service's
  // /health and as a "yolo-status" element message on the bus.
  void announce(Readiness state, const std::string& detail);
  bool should_infer(GstBuffer* buffer, guint64 frame, const ElementSettings& s);
  // Drops a frame that does not fit the negotiated caps: counted as unfit, warned once per caps.
  GstFlowReturn drop_unfit(GstBuffer* buffer);
  void output_loop();
  // The frame's detections into detections_; false when it must not be pushed (flushing,
  // stopping, error). waited_us: how long the model's row took to come.
  bool wait_detections(Pending& p, const std::shared_ptr<const ElementSettings>& s,
                       double& waited_us);
  // Streaming thread: the frame's model input, preprocessed into a pooled tensor on a CPU.
  at::Tensor prepare_input(const FrameView& frame, Pending& p);
  // A pooled tensor of this shape (CPU float) / result slot that nothing else holds now; new ones
  // only until the pools have grown to the frames in flight.
  at::Tensor free_input(int64_t height, int64_t width);
  size_t pool_size() const;
  std::shared_ptr<ResultSlot> free_slot();
  // NMS options for these settings and engine, parsed once per change (output thread).
  const NmsOptions& nms_options_for(const std::shared_ptr<const ElementSettings>& s,
                                    const std::shared_ptr<Engine>& engine);
  GstFlowReturn finish(Pending& p, const std::shared_ptr<const ElementSettings>& settings);
  void publish(Pending& p, GstBuffer* buffer, const std::vector<Detection>& detections,
               const ElementSettings& s);
  // Offers publishing to a yolotracker downstream (result_publisher.h), before the first push.
  void offer_publishing(const ElementSettings& s);
  // Makes the engine ready for this stream's input size (its frame size letterboxed with
  // preprocess_.letterbox) before the first frame of that size reaches the batcher.
  void prepare_input_shape(const std::shared_ptr<Engine>& engine);
  // Leaves the model instance (the last element to leave frees it).
  void release_model();

  GstBaseTransform* element_;  // owns this object

  mutable std::mutex settings_mutex_;
  // Replaced (never changed) by update_settings(), so a reader's snapshot stays whole.
  std::shared_ptr<const ElementSettings> settings_ = std::make_shared<const ElementSettings>();

  // Set in start(), released in stop(); read without a lock by the streaming and output threads,
  // which only run in between; other threads (queries, stats) copy it under mutex_.
  std::shared_ptr<ModelInstance> model_;
  int producer_ = -1;
  std::shared_ptr<HttpService> http_;
  std::unique_ptr<ResultPublisher> publisher_;
  MetricsRegistry::CollectorHandle batcher_metrics_;
  std::string stream_id_;

  // Negotiated caps (streaming thread only).
  GstVideoInfo info_{};
  PixelFormat format_ = PixelFormat::kBGR;
  DevicePreprocessOptions preprocess_;
  bool have_caps_ = false;
  bool warned_unfit_ = false;  // for the current caps
  // The engine and input size last prepared for this stream (prepare_input_shape()).
  std::weak_ptr<Engine> prepared_engine_;
  std::pair<int, int> prepared_size_{0, 0};

  // The queue between the streaming thread and the output thread.
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Pending> pending_;  // in order; room for every frame in flight reserved in start()
  int in_progress_ = 0;           // frames taken by the output thread and not yet pushed
  bool flushing_ = false, stopping_ = false;
  GstFlowReturn last_flow_ = GST_FLOW_OK;
  GstClockTime qos_earliest_ = GST_CLOCK_TIME_NONE;
  guint64 next_frame_ = 0;
  ElementStats stats_;
  // The last inferred frame's boxes as its ROI metas carry them: drawn with draw=true, also on
  // the frames between inferences.
  std::vector<Detection> last_detections_;
  // Streaming thread: buffers reused frame after frame.
  CpuFramePreprocessor cpu_preprocess_;
  std::vector<at::Tensor> input_pool_;
  std::vector<std::shared_ptr<ResultSlot>> slot_pool_;
  // Output thread: NMS buffers, the frame's detections, the parsed NMS options.
  NmsWorkspace nms_;
  std::vector<Detection> detections_;
  struct NmsCache {
    std::shared_ptr<const ElementSettings> settings;
    std::shared_ptr<Engine> engine;
    NmsOptions options;
  } nms_cache_;
  // The handoff (output thread; reset by start()): offered yet, and taken by a tracker.
  bool handoff_offered_ = false, handed_off_ = false;
  std::thread output_thread_;
};

}  // namespace yolo::gst
