#include "yolo/serving/runtime_metrics.h"

#include <algorithm>

#include "yolo/runtime/batcher.h"

namespace yolo {

namespace mn = metric_names;

namespace {

double seconds(std::chrono::nanoseconds d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

RuntimeMetrics::RuntimeMetrics(MetricsRegistry& registry, RuntimeMetricsOptions options)
    : registry_(registry), options_(std::move(options)) {
  using T = MetricType;
  const std::vector<std::string> stream{"stream"}, model{"model"}, producer{"model", "producer"};
  auto& r = registry_;
  r.declare(mn::kStreamFrames, T::kCounter, "Frames of the stream that got a detection result.",
            stream);
  r.declare(mn::kStreamDropped, T::kCounter,
            "Frames of the stream dropped before inference (queue full, decoder behind).", stream);
  r.declare(mn::kStreamFps, T::kGauge, "Frames with a result per second, over the last window.",
            stream);
  r.declare(mn::kStreamLatency, T::kHistogram,
            "Seconds from a frame's arrival to its detection result.", stream,
            options_.latency_buckets_s);
  r.declare(mn::kModelBatches, T::kCounter, "Model calls (batches).", model);
  r.declare(mn::kModelFrames, T::kCounter, "Frames run through the model.", model);
  r.declare(mn::kModelBatchFill, T::kHistogram, "Frames per model call / max_batch.", model,
            options_.batch_fill_buckets);
  r.declare(mn::kModelInference, T::kHistogram, "Seconds per model call.", model,
            options_.latency_buckets_s);
  r.declare(mn::kBatcherFramesIn, T::kCounter, "Frames submitted to the batcher.", model);
  r.declare(mn::kBatcherInferred, T::kCounter, "Frames the batcher ran through the model.", model);
  r.declare(mn::kBatcherDropped, T::kCounter, "Frames the batcher dropped (queue full).", model);
  r.declare(mn::kBatcherFailed, T::kCounter, "Frames whose model call failed.", model);
  r.declare(mn::kBatcherBatches, T::kCounter, "Batches the batcher ran.", model);
  r.declare(mn::kBatcherMeanFill, T::kGauge, "Mean frames per batch / max_batch since start.",
            model);
  r.declare(mn::kBatcherMeanWait, T::kGauge,
            "Mean seconds from submit to the start of the model call, since start.", model);
  r.declare(mn::kBatcherMeanInference, T::kGauge, "Mean seconds per batch, since start.", model);
  r.declare(mn::kProducerFramesIn, T::kCounter, "Frames the producer submitted.", producer);
  r.declare(mn::kProducerInferred, T::kCounter, "Frames of the producer run through the model.",
            producer);
  r.declare(mn::kProducerDropped, T::kCounter, "Frames of the producer dropped (queue full).",
            producer);
  r.declare(mn::kProducerQueued, T::kGauge, "Frames of the producer waiting in the queue.",
            producer);
  fps_collector_ = registry_.add_collector([this](MetricsRegistry&) { collect_fps(); });
}

void RuntimeMetrics::frame_done(const std::string& stream, std::chrono::nanoseconds latency) {
  registry_.add(mn::kStreamFrames, {stream});
  registry_.observe(mn::kStreamLatency, {stream}, seconds(latency));
  const auto now = Clock::now();
  std::lock_guard<std::mutex> lock(fps_mutex_);
  auto [it, fresh] = fps_.try_emplace(stream);
  FpsWindow& w = it->second;
  if (fresh) w.start = now;
  ++w.frames;
  const auto elapsed = now - w.start;
  if (elapsed >= options_.fps_window) {
    w.fps = static_cast<double>(w.frames) / seconds(elapsed);
    w.start = now;
    w.frames = 0;
  }
}

void RuntimeMetrics::collect_fps() {
  const auto now = Clock::now();
  std::lock_guard<std::mutex> lock(fps_mutex_);
  for (const auto& [stream, w] : fps_) {
    // A window that is overdue means the stream slowed down or stalled: report the rate so far,
    // which falls towards 0 the longer no frame arrives.
    const auto elapsed = now - w.start;
    const double fps =
        elapsed >= options_.fps_window ? static_cast<double>(w.frames) / seconds(elapsed) : w.fps;
    registry_.set(mn::kStreamFps, {stream}, fps);
  }
}

void RuntimeMetrics::frames_dropped(const std::string& stream, uint64_t count) {
  registry_.add(mn::kStreamDropped, {stream}, static_cast<double>(count));
}

void RuntimeMetrics::batch_done(const std::string& model, int frames, int max_batch,
                                std::chrono::nanoseconds inference) {
  registry_.add(mn::kModelBatches, {model});
  registry_.add(mn::kModelFrames, {model}, std::max(0, frames));
  if (max_batch > 0) {
    registry_.observe(mn::kModelBatchFill, {model}, static_cast<double>(frames) / max_batch);
  }
  registry_.observe(mn::kModelInference, {model}, seconds(inference));
}

void RuntimeMetrics::remove_stream(const std::string& stream) {
  {
    std::lock_guard<std::mutex> lock(fps_mutex_);
    fps_.erase(stream);
  }
  registry_.remove_series("stream", stream);
}

MetricsRegistry::CollectorHandle RuntimeMetrics::watch_batcher(const std::string& model,
                                                               const DynamicBatcher& batcher,
                                                               std::vector<int> producers) {
  for (int id : producers) batcher.producer_stats(id);  // unknown ids throw here, not at scrapes
  return registry_.add_collector([model, &batcher, producers](MetricsRegistry& r) {
    const BatcherStats s = batcher.stats();
    const auto d = [](uint64_t v) { return static_cast<double>(v); };
    r.set(mn::kBatcherFramesIn, {model}, d(s.frames_in));
    r.set(mn::kBatcherInferred, {model}, d(s.inferred));
    r.set(mn::kBatcherDropped, {model}, d(s.dropped));
    r.set(mn::kBatcherFailed, {model}, d(s.failed));
    r.set(mn::kBatcherBatches, {model}, d(s.batches));
    r.set(mn::kBatcherMeanFill, {model}, s.mean_batch_fill);
    r.set(mn::kBatcherMeanWait, {model}, s.mean_queue_wait_us * 1e-6);
    r.set(mn::kBatcherMeanInference, {model}, s.mean_inference_us * 1e-6);
    for (int id : producers) {
      const ProducerStats p = batcher.producer_stats(id);
      r.set(mn::kProducerFramesIn, {model, p.name}, d(p.frames_in));
      r.set(mn::kProducerInferred, {model, p.name}, d(p.inferred));
      r.set(mn::kProducerDropped, {model, p.name}, d(p.dropped));
      r.set(mn::kProducerQueued, {model, p.name}, d(p.queued));
    }
  });
}

}  // namespace yolo
