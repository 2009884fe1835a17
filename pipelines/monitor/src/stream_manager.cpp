#include "yolo/monitor/stream_manager.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "yolo/media/media_source.h"

namespace yolo::monitor {
namespace {

using json = nlohmann::json;
using Status = yolo::StreamControlResult::Status;

}  // namespace

bool same_stream(const StreamConfig& a, const StreamConfig& b) {
  return to_json(a) == to_json(b);
}

StreamManager::StreamManager(StreamManagerOptions options, InferenceElements inference,
                             SampleHandler on_sample, RemovedHandler on_removed,
                             StreamStateFile* state, PipelineHandler on_pipeline)
    : options_(options),
      inference_(std::move(inference)),
      on_sample_(std::move(on_sample)),
      on_removed_(std::move(on_removed)),
      state_(state),
      on_pipeline_(std::move(on_pipeline)) {
  if (!inference_) throw std::invalid_argument("stream manager: inference elements are required");
}

StreamManager::~StreamManager() {
  stop_all();
}

std::shared_ptr<StreamManager::Entry> StreamManager::make_entry(const StreamConfig& config) const {
  auto entry = std::make_shared<Entry>();
  entry->config = config;
  StreamPipeline pipeline = stream_pipeline(config, options_.sources, inference_(config));
  StreamSupervisor::Callbacks callbacks;
  if (on_sample_) {
    callbacks.on_sample = [handler = on_sample_, id = config.id](GstSample* sample) {
      handler(id, sample);
    };
  }
  if (on_pipeline_) {
    callbacks.on_pipeline = [handler = on_pipeline_, config](GstElement*) { handler(config); };
  }
  SupervisorOptions supervision = options_.supervision;
  supervision.source = config.uri;
  supervision.source_hint = media::source_failure_hint(config.kind);
  entry->supervisor =
      std::make_unique<StreamSupervisor>(config.id, std::move(pipeline), supervision, callbacks);
  return entry;
}

json StreamManager::entry_json(const Entry& e) const {
  json j = {{"id", e.config.id}, {"uri", e.config.uri}, {"kind", to_string(e.config.kind)}};
  j.update(to_json(e.supervisor->stats()));
  if (annotate_) annotate_(e.config.id, j);
  return j;
}

void StreamManager::stop_entry(const std::shared_ptr<Entry>& e, bool notify_removed) {
  e->supervisor->stop();
  if (notify_removed && on_removed_) on_removed_(e->config.id);
}

std::vector<StreamConfig> StreamManager::with_state(
    const std::vector<StreamConfig>& configured) const {
  return state_ ? state_->apply(configured) : configured;
}

void StreamManager::start(const std::vector<StreamConfig>& configured) {
  const auto streams = with_state(configured);
  std::vector<std::shared_ptr<Entry>> entries;
  std::set<std::string> seen;
  for (const auto& s : streams) {
    if (!seen.insert(s.id).second) {
      throw std::invalid_argument(fmt::format("stream manager: duplicate stream id \"{}\"", s.id));
    }
    entries.push_back(make_entry(s));  // may throw: nothing has started yet
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& s : configured) configured_ids_.insert(s.id);
    for (const auto& e : entries) {
      if (streams_.count(e->config.id)) {
        throw std::invalid_argument(
            fmt::format("stream manager: stream \"{}\" is running already", e->config.id));
      }
    }
    for (const auto& e : entries) {
      streams_[e->config.id] = e;
      order_.push_back(e->config.id);
    }
  }
  for (const auto& e : entries) e->supervisor->start();
}

StreamManager::ReconcileSummary StreamManager::reconcile(
    const std::vector<StreamConfig>& configured) {
  const auto desired = with_state(configured);
  ReconcileSummary summary;
  std::vector<std::shared_ptr<Entry>> to_stop, to_start;
  std::vector<bool> to_stop_is_removal;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    configured_ids_.clear();
    for (const auto& s : configured) configured_ids_.insert(s.id);
    // Removed: running, no longer desired.
    for (const auto& [id, entry] : streams_) {
      const bool wanted = std::any_of(desired.begin(), desired.end(),
                                      [&, &id = id](const auto& s) { return s.id == id; });
      if (!wanted) {
        to_stop.push_back(entry);
        to_stop_is_removal.push_back(true);
        summary.removed.push_back(id);
      }
    }
    for (const auto& s : desired) {
      const auto it = streams_.find(s.id);
      if (it == streams_.end()) {
        to_start.push_back(make_entry(s));
        summary.added.push_back(s.id);
      } else {
        // Rebuilt when the stream's own settings changed, or when its pipeline would differ
        // (e.g. a changed service default that its inference elements resolve), or when it
        // failed: a reload is how a fixed model file or configuration error is retried.
        auto candidate = make_entry(s);
        if (!same_stream(it->second->config, s) ||
            candidate->supervisor->pipeline() != it->second->supervisor->pipeline() ||
            it->second->supervisor->state() == StreamState::kFailed) {
          to_stop.push_back(it->second);
          to_stop_is_removal.push_back(false);  // same id comes back: keep its results
          to_start.push_back(std::move(candidate));
          summary.restarted.push_back(s.id);
        }
      }
    }
    for (const auto& id : summary.removed) {
      streams_.erase(id);
      order_.erase(std::remove(order_.begin(), order_.end(), id), order_.end());
    }
    for (const auto& e : to_start) {
      if (!streams_.count(e->config.id)) order_.push_back(e->config.id);
      streams_[e->config.id] = e;
    }
  }
  for (size_t i = 0; i < to_stop.size(); ++i) stop_entry(to_stop[i], to_stop_is_removal[i]);
  for (const auto& e : to_start) e->supervisor->start();
  spdlog::info("streams reconciled: {} added, {} removed, {} rebuilt", summary.added.size(),
               summary.removed.size(), summary.restarted.size());
  return summary;
}

void StreamManager::stop_all() {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& id : order_) entries.push_back(streams_.at(id));
  }
  // Kept in the map: a stopped stream still lists (state stopped) until the manager goes.
  for (const auto& e : entries) e->supervisor->stop();
}

std::vector<std::string> StreamManager::ids() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return order_;
}

std::optional<StreamStats> StreamManager::stats(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = streams_.find(id);
  if (it == streams_.end()) return std::nullopt;
  return it->second->supervisor->stats();
}

json StreamManager::list() {
  std::lock_guard<std::mutex> lock(mutex_);
  json out = json::array();
  for (const auto& id : order_) out.push_back(entry_json(*streams_.at(id)));
  return out;
}

yolo::StreamControlResult StreamManager::add(const json& body) {
  StreamConfig config;
  try {
    config = stream_from_json(body);
  } catch (const ConfigError& e) {
    json problems = json::array();
    std::vector<std::string> lines;
    for (const auto& p : e.problems()) {
      problems.push_back({{"path", p.path}, {"message", p.message}});
      lines.push_back(p.path.empty() ? p.message : p.path + ": " + p.message);
    }
    return yolo::StreamControlResult::failure(
        Status::kInvalid, fmt::format("invalid stream: {}", fmt::join(lines, "; ")),
        "fix every entry of 'problems'; the stream object is documented in docs/monitor.md",
        {{"problems", problems}});
  }
  // Checked before building the pipeline (which may be costly for the owner) and
  // again before inserting, in case another request added the id meanwhile.
  const auto refusal = [&]() -> std::optional<yolo::StreamControlResult> {
    if (streams_.count(config.id)) {
      return yolo::StreamControlResult::failure(
          Status::kConflict, fmt::format("stream '{}' exists already", config.id),
          "DELETE it first to change it, or choose another id", {{"stream_id", config.id}});
    }
    if (streams_.size() >= options_.max_streams) {
      return yolo::StreamControlResult::failure(
          Status::kInvalid, fmt::format("the service runs {} streams, its limit", streams_.size()),
          "remove a stream first");
    }
    return std::nullopt;
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto r = refusal()) return *r;
  }
  std::shared_ptr<Entry> entry;
  try {
    entry = make_entry(config);
  } catch (const std::invalid_argument& e) {
    return yolo::StreamControlResult::failure(Status::kInvalid, e.what(),
                                              "give the stream the missing settings");
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto r = refusal()) return *r;
    // Persisted before it runs: a failure to save leaves everything as it was (and is a 500).
    if (state_) state_->record_added(config);
    streams_[config.id] = entry;
    order_.push_back(config.id);
  }
  entry->supervisor->start();
  spdlog::info("stream {} added over the API ({})", config.id, config.uri);
  std::lock_guard<std::mutex> lock(mutex_);
  return yolo::StreamControlResult::ok(entry_json(*entry));
}

yolo::StreamControlResult StreamManager::remove(const std::string& id) {
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = streams_.find(id);
    if (it == streams_.end()) {
      return yolo::StreamControlResult::failure(
          Status::kNotFound, fmt::format("unknown stream '{}'", id),
          "GET /api/v1/streams lists the streams", {{"stream_id", id}});
    }
    if (state_) state_->record_removed(id, configured_ids_.count(id) > 0);
    entry = it->second;
    streams_.erase(it);
    order_.erase(std::remove(order_.begin(), order_.end(), id), order_.end());
  }
  stop_entry(entry, true);
  spdlog::info("stream {} removed over the API", id);
  return yolo::StreamControlResult::ok();
}

}  // namespace yolo::monitor
