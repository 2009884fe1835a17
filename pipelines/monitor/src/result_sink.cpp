#include "yolo/monitor/result_sink.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "yolo/monitor/jsonl_writer.h"
#include "yolo/monitor/sample_results.h"
#include "yolo/monitor/snapshot_archive.h"
#include "yolo/serving/results_store.h"
#include "yolo/serving/snapshot_store.h"

namespace yolo::monitor {

using Clock = std::chrono::steady_clock;

ResultSink::ResultSink(ResultSinkOptions options, ResultsStore& results, SnapshotStore* snapshots,
                       JsonlWriter* jsonl, SnapshotArchive* archive)
    : options_(options),
      results_(results),
      snapshots_(snapshots),
      jsonl_(jsonl),
      archive_(archive) {
  if (archive_ && !snapshots_) {
    throw std::invalid_argument("result sink: the snapshot archive needs a snapshot store");
  }
  if (options_.live_snapshot_interval.count() < 0) {
    throw std::invalid_argument("result sink: live_snapshot_interval must be >= 0");
  }
}

void ResultSink::output_failed(const std::string& stream_id, const std::string& what) {
  ++output_errors_;
  std::lock_guard<std::mutex> lock(mutex_);
  auto& s = streams_[stream_id];
  if (!s.warned) {  // once per stream: a full disk must not flood the log at frame rate
    s.warned = true;
    spdlog::error("stream {}: {} (further failures of this stream are counted, not logged)",
                  stream_id, what);
  }
}

void ResultSink::on_sample(const std::string& stream_id, GstSample* sample) {
  const auto now = Clock::now();
  std::int64_t frame;
  bool refresh_snapshot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& s = streams_[stream_id];
    frame = s.frames++;
    refresh_snapshot =
        snapshots_ && (!s.has_snapshot || now - s.last_snapshot >= options_.live_snapshot_interval);
    if (refresh_snapshot) {
      s.last_snapshot = now;
      s.has_snapshot = true;
    }
  }
  FrameResult result = frame_result_from_sample(sample, stream_id, frame);
  if (refresh_snapshot) {
    // Keyed by the result, so the drawn boxes are this frame's.
    with_bgr_frame(sample, [&](const cv::Mat& bgr) { snapshots_->put(result, bgr); });
  }
  try {
    result.seq = results_.publish(result);
  } catch (const std::exception& e) {  // e.g. more streams than the store allows
    output_failed(stream_id, std::string("results store refused a result: ") + e.what());
  }
  if (jsonl_) {
    try {
      jsonl_->write(result);
    } catch (const std::exception& e) {
      output_failed(stream_id, e.what());
    }
  }
  if (archive_ && refresh_snapshot && archive_->due(stream_id, now)) {
    try {
      if (const auto jpeg = snapshots_->jpeg(stream_id)) {
        archive_->save(stream_id, *jpeg, result.wall_time, now);
      }
    } catch (const std::exception& e) {
      output_failed(stream_id, e.what());
    }
  }
}

void ResultSink::on_removed(const std::string& stream_id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_.erase(stream_id);
  }
  results_.remove_stream(stream_id);
  if (snapshots_) snapshots_->remove(stream_id);
  if (archive_) archive_->forget(stream_id);
}

}  // namespace yolo::monitor
