// The HTTP endpoint of the serving layer (API reference: docs/http-api.md). Serves, under /api/v1:
//   GET /health                                 liveness (open even when a token is set)
//   GET /streams                                streams and their latest sequence numbers
//                                               (with a StreamControl: also state and stats)
//   POST /streams, DELETE /streams/{id}         add/remove streams (only with a StreamControl)
//   GET /streams/{id}/detections?since=&wait=   latest result, or newer ones (long-poll)
//   GET /streams/{id}/snapshot.jpg              latest kept frame with boxes (SnapshotStore)
//   GET /streams/{id}/counts                    line and zone counts (EventsStore, analytics)
//   GET /streams/{id}/events?since=&wait=       analytics events, newer ones (long-poll)
//   GET /metrics                                Prometheus text (MetricsRegistry)
// and, when options.dashboard_html is set, that page at GET / (open without a token: the page
// holds no data and asks for the token itself).
//
// Error policy: the constructor throws (bad options, address cannot be bound); once running,
// nothing a client sends escapes the server: bad requests get 4xx, a failing handler 500, both
// with a JSON body {"error": what is wrong, "hint": what to do, "status": code}.
//
// Usage (the store, snapshots and registry are fed by the producers; see their headers):
//   yolo::HttpServerOptions options;
//   options.port = 8080;
//   yolo::HttpServer server(options, store, &snapshots, &registry);  // serving from here on
//   ...                             // until server.stop() or destruction
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace yolo {

class EventsStore;
class MetricsRegistry;
class ResultsStore;
class SnapshotStore;
class StreamControl;

// What a stream that has no results yet is doing, so that its detections and snapshot endpoints
// can say why they are empty instead of "unknown stream".
struct StreamStatus {
  std::string state;      // "loading model", "starting", "reconnecting", "failed", ...
  std::string detail;     // in words: the model being loaded, the last error; may be empty
  bool transient = true;  // it comes right by itself (503 with Retry-After); false: it needs a
                          // person (503 without Retry-After)
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";  // address to bind; "0.0.0.0" serves every interface
  int port = 8080;                 // TCP port 0..65535; 0 picks a free one (see port())
  // Non-empty: every endpoint but /health requires "Authorization: Bearer <token>".
  std::string bearer_token;
  // Longest long-poll a client may ask for with ?wait=; longer requests are capped to it.
  std::chrono::milliseconds max_wait{30000};
  size_t threads = 8;  // worker threads always running (>= 1)
  // Workers are added, up to this many, when a connection arrives while all are busy: a client
  // that sends half a request holds a worker until read_timeout, and must not keep /health and
  // other clients waiting (>= threads). Beyond it, connections queue.
  size_t max_threads = 64;
  // Long-polls waiting at the same time (< threads, so that other requests still find a worker);
  // further ones get 503 with Retry-After.
  size_t max_long_polls = 6;
  // Largest request body (only POST /streams takes one: a small JSON object); larger: 413.
  size_t max_payload_bytes = 16384;
  std::chrono::milliseconds read_timeout{5000};   // for a client to send its request (> 0)
  std::chrono::milliseconds write_timeout{5000};  // for a client to take the response (> 0)
  // An idle kept-alive connection is closed after this; it also bounds how long stop() waits for
  // such a connection (>= 1 s).
  std::chrono::seconds keep_alive_timeout{2};
  size_t keep_alive_max_requests = 100;  // requests per connection before it is closed (>= 1)
  // Non-empty: served as text/html at GET / (the monitoring dashboard).
  std::string dashboard_html;
  // Set: GET /health adds what it returns (a JSON object, e.g. the MQTT connection's state) to
  // its answer. Called on a worker thread; must be quick and must not throw.
  std::function<nlohmann::json()> health_details;
  // Set: for a stream that has no results yet, what it is doing, or nullopt when the service does
  // not know the stream. Its detections and snapshot endpoints then answer 503 with the state
  // instead of 404. Called on a worker thread; must be quick and must not throw.
  std::function<std::optional<StreamStatus>(const std::string& stream_id)> stream_status;
};

class HttpServer {
 public:
  // Binds host:port and serves on a background thread. `results` must outlive the server;
  // `snapshots` and `metrics` are optional (without them their endpoints answer 404), and so is
  // `streams` (stream_control.h; without it the stream list comes from `results` and POST/DELETE
  // are not served), and `events` (events_store.h; without it the counts and events endpoints
  // answer 404); all must outlive the server. Throws std::invalid_argument for bad options and
  // std::runtime_error when the address cannot be bound.
  HttpServer(HttpServerOptions options, ResultsStore& results, SnapshotStore* snapshots = nullptr,
             MetricsRegistry* metrics = nullptr, StreamControl* streams = nullptr,
             EventsStore* events = nullptr);
  // stop().
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Stops accepting, ends waiting long-polls promptly (they answer 503), waits for requests in
  // flight and joins the serving thread. Idempotent and thread-safe. Leaves the ResultsStore
  // running: it belongs to the service, which may start another server on it.
  void stop();

  int port() const;  // the bound port: the chosen one when options.port was 0
  const std::string& host() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace yolo
