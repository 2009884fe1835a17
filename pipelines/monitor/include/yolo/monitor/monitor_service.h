// The yolo-monitor service without its main(): everything a validated MonitorConfig describes,
// built and started in order, and stopped in reverse.
//
//   results store + snapshots -> result sink (JSON lines, snapshot archive)
//   stream manager (one supervisor per stream, state file) -> HTTP server (API + dashboard)
//   systemd: READY=1 once serving, STATUS=, WATCHDOG=1 pings, STOPPING=1 on stop()
//
// The inference part of every pipeline comes from the owner (the `yolo` element with the
// stream's resolved settings, inference_elements.h; `identity` in tests), so this class does not
// depend on it.
//
//   yolo::monitor::MonitorService service(config, [&](const auto& stream, const auto& s) {
//     return yolo::monitor::inference_elements(stream, s, config.batching);
//   }, yolo::monitor::SystemdNotifier::from_environment());
//   ... SIGHUP: service.reload(load_config(path));   SIGTERM: service.stop();
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "yolo/monitor/monitor_config.h"
#include "yolo/monitor/sd_notify.h"
#include "yolo/monitor/stream_manager.h"

namespace yolo {
class HttpServer;
class ResultsStore;
class SnapshotStore;
}  // namespace yolo

namespace yolo::monitor {

class MonitorService {
 public:
  // The inference elements of a stream's pipeline, from its resolved settings (model, device,
  // thresholds, classes, interval). May throw std::invalid_argument to refuse the stream.
  using InferenceElements = std::function<std::vector<ElementSpec>(const StreamConfig& stream,
                                                                   const StreamSettings& settings)>;

  // Opens the outputs and the state file, starts the HTTP server, then the streams; then tells
  // systemd it is ready. Throws (nothing left running) when an output cannot be opened, the
  // state file is invalid (ConfigError), the address cannot be bound, or a stream cannot be
  // built.
  MonitorService(MonitorConfig config, InferenceElements inference,
                 SystemdNotifier notifier = SystemdNotifier(""));
  // stop().
  ~MonitorService();
  MonitorService(const MonitorService&) = delete;
  MonitorService& operator=(const MonitorService&) = delete;

  // SIGHUP with a re-read, valid configuration: streams are reconciled (only changed ones are
  // touched) and new model defaults apply to streams built from now on. Changes to http,
  // outputs, state_file, rtsp, supervision or batching need a restart; they are logged as a
  // warning and otherwise ignored.
  StreamManager::ReconcileSummary reload(const MonitorConfig& config);

  // SIGTERM: STOPPING=1, stops serving, stops every stream, flushes and closes the outputs.
  // Idempotent.
  void stop();

  int http_port() const;  // the bound port (useful with http.port 0)
  StreamManager& streams();
  ResultsStore& results();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace yolo::monitor
