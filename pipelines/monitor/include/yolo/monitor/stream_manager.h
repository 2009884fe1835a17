// The set of running streams: one StreamSupervisor per stream, built from StreamConfigs, and
// the yolo::StreamControl behind GET/POST/DELETE /api/v1/streams. Also what SIGHUP needs:
// reconcile() with a re-read configuration touches only the streams that changed.
//
// The owner supplies what differs per service: the inference elements of each stream's pipeline
// (the `yolo` element with its typed properties; `identity` in tests), what to do with each
// sample (results store, snapshots, JSON lines) and what to forget when a stream goes.
//
// With a StreamStateFile, additions and removals made over the API are persisted, and start()
// and reconcile() apply the recorded changes to the configured streams.
//
// Thread-safe. Supervisors are started and stopped outside the lock, so a slow pipeline
// shutdown never blocks GET /streams.
#pragma once

#include <gst/gst.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "yolo/monitor/monitor_config.h"
#include "yolo/monitor/pipeline_description.h"
#include "yolo/monitor/stream_state_file.h"
#include "yolo/monitor/stream_supervisor.h"
#include "yolo/serving/stream_control.h"

namespace yolo::monitor {

struct StreamManagerOptions {
  SupervisorOptions supervision;  // for every stream
  SourceOptions sources;          // rtsp transport and latency
  size_t max_streams = 64;        // further additions are refused (400)
};

class StreamManager : public yolo::StreamControl {
 public:
  // The inference elements of a stream's pipeline, linked in order in front of its appsink; may
  // throw std::invalid_argument (e.g. the stream has no model), which refuses the stream with
  // that message.
  using InferenceElements = std::function<std::vector<ElementSpec>(const StreamConfig& stream)>;
  // Each sample of a stream, on that stream's streaming thread (see StreamSupervisor).
  using SampleHandler = std::function<void(const std::string& stream_id, GstSample* sample)>;
  // A stream was removed (API, reconcile) and its supervisor stopped: drop its results.
  using RemovedHandler = std::function<void(const std::string& stream_id)>;
  // A stream's pipeline was built (first start, or a rebuild after the camera dropped), on the
  // supervisor's thread before it plays: what runs per stream (its tracker ids) starts again.
  using PipelineHandler = std::function<void(const StreamConfig& stream)>;

  // `state` (optional) must outlive the manager.
  StreamManager(StreamManagerOptions options, InferenceElements inference, SampleHandler on_sample,
                RemovedHandler on_removed = {}, StreamStateFile* state = nullptr,
                PipelineHandler on_pipeline = {});
  // stop_all().
  ~StreamManager() override;
  StreamManager(const StreamManager&) = delete;
  StreamManager& operator=(const StreamManager&) = delete;

  // Starts the configured streams (with the state file's changes applied). Throws
  // std::invalid_argument, starting nothing, when a stream cannot be built.
  void start(const std::vector<StreamConfig>& configured);

  struct ReconcileSummary {
    std::vector<std::string> added, removed, restarted;  // ids
  };
  // Makes the running set match `configured` (state file applied): new ids start, missing ones
  // stop, streams whose settings or pipeline changed (the inference elements may resolve service
  // defaults) are rebuilt, the rest keep running untouched.
  ReconcileSummary reconcile(const std::vector<StreamConfig>& configured);

  // Stops every stream. Idempotent.
  void stop_all();

  std::vector<std::string> ids() const;
  std::optional<StreamStats> stats(const std::string& id) const;

  // What other parts know of a stream (its analytics' state), added to its list() entry. Set
  // before start(); called under the manager's lock, so it must not call back into it.
  using EntryAnnotation = std::function<void(const std::string& stream_id, nlohmann::json& entry)>;
  void set_entry_annotation(EntryAnnotation annotate) { annotate_ = std::move(annotate); }

  // yolo::StreamControl: entries are {"id", "uri", "kind", "state", ...to_json(StreamStats)}.
  nlohmann::json list() override;
  yolo::StreamControlResult add(const nlohmann::json& stream) override;
  yolo::StreamControlResult remove(const std::string& id) override;

 private:
  struct Entry {
    StreamConfig config;
    std::unique_ptr<StreamSupervisor> supervisor;
  };
  std::shared_ptr<Entry> make_entry(const StreamConfig& config) const;
  nlohmann::json entry_json(const Entry& e) const;
  void stop_entry(const std::shared_ptr<Entry>& e, bool notify_removed);
  std::vector<StreamConfig> with_state(const std::vector<StreamConfig>& configured) const;

  const StreamManagerOptions options_;
  const InferenceElements inference_;
  const SampleHandler on_sample_;
  const RemovedHandler on_removed_;
  EntryAnnotation annotate_;
  StreamStateFile* const state_;
  const PipelineHandler on_pipeline_;

  mutable std::mutex mutex_;
  std::vector<std::string> order_;  // ids in the order they were started, for list()
  std::map<std::string, std::shared_ptr<Entry>> streams_;
  std::set<std::string> configured_ids_;  // in monitor.yaml (decides how removals are recorded)
};

// Whether two stream configurations would build the same pipeline and inference settings.
bool same_stream(const StreamConfig& a, const StreamConfig& b);

}  // namespace yolo::monitor
