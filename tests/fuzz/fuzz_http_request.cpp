// The HTTP API's handlers on hostile requests: method, target (path and query string, decoded by
// cpp-httplib's own query parser as the server does), Content-Type and body from the bytes:
//
//   METHOD TARGET\n
//   CONTENT-TYPE\n
//   BODY...
//
// Every handler must answer with a status and a JSON (or Prometheus text) body; an exception
// escaping a handler would be a 500 for a client's mistake, so it counts as a finding here.
#include <cstddef>
#include <cstdint>
#include <regex>
#include <string>

#include "http_api.h"
#include "yolo/serving/events_store.h"
#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/results_store.h"
#include "yolo/serving/stream_control.h"

namespace {

// Accepts objects with a string id (what the service's own check does first).
class FakeStreams : public yolo::StreamControl {
 public:
  nlohmann::json list() override {
    return nlohmann::json::array({{{"id", "cam1"}, {"state", "running"}}});
  }
  yolo::StreamControlResult add(const nlohmann::json& s) override {
    yolo::StreamControlResult r;
    if (!s.contains("id") || !s["id"].is_string()) {
      r.status = yolo::StreamControlResult::Status::kInvalid;
      r.error = "id must be a string";
      return r;
    }
    r.status = yolo::StreamControlResult::Status::kOk;
    return r;
  }
  yolo::StreamControlResult remove(const std::string& id) override {
    yolo::StreamControlResult r;
    r.status = id == "cam1" ? yolo::StreamControlResult::Status::kOk
                            : yolo::StreamControlResult::Status::kNotFound;
    return r;
  }
};

struct Harness {
  Harness() : api(options, results, nullptr, &metrics, &streams, &events) {
    events.set_counts("cam1", {{"lines", nlohmann::json::array()}});
    for (int i = 0; i < 3; ++i) events.publish("cam1", {{"type", "line_crossed"}, {"track_id", i}});
    for (int i = 0; i < 3; ++i) {
      yolo::FrameResult r;
      r.stream_id = "cam1";
      r.frame = i;
      r.width = 640, r.height = 480;
      yolo::Detection d;
      d.class_id = i;
      d.class_name = i == 1 ? std::string("bad\xff\xfe name") : "person";
      d.confidence = 0.5f;
      r.detections.push_back(d);
      results.publish(r);
    }
    metrics.declare("yolo_fuzz_requests_total", yolo::MetricType::kCounter, "requests", {"code"});
    metrics.add("yolo_fuzz_requests_total", {"200"});
    api.begin_stop();  // long-polls answer at once (503) instead of waiting
  }
  yolo::HttpServerOptions options;
  yolo::ResultsStore results{10, 8};
  yolo::EventsStore events{10, 8};
  yolo::MetricsRegistry metrics;
  FakeStreams streams;
  yolo::http::Api api;
};

std::string next_line(const std::string& s, size_t& pos) {
  const size_t end = s.find('\n', pos);
  std::string line = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  pos = end == std::string::npos ? s.size() : end + 1;
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness h;
  const std::string in(reinterpret_cast<const char*>(data), size);
  size_t pos = 0;
  const std::string request_line = next_line(in, pos);
  const std::string content_type = next_line(in, pos);
  httplib::Request req;
  req.body = in.substr(pos);
  const size_t space = request_line.find(' ');
  req.method = request_line.substr(0, space);
  req.target = space == std::string::npos ? "/" : request_line.substr(space + 1);
  const size_t query = req.target.find('?');
  req.path = req.target.substr(0, query);
  if (query != std::string::npos)
    httplib::detail::parse_query_text(req.target.substr(query + 1), req.params);
  if (!content_type.empty()) req.headers.emplace("Content-Type", content_type);

  static const std::regex detections("/api/v1/streams/([^/]+)/detections");
  static const std::regex counts("/api/v1/streams/([^/]+)/counts");
  static const std::regex events("/api/v1/streams/([^/]+)/events");
  static const std::regex one_stream("/api/v1/streams/([^/]+)");
  httplib::Response res;
  try {
    if (req.method == "GET" && req.path == "/api/v1/health") {
      h.api.health(req, res);
    } else if (req.method == "GET" && req.path == "/api/v1/streams") {
      h.api.streams(req, res);
    } else if (req.method == "GET" && std::regex_match(req.path, req.matches, detections)) {
      h.api.detections(req, res);
    } else if (req.method == "GET" && std::regex_match(req.path, req.matches, counts)) {
      h.api.counts(req, res);
    } else if (req.method == "GET" && std::regex_match(req.path, req.matches, events)) {
      h.api.events(req, res);
    } else if (req.method == "GET" && req.path == "/api/v1/metrics") {
      h.api.metrics(req, res);
    } else if (req.method == "POST" && req.path == "/api/v1/streams") {
      h.api.add_stream(req, req.body, res);
    } else if (req.method == "DELETE" && std::regex_match(req.path, req.matches, one_stream)) {
      h.api.remove_stream(req, res);
    } else {
      return 0;
    }
  } catch (...) {
    __builtin_trap();
  }
  if (res.status < 200 || res.status > 599) __builtin_trap();
  if (res.status != 204 && res.body.empty()) __builtin_trap();
  return 0;
}
