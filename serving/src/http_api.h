// Private to the serving layer: the /api/v1 endpoint handlers and the JSON response helpers that
// HttpServer wires into cpp-httplib. Kept apart from the server's lifecycle (binding, threads,
// auth, error mapping) so that each file has one job.
#pragma once

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "yolo/serving/http_server.h"

namespace yolo {
namespace http {

inline constexpr char kApiPrefix[] = "/api/v1";

// Every response body is JSON written with invalid UTF-8 replaced (stream ids and class names
// come from outside), so building a response never throws on odd bytes.
void send_json(httplib::Response& res, int status, const nlohmann::json& body);
// {"error": what is wrong, "hint": what to do, "status": status, ...extra}
void send_error(httplib::Response& res, int status, const std::string& error,
                const std::string& hint, const nlohmann::json& extra = nlohmann::json::object());

class Api {
 public:
  Api(const HttpServerOptions& options, ResultsStore& results, SnapshotStore* snapshots,
      MetricsRegistry* metrics, StreamControl* control, EventsStore* events);

  // Makes waiting long-polls return (with 503) within kStopCheckInterval.
  void begin_stop() { stopping_ = true; }
  size_t long_polls_waiting() const { return long_polls_; }

  void health(const httplib::Request& req, httplib::Response& res);
  void streams(const httplib::Request& req, httplib::Response& res);
  void detections(const httplib::Request& req, httplib::Response& res);  // matches[1]: stream id
  void snapshot(const httplib::Request& req, httplib::Response& res);    // matches[1]: stream id
  // With an EventsStore (analytics) only; matches[1]: stream id.
  void counts(const httplib::Request& req, httplib::Response& res);
  void events(const httplib::Request& req, httplib::Response& res);
  void metrics(const httplib::Request& req, httplib::Response& res);
  // With a StreamControl only:
  // `body` as read by the server (httplib reads no body for this route itself).
  void add_stream(const httplib::Request& req, const std::string& body, httplib::Response& res);
  void remove_stream(const httplib::Request& req, httplib::Response& res);  // matches[1]: id
  // With options.dashboard_html only:
  void dashboard(const httplib::Request& req, httplib::Response& res);

 private:
  template <typename Item, typename WaitSince, typename ShutDown>
  std::optional<std::vector<Item>> poll(const httplib::Request& req, httplib::Response& res,
                                        const std::string& id, uint64_t latest_seq, uint64_t since,
                                        WaitSince wait_since, ShutDown shut_down);
  bool has_analytics(httplib::Response& res, const std::string& id);
  void no_results(httplib::Response& res, const std::string& id);

  const HttpServerOptions& options_;
  ResultsStore& results_;
  SnapshotStore* snapshots_;
  MetricsRegistry* metrics_;
  StreamControl* control_;
  EventsStore* events_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::atomic<bool> stopping_{false};
  std::atomic<size_t> long_polls_{0};
};

}  // namespace http
}  // namespace yolo
