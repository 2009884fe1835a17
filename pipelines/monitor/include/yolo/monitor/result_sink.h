// Where each stream's samples go: the StreamManager's SampleHandler and RemovedHandler for the
// service. Per sample: the detections become a FrameResult (sample_results.h) that is published
// to the ResultsStore and, when configured, appended to the JSON lines; the BGR frame refreshes
// the stream's in-memory snapshot at most every live_snapshot_interval, and the snapshot archive
// saves one when it is due.
//
// Runs on the streaming threads: an output that fails (disk full) is logged once per stream and
// counted, never thrown into the pipeline. Thread-safe.
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace yolo {
class ResultsStore;
class SnapshotStore;
}  // namespace yolo

namespace yolo::monitor {

class JsonlWriter;
class SnapshotArchive;

struct ResultSinkOptions {
  // How often a stream's in-memory snapshot (HTTP snapshot.jpg, dashboard) is refreshed; each
  // refresh copies the frame. 0 = every frame.
  std::chrono::milliseconds live_snapshot_interval{500};
};

class ResultSink {
 public:
  // `results` is required; the others are optional (nullptr: that output is off). All must
  // outlive the sink. The archive needs `snapshots` (it saves what they draw).
  ResultSink(ResultSinkOptions options, ResultsStore& results, SnapshotStore* snapshots = nullptr,
             JsonlWriter* jsonl = nullptr, SnapshotArchive* archive = nullptr);

  void on_sample(const std::string& stream_id, GstSample* sample);
  // The stream was removed: its results, snapshot, archive timer and frame counter go.
  void on_removed(const std::string& stream_id);

  std::uint64_t output_errors() const { return output_errors_; }

 private:
  struct StreamState {
    std::int64_t frames = 0;
    std::chrono::steady_clock::time_point last_snapshot{};
    bool has_snapshot = false;
    bool warned = false;
  };
  void output_failed(const std::string& stream_id, const std::string& what);

  const ResultSinkOptions options_;
  ResultsStore& results_;
  SnapshotStore* const snapshots_;
  JsonlWriter* const jsonl_;
  SnapshotArchive* const archive_;
  std::mutex mutex_;
  std::map<std::string, StreamState> streams_;
  std::atomic<std::uint64_t> output_errors_{0};
};

}  // namespace yolo::monitor
