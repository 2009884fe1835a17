// The runtime's own metrics on a MetricsRegistry: what producers call, and the metric names
// (documented with their labels in docs/http-api.md).
//
//   per stream  the `yolo` element / yolo-monitor call frame_done() for every frame that got a
//               result and frames_dropped() for frames that never reached the model;
//   per model   whoever runs the model calls batch_done() once per model call (e.g. inside the
//               DynamicBatcher's RunFn);
//   batcher     watch_batcher() mirrors a DynamicBatcher's stats() at every scrape.
// All methods are thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "yolo/serving/metrics_registry.h"

namespace yolo {

class DynamicBatcher;

namespace metric_names {
// label: stream
inline constexpr char kStreamFrames[] = "yolo_stream_frames_total";
inline constexpr char kStreamDropped[] = "yolo_stream_dropped_frames_total";
inline constexpr char kStreamFps[] = "yolo_stream_fps";
inline constexpr char kStreamLatency[] = "yolo_stream_latency_seconds";
// label: model
inline constexpr char kModelBatches[] = "yolo_model_batches_total";
inline constexpr char kModelFrames[] = "yolo_model_frames_total";
inline constexpr char kModelBatchFill[] = "yolo_model_batch_fill_ratio";
inline constexpr char kModelInference[] = "yolo_model_inference_seconds";
// label: model (mirrored from BatcherStats)
inline constexpr char kBatcherFramesIn[] = "yolo_batcher_frames_in_total";
inline constexpr char kBatcherInferred[] = "yolo_batcher_inferred_frames_total";
inline constexpr char kBatcherDropped[] = "yolo_batcher_dropped_frames_total";
inline constexpr char kBatcherFailed[] = "yolo_batcher_failed_frames_total";
inline constexpr char kBatcherBatches[] = "yolo_batcher_batches_total";
inline constexpr char kBatcherMeanFill[] = "yolo_batcher_mean_batch_fill_ratio";
inline constexpr char kBatcherMeanWait[] = "yolo_batcher_mean_queue_wait_seconds";
inline constexpr char kBatcherMeanInference[] = "yolo_batcher_mean_inference_seconds";
// labels: model, producer (mirrored from ProducerStats)
inline constexpr char kProducerFramesIn[] = "yolo_batcher_producer_frames_in_total";
inline constexpr char kProducerInferred[] = "yolo_batcher_producer_inferred_frames_total";
inline constexpr char kProducerDropped[] = "yolo_batcher_producer_dropped_frames_total";
inline constexpr char kProducerQueued[] = "yolo_batcher_producer_queued_frames";
// Fed by HttpServer when it has a registry. label: code
inline constexpr char kHttpRequests[] = "yolo_http_requests_total";
inline constexpr char kHttpLongPolls[] = "yolo_http_long_polls_waiting";
}  // namespace metric_names

struct RuntimeMetricsOptions {
  // Upper bounds, in seconds, of the latency histograms (stream end-to-end, model inference).
  std::vector<double> latency_buckets_s = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
  // Upper bounds of the batch fill histogram (frames in the batch / max_batch, 0..1].
  std::vector<double> batch_fill_buckets = {0.125, 0.25, 0.5, 0.75, 1};
  // yolo_stream_fps counts frames over windows this long; it reads 0 until the first window of a
  // stream has passed, and falls towards 0 when a stream stalls.
  std::chrono::milliseconds fps_window{2000};
};

class RuntimeMetrics {
 public:
  // Declares the families above on `registry`, which must outlive this object.
  explicit RuntimeMetrics(MetricsRegistry& registry, RuntimeMetricsOptions options = {});
  RuntimeMetrics(const RuntimeMetrics&) = delete;
  RuntimeMetrics& operator=(const RuntimeMetrics&) = delete;

  // A frame of `stream` got its detection result, `latency` after it arrived.
  void frame_done(const std::string& stream, std::chrono::nanoseconds latency);
  // Frames of `stream` dropped before inference (queue full, decoder behind).
  void frames_dropped(const std::string& stream, uint64_t count = 1);
  // One model call on `frames` frames (1..max_batch) that took `inference`.
  void batch_done(const std::string& model, int frames, int max_batch,
                  std::chrono::nanoseconds inference);
  // Forgets a stream (a camera that was removed): its series and its fps window.
  void remove_stream(const std::string& stream);

  // Mirrors batcher.stats() under model=`model`, and producer_stats(id) for each id in
  // `producers` under model and producer=<its name>, at every scrape, until the returned handle
  // is destroyed. Destroy the handle before the batcher.
  [[nodiscard]] MetricsRegistry::CollectorHandle watch_batcher(const std::string& model,
                                                               const DynamicBatcher& batcher,
                                                               std::vector<int> producers = {});

 private:
  using Clock = std::chrono::steady_clock;
  struct FpsWindow {
    Clock::time_point start;
    uint64_t frames = 0;  // in the current window
    double fps = 0;       // over the last complete window
  };
  void collect_fps();

  MetricsRegistry& registry_;
  const RuntimeMetricsOptions options_;
  std::mutex fps_mutex_;
  std::map<std::string, FpsWindow> fps_;
  // Last member: unregistered first, before the state it reads goes away.
  MetricsRegistry::CollectorHandle fps_collector_;
};

}  // namespace yolo
