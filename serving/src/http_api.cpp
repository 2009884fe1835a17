#include "http_api.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "client_connection.h"
#include "yolo/core/version.h"
#include "yolo/serving/events_store.h"
#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/results_store.h"
#include "yolo/serving/snapshot_store.h"
#include "yolo/serving/stream_control.h"

namespace yolo::http {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// ResultsStore's waits wake only on a publish or on the store's shutdown, and the server must
// not shut down a store the service owns. So long-polls wait in slices and check the server's
// stop flag in between: this bounds how long stop() takes, at 20 cheap wake-ups per second per
// waiting client.
constexpr std::chrono::milliseconds kStopCheckInterval{50};
// What a client told to retry (503) should wait, in seconds.
constexpr int kRetryAfterSeconds = 1;

// Rejects query parameters the endpoint does not know and repeated ones: a misspelt `sinse=5`
// would otherwise silently return the latest result instead of a long-poll.
bool check_params(const httplib::Request& req, httplib::Response& res,
                  const std::set<std::string>& allowed) {
  for (const auto& [key, value] : req.params) {
    if (!allowed.count(key)) {
      send_error(res, 400, fmt::format("unknown query parameter '{}'", key),
                 allowed.empty() ? "this endpoint takes no query parameters"
                                 : "use only the parameters listed in 'allowed'",
                 {{"parameter", key}, {"allowed", allowed}});
      return false;
    }
    if (req.get_param_value_count(key) > 1) {
      send_error(res, 400, fmt::format("query parameter '{}' is given more than once", key),
                 "give each parameter once", {{"parameter", key}});
      return false;
    }
  }
  return true;
}

// A non-negative decimal integer, digits only; nullopt (and a 400 sent) otherwise.
std::optional<uint64_t> unsigned_param(const httplib::Request& req, httplib::Response& res,
                                       const std::string& key, const std::string& meaning) {
  const std::string text = req.get_param_value(key);
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    send_error(res, 400, fmt::format("{}='{}' is not a non-negative integer", key, text),
               fmt::format("pass {} as a whole number ({})", key, meaning), {{"parameter", key}});
    return std::nullopt;
  }
  return value;
}

// Counts a waiting long-poll for as long as it lives; empty when the limit is reached.
class LongPollSlot {
 public:
  LongPollSlot(std::atomic<size_t>& count, size_t limit) : count_(count) {
    acquired_ = count_.fetch_add(1) < limit;
    if (!acquired_) count_.fetch_sub(1);
  }
  ~LongPollSlot() {
    if (acquired_) count_.fetch_sub(1);
  }
  LongPollSlot(const LongPollSlot&) = delete;
  LongPollSlot& operator=(const LongPollSlot&) = delete;
  explicit operator bool() const { return acquired_; }

 private:
  std::atomic<size_t>& count_;
  bool acquired_ = false;
};

}  // namespace

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& error,
                const std::string& hint, const json& extra) {
  json body = {{"error", error}, {"hint", hint}, {"status", status}};
  body.update(extra);
  send_json(res, status, body);
}

Api::Api(const HttpServerOptions& options, ResultsStore& results, SnapshotStore* snapshots,
         MetricsRegistry* metrics, StreamControl* control, EventsStore* events)
    : options_(options),
      results_(results),
      snapshots_(snapshots),
      metrics_(metrics),
      control_(control),
      events_(events) {}

void Api::health(const httplib::Request& req, httplib::Response& res) {
  if (!check_params(req, res, {})) return;
  const double uptime = std::chrono::duration<double>(Clock::now() - started_).count();
  json body = {{"status", "ok"}, {"version", kVersion}, {"uptime_s", uptime}};
  if (options_.health_details) body.update(options_.health_details());
  send_json(res, 200, body);
}

void Api::streams(const httplib::Request& req, httplib::Response& res) {
  if (!check_params(req, res, {})) return;
  // The latest result's summary, or nulls for a stream without results yet.
  const auto result_fields = [&](const std::string& id) {
    const auto latest = results_.latest(id);
    json fields = {
        {"stream_id", id},       {"latest_seq", nullptr},
        {"frame", nullptr},      {"timestamp", nullptr},
        {"detections", nullptr}, {"snapshot", snapshots_ != nullptr && snapshots_->has(id)}};
    if (latest) {
      fields["latest_seq"] = latest->seq;
      fields["frame"] = latest->frame;
      fields["timestamp"] = format_utc(latest->wall_time);
      fields["detections"] = latest->detections.size();
    }
    return std::make_pair(latest.has_value(), fields);
  };
  json list = json::array();
  if (control_) {
    // The controller knows every stream, including those without results (starting, failed).
    const json entries = control_->list();
    if (!entries.is_array())
      throw std::runtime_error("the stream controller's list is not an array");
    for (const auto& entry : entries) {
      if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_string()) {
        throw std::runtime_error("the stream controller listed a stream without a string id");
      }
      json item = entry;
      item.update(result_fields(entry["id"].get<std::string>()).second);
      list.push_back(std::move(item));
    }
  } else {
    for (const auto& id : results_.streams()) {
      auto [has_result, item] = result_fields(id);
      if (has_result) list.push_back(std::move(item));  // else removed since streams() was read
    }
  }
  send_json(res, 200, {{"streams", list}});
}

void Api::add_stream(const httplib::Request& req, const std::string& text, httplib::Response& res) {
  // The body is JSON whatever its Content-Type says: `curl -d '{...}'` (the README's example)
  // labels it as a form. The server reads it raw, so a form label adds no parameters here.
  if (!check_params(req, res, {})) return;
  const json body = json::parse(text, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    send_error(res, 400, "the request body is not a JSON object",
               R"(send a stream object such as {"id": "cam2", "uri": "rtsp://host/stream"} with )"
               "Content-Type: application/json");
    return;
  }
  const StreamControlResult r = control_->add(body);
  switch (r.status) {
    case StreamControlResult::Status::kOk: {
      json created = r.stream.is_null() ? body : r.stream;
      if (created.contains("id") && created["id"].is_string()) {
        res.set_header("Location",
                       fmt::format("{}/streams/{}", kApiPrefix, created["id"].get<std::string>()));
      }
      send_json(res, 201, {{"stream", created}});
      return;
    }
    case StreamControlResult::Status::kInvalid:
      return send_error(res, 400, r.error, r.hint, r.details);
    case StreamControlResult::Status::kConflict:
      return send_error(res, 409, r.error, r.hint, r.details);
    case StreamControlResult::Status::kNotFound:
      return send_error(res, 404, r.error, r.hint, r.details);
  }
}

void Api::remove_stream(const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  if (!check_params(req, res, {})) return;
  const StreamControlResult r = control_->remove(id);
  switch (r.status) {
    case StreamControlResult::Status::kOk:
      res.status = 204;
      res.set_header("Cache-Control", "no-store");
      return;
    case StreamControlResult::Status::kNotFound:
      return send_error(
          res, 404, r.error.empty() ? fmt::format("unknown stream '{}'", id) : r.error,
          r.hint.empty() ? fmt::format("GET {}/streams lists the streams", kApiPrefix) : r.hint,
          r.details.empty() ? json{{"stream_id", id}} : r.details);
    case StreamControlResult::Status::kInvalid:
      return send_error(res, 400, r.error, r.hint, r.details);
    case StreamControlResult::Status::kConflict:
      return send_error(res, 409, r.error, r.hint, r.details);
  }
}

void Api::dashboard(const httplib::Request& req, httplib::Response& res) {
  // The page reads its token from ?token=, so that one query parameter is allowed.
  if (!check_params(req, res, {"token"})) return;
  res.status = 200;
  res.set_header("Cache-Control", "no-store");
  res.set_content(options_.dashboard_html, "text/html; charset=utf-8");
}

// The since/wait protocol the detections and events endpoints share (docs/http-api.md):
// checks the parameters against the stream's latest seq and waits in slices; returns the items
// newer than since, or nullopt when an error response was sent. `wait_since(since, timeout)`
// reads the store; `shut_down()` says whether the store was shut down.
template <typename Item, typename WaitSince, typename ShutDown>
std::optional<std::vector<Item>> Api::poll(const httplib::Request& req, httplib::Response& res,
                                           const std::string& id, uint64_t latest_seq,
                                           uint64_t since, WaitSince wait_since,
                                           ShutDown shut_down) {
  std::chrono::milliseconds wait{0};
  if (req.has_param("wait")) {
    const auto ms = unsigned_param(req, res, "wait", "milliseconds to wait");
    if (!ms) return std::nullopt;
    // Compared as integers first: a huge wait would overflow the duration.
    const auto cap = static_cast<uint64_t>(options_.max_wait.count());
    wait = std::chrono::milliseconds(static_cast<int64_t>(std::min(*ms, cap)));
  }
  if (since > latest_seq) {
    send_error(res, 400,
               fmt::format("since={} is ahead of stream '{}', whose latest seq is {}", since, id,
                           latest_seq),
               "sequence numbers restart when the service restarts: poll once without since and "
               "continue from its next_since",
               {{"parameter", "since"}, {"latest_seq", latest_seq}});
    return std::nullopt;
  }
  if (wait.count() == 0) return wait_since(since, std::chrono::milliseconds(0));

  LongPollSlot slot(long_polls_, options_.max_long_polls);
  if (!slot) {
    res.set_header("Retry-After", std::to_string(kRetryAfterSeconds));
    send_error(res, 503,
               fmt::format("too many long-polls waiting (limit {})", options_.max_long_polls),
               "retry shortly, poll without wait, or raise the server's max_long_polls");
    return std::nullopt;
  }
  const auto deadline = Clock::now() + wait;
  // A client that disconnected gives its slot back within a slice, not when its wait expires.
  const std::optional<ClientConnection> connection = ClientConnection::of(req);
  std::vector<Item> got;
  for (;;) {
    // Rounded up: a truncated 0 ms slice would spin for the last fraction of a millisecond.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    got = wait_since(since, std::clamp(left, std::chrono::milliseconds(0), kStopCheckInterval));
    if (!got.empty() || stopping_ || shut_down() || Clock::now() >= deadline) break;
    if (connection && connection->gone()) {
      spdlog::debug("http: long-poll on '{}' ended: its client {}:{} disconnected", id,
                    req.remote_addr, req.remote_port);
      send_error(res, 503, "the client disconnected", "nobody reads this");
      return std::nullopt;
    }
  }
  if (got.empty() && stopping_) {
    res.set_header("Retry-After", std::to_string(kRetryAfterSeconds));
    send_error(res, 503, "the server is shutting down", "retry when the service is back");
    return std::nullopt;
  }
  return got;
}

// `wait` without `since` is an error on both polled endpoints.
static bool wait_needs_since(const httplib::Request& req, httplib::Response& res) {
  if (!req.has_param("wait") || req.has_param("since")) return true;
  send_error(res, 400, "'wait' needs 'since'",
             "pass since=<next_since of your previous response> to wait for newer items; "
             "without since the latest is returned at once",
             {{"parameter", "wait"}});
  return false;
}

void Api::detections(const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  if (!check_params(req, res, {"since", "wait"}) || !wait_needs_since(req, res)) return;
  const auto latest = results_.latest(id);
  if (!latest) return no_results(res, id);
  if (!req.has_param("since")) {
    send_json(res, 200,
              {{"stream_id", id},
               {"results", json::array({to_json(*latest)})},
               {"next_since", latest->seq},
               {"missed", 0}});
    return;
  }
  const auto since = unsigned_param(req, res, "since", "a seq from an earlier response");
  if (!since) return;
  const auto got = poll<FrameResult>(
      req, res, id, latest->seq, *since,
      [&](uint64_t from, std::chrono::milliseconds t) { return results_.wait_since(id, from, t); },
      [&] { return results_.is_shut_down(); });
  if (!got) return;
  json list = json::array();
  for (const auto& r : *got) list.push_back(to_json(r));
  // Results older than the kept history are gone; tell the client how many it missed.
  const uint64_t missed = got->empty() ? 0 : got->front().seq - *since - 1;
  send_json(res, 200,
            {{"stream_id", id},
             {"results", list},
             {"next_since", got->empty() ? *since : got->back().seq},
             {"missed", missed}});
}

// A stream without results: 503 with what it is doing when the service knows it (the model is
// loading, the camera is reconnecting), else 404.
void Api::no_results(httplib::Response& res, const std::string& id) {
  if (options_.stream_status) {
    if (const std::optional<StreamStatus> status = options_.stream_status(id)) {
      if (status->transient) res.set_header("Retry-After", std::to_string(kRetryAfterSeconds));
      send_error(
          res, 503,
          fmt::format("stream '{}' has no results yet: {}{}", id, status->state,
                      status->detail.empty() ? "" : " (" + status->detail + ")"),
          status->transient
              ? fmt::format("retry in a moment; GET {}/health tells when it is ready", kApiPrefix)
              : fmt::format("see the stream's last_error in GET {}/streams and fix its "
                            "configuration or source",
                            kApiPrefix),
          {{"stream_id", id}, {"state", status->state}, {"detail", status->detail}});
      return;
    }
  }
  send_error(res, 404, fmt::format("unknown stream '{}'", id),
             fmt::format("GET {}/streams lists the streams that have results", kApiPrefix),
             {{"stream_id", id}});
}

// Streams without analytics are 404 on both analytics endpoints, with what to configure; a
// stream the service does not know is 404 as on every other stream endpoint.
bool Api::has_analytics(httplib::Response& res, const std::string& id) {
  const bool known = results_.has_stream(id) || (events_ && events_->has_stream(id)) ||
                     (options_.stream_status && options_.stream_status(id).has_value());
  if (!known) {
    send_error(res, 404, fmt::format("unknown stream '{}'", id),
               fmt::format("GET {}/streams lists the streams", kApiPrefix), {{"stream_id", id}});
    return false;
  }
  if (!events_) {
    send_error(res, 404, "this server has no analytics",
               "configure lines or zones for a stream (docs/analytics.md)");
    return false;
  }
  if (!events_->has_stream(id)) {
    send_error(res, 404, fmt::format("stream '{}' has no lines or zones", id),
               "give the stream lines: or zones: in the service configuration "
               "(docs/analytics.md)",
               {{"stream_id", id}});
    return false;
  }
  return true;
}

void Api::counts(const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  if (!check_params(req, res, {}) || !has_analytics(res, id)) return;
  json body = events_->counts(id).value_or(json::object());
  body["stream_id"] = id;
  body["latest_event_seq"] = events_->latest_seq(id).value_or(0);
  send_json(res, 200, body);
}

void Api::events(const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  if (!check_params(req, res, {"since", "wait"}) || !wait_needs_since(req, res) ||
      !has_analytics(res, id))
    return;
  const uint64_t latest = events_->latest_seq(id).value_or(0);
  uint64_t since = latest;  // without since: nothing old, only where to continue from
  if (req.has_param("since")) {
    const auto given = unsigned_param(req, res, "since", "a seq from an earlier response");
    if (!given) return;
    since = *given;
  }
  const auto got = poll<json>(
      req, res, id, latest, since,
      [&](uint64_t from, std::chrono::milliseconds t) { return events_->wait_since(id, from, t); },
      [&] { return events_->is_shut_down(); });
  if (!got) return;
  const uint64_t first = got->empty() ? 0 : got->front()["seq"].get<uint64_t>();
  const uint64_t last = got->empty() ? since : got->back()["seq"].get<uint64_t>();
  send_json(res, 200,
            {{"stream_id", id},
             {"events", *got},
             {"next_since", last},
             {"missed", got->empty() ? 0 : first - since - 1}});
}

void Api::snapshot(const httplib::Request& req, httplib::Response& res) {
  const std::string id = req.matches[1];
  if (!check_params(req, res, {})) return;
  if (!snapshots_) {
    send_error(res, 404, "snapshots are not enabled on this server",
               "enable frame keeping (snapshots) in the service configuration");
    return;
  }
  const auto bytes = snapshots_->jpeg(id);
  if (!bytes) {
    if (!results_.has_stream(id)) return no_results(res, id);
    send_error(res, 404, fmt::format("no frame is kept for stream '{}'", id),
               "a snapshot appears once the stream's producer hands over a frame; retry later",
               {{"stream_id", id}});
    return;
  }
  res.status = 200;
  res.set_header("Cache-Control", "no-store");
  res.set_content(reinterpret_cast<const char*>(bytes->data()), bytes->size(), "image/jpeg");
}

void Api::metrics(const httplib::Request& req, httplib::Response& res) {
  if (!check_params(req, res, {})) return;
  if (!metrics_) {
    send_error(res, 404, "metrics are not enabled on this server",
               "the program embedding this server gave it no metrics registry (HttpServer's "
               "metrics argument); yolo-monitor and the yolo element's http-port serve them");
    return;
  }
  res.status = 200;
  res.set_header("Cache-Control", "no-store");
  res.set_content(metrics_->render(), MetricsRegistry::kContentType);
}

}  // namespace yolo::http
