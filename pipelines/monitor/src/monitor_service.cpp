#include "yolo/monitor/monitor_service.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <mutex>
#include <optional>
#include <stdexcept>

#include "yolo/monitor/dashboard.h"
#include "yolo/monitor/jsonl_writer.h"
#include "yolo/monitor/monitor_metrics.h"
#include "yolo/monitor/result_sink.h"
#include "yolo/monitor/service_readiness.h"
#include "yolo/monitor/snapshot_archive.h"
#include "yolo/monitor/stream_state_file.h"
#include "yolo/serving/events_store.h"
#include "yolo/serving/http_server.h"
#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/mqtt_output.h"
#include "yolo/serving/results_store.h"
#include "yolo/serving/snapshot_store.h"

namespace yolo::monitor {
namespace {

StreamManagerOptions manager_options(const MonitorConfig& c) {
  StreamManagerOptions o;
  o.supervision = supervisor_options(c.supervision);
  o.sources = source_options(c.rtsp);
  return o;
}

HttpServerOptions http_options(const MonitorConfig& c) {
  HttpServerOptions o;
  o.host = c.http.bind;
  o.port = c.http.port;
  o.bearer_token = c.http.token;
  o.dashboard_html = dashboard_html();
  return o;
}

}  // namespace

// Members in dependency order: each is destroyed before what it uses.
struct MonitorService::Impl {
  Impl(MonitorConfig c, InferenceElements elements, SystemdNotifier n)
      : config(std::move(c)), inference(std::move(elements)), notifier(std::move(n)) {}

  std::vector<ElementSpec> inference_for(const StreamConfig& stream) const {
    const StreamSettings settings = resolve(stream, config_snapshot());
    if (settings.model.empty()) {
      throw std::invalid_argument(fmt::format(
          "stream {} has no model: give it a \"model\" or set the service's default model",
          stream.id));
    }
    return inference(stream, settings);
  }
  MonitorConfig config_snapshot() const {
    std::lock_guard<std::mutex> lock(config_mutex);
    return config;
  }

  mutable std::mutex config_mutex;  // reload() replaces the defaults streams resolve against
  MonitorConfig config;
  const InferenceElements inference;
  const SystemdNotifier notifier;
  std::mutex stop_mutex;
  bool stopped = false;

  std::optional<StreamStateFile> state_file;
  MetricsRegistry metrics;
  ResultsStore results;
  EventsStore events;
  SnapshotStore snapshots;
  std::unique_ptr<JsonlWriter> jsonl;
  std::unique_ptr<SnapshotArchive> archive;
  std::unique_ptr<MqttOutput> mqtt;
  std::unique_ptr<ResultSink> sink;
  std::unique_ptr<StreamManager> manager;
  std::unique_ptr<MonitorMetrics> stream_metrics;  // reads the manager at every scrape
  std::unique_ptr<HttpServer> http;
  std::unique_ptr<WatchdogPinger> watchdog;
};

MonitorService::MonitorService(MonitorConfig config, InferenceElements inference,
                               SystemdNotifier notifier) {
  if (!inference) throw std::invalid_argument("monitor service: inference elements are required");
  impl_ = std::make_unique<Impl>(std::move(config), std::move(inference), std::move(notifier));
  Impl& s = *impl_;
  const MonitorConfig& c = s.config;
  if (!c.state_file.empty()) s.state_file.emplace(c.state_file);
  if (!c.outputs.jsonl.path.empty()) {
    s.jsonl = std::make_unique<JsonlWriter>(JsonlWriterOptions{
        c.outputs.jsonl.path, c.outputs.jsonl.max_bytes, c.outputs.jsonl.keep_files});
  }
  if (!c.outputs.snapshots.directory.empty()) {
    s.archive = std::make_unique<SnapshotArchive>(snapshot_archive_options(c.outputs.snapshots));
  }
  if (!c.outputs.mqtt.url.empty())
    s.mqtt = std::make_unique<MqttOutput>(c.outputs.mqtt, &s.metrics);
  s.sink = std::make_unique<ResultSink>(ResultSinkOptions{c.outputs.snapshots.live_interval},
                                        s.results, &s.snapshots, s.jsonl.get(), s.archive.get(),
                                        &s.events, &s.metrics, s.mqtt.get());
  s.manager = std::make_unique<StreamManager>(
      manager_options(c),
      [impl = impl_.get()](const StreamConfig& st) { return impl->inference_for(st); },
      [sink = s.sink.get()](const std::string& id, GstSample* sample) {
        sink->on_sample(id, sample);
      },
      [sink = s.sink.get()](const std::string& id) { sink->on_removed(id); },
      s.state_file ? &*s.state_file : nullptr,
      [sink = s.sink.get()](const StreamConfig& stream) { sink->on_pipeline(stream); });
  s.manager->set_entry_annotation([sink = s.sink.get()](const std::string& id, nlohmann::json& j) {
    if (nlohmann::json state = sink->analytics_state(id); !state.is_null()) j["analytics"] = state;
  });
  s.stream_metrics = std::make_unique<MonitorMetrics>(s.metrics, *s.manager);
  // Serving first: if the address is taken, no stream has started.
  HttpServerOptions http = http_options(c);
  http.health_details = [manager = s.manager.get(), mqtt = s.mqtt.get(), sink = s.sink.get()] {
    nlohmann::json details = service_readiness(*manager);
    if (mqtt) details["mqtt"] = mqtt->health();
    // Streams that run but do not count: configured analytics that are off, and why.
    if (const auto off = sink->analytics_off(); !off.empty()) details["analytics_off"] = off;
    return details;
  };
  http.stream_status = [manager = s.manager.get()](const std::string& id) {
    return stream_status(*manager, id);
  };
  s.http = std::make_unique<HttpServer>(http, s.results, &s.snapshots, &s.metrics, s.manager.get(),
                                        &s.events);
  s.manager->start(c.streams);
  s.watchdog = std::make_unique<WatchdogPinger>(s.notifier);
  s.notifier.ready();
  s.notifier.status(fmt::format("{} streams, HTTP on {}:{}", s.manager->ids().size(), c.http.bind,
                                s.http->port()));
  spdlog::info("yolo-monitor: {} streams started; API and dashboard on http://{}:{}/",
               s.manager->ids().size(), c.http.bind, s.http->port());
}

MonitorService::~MonitorService() {
  stop();
}

StreamManager::ReconcileSummary MonitorService::reload(const MonitorConfig& config) {
  Impl& s = *impl_;
  s.notifier.reloading();
  {
    std::lock_guard<std::mutex> lock(s.config_mutex);
    // The settings a reload cannot apply to running parts, flattened for comparison.
    const auto fixed = [](const MonitorConfig& c) {
      const auto& sv = c.supervision;
      return nlohmann::json::array({c.http.bind,
                                    c.http.port,
                                    c.http.token,
                                    c.outputs.jsonl.path.string(),
                                    c.outputs.jsonl.max_bytes,
                                    c.outputs.jsonl.keep_files,
                                    c.outputs.mqtt.url,
                                    c.outputs.mqtt.topic,
                                    c.outputs.mqtt.device_id,
                                    c.outputs.snapshots.directory.string(),
                                    c.outputs.snapshots.interval.count(),
                                    c.outputs.snapshots.keep_per_stream,
                                    c.outputs.snapshots.live_interval.count(),
                                    c.state_file.string(),
                                    c.rtsp.tcp,
                                    c.rtsp.latency.count(),
                                    sv.stall_timeout.count(),
                                    sv.start_timeout.count(),
                                    sv.backoff.initial.count(),
                                    sv.backoff.max.count(),
                                    sv.backoff.jitter,
                                    sv.max_retries,
                                    c.batching.batch_size,
                                    c.batching.batch_timeout.count()});
    };
    if (fixed(s.config) != fixed(config)) {
      spdlog::warn(
          "reload: changes to http, outputs (jsonl, snapshots, mqtt), state_file, rtsp, "
          "supervision and batching "
          "take effect after a restart; streams and model defaults are applied now");
    }
    // New defaults apply to streams that are (re)built from now on.
    const auto streams = config.streams;
    s.config.defaults = config.defaults;
    s.config.streams = streams;
  }
  const auto summary = s.manager->reconcile(config.streams);
  s.notifier.ready();  // ends RELOADING=1
  s.notifier.status(fmt::format("{} streams (reloaded)", s.manager->ids().size()));
  return summary;
}

void MonitorService::stop() {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.stop_mutex);
  if (s.stopped) return;
  s.stopped = true;
  s.notifier.stopping();
  s.watchdog.reset();
  s.http->stop();                 // no new API calls reach the manager
  s.manager->stop_all();          // no new samples reach the sink
  if (s.jsonl) s.jsonl->close();  // flushed
  // What the broker has not taken yet gets a moment; a broker that is away does not hold us.
  if (s.mqtt && !s.mqtt->flush(std::chrono::seconds(2)))
    spdlog::warn("outputs.mqtt: messages still buffered at shutdown are dropped");
  s.results.shutdown();  // wakes long-polls still waiting
  s.events.shutdown();
  spdlog::info("yolo-monitor: stopped");
}

int MonitorService::http_port() const {
  return impl_->http->port();
}

StreamManager& MonitorService::streams() {
  return *impl_->manager;
}

ResultsStore& MonitorService::results() {
  return impl_->results;
}

}  // namespace yolo::monitor
