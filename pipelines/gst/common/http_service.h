// The HTTP endpoint of `yolo` elements: elements of one process that name the same http-port
// share one server, one results store, one snapshot store and one metrics registry, so one port
// serves every stream (GET /api/v1/streams lists them all). Reference: docs/http-api.md.
//
// Like model instances, services live while an element holds them; the registry keeps weak
// references only.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "yolo/serving/http_server.h"
#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/readiness_board.h"
#include "yolo/serving/results_store.h"
#include "yolo/serving/runtime_metrics.h"
#include "yolo/serving/snapshot_store.h"

namespace yolo::gst {

class HttpService {
 public:
  // Binds address:port (port 0 picks a free one); throws std::runtime_error when it cannot.
  HttpService(const std::string& address, int port);
  HttpService(const HttpService&) = delete;
  HttpService& operator=(const HttpService&) = delete;

  ResultsStore& results() { return results_; }
  SnapshotStore& snapshots() { return snapshots_; }
  RuntimeMetrics& metrics() { return runtime_metrics_; }
  // Each stream's start-up state: /health reports it, and a stream's detections endpoint says
  // why it has none yet.
  ReadinessBoard& readiness() { return readiness_; }
  int port() const { return server_->port(); }
  const std::string& address() const { return server_->host(); }

 private:
  ResultsStore results_;
  SnapshotStore snapshots_;
  MetricsRegistry registry_;
  RuntimeMetrics runtime_metrics_;
  ReadinessBoard readiness_;
  std::unique_ptr<HttpServer> server_;  // last: stops before what it serves goes away
};

class HttpServiceRegistry {
 public:
  // The registry of this process (one port, one server, whichever elements use it).
  static HttpServiceRegistry& process();

  // The service on `port`, started on first use. A second element asking for the same port
  // with another address gets std::invalid_argument.
  std::shared_ptr<HttpService> acquire(const std::string& address, int port);

 private:
  HttpServiceRegistry() = default;
  std::mutex mutex_;
  std::map<int, std::weak_ptr<HttpService>> services_;
};

}  // namespace yolo::gst
