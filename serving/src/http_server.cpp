// HttpServer: binding, worker threads, limits, bearer-token check, JSON for every error, and the
// start/stop lifecycle around cpp-httplib. The endpoints themselves are in http_api.cpp.
#include "yolo/serving/http_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <regex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "elastic_thread_pool.h"
#include "http_api.h"
#include "yolo/core/strings.h"
#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/runtime_metrics.h"
#include "yolo/serving/stream_control.h"

namespace yolo {
namespace {

using httplib::Request;
using httplib::Response;
using HandlerResponse = httplib::Server::HandlerResponse;

struct Route {
  std::string pattern;  // regex over the decoded path; group 1 is the stream id where present
  void (http::Api::*handler)(const Request&, Response&);
  std::string display;  // for error hints
};

std::vector<Route> api_routes() {
  const std::string p = http::kApiPrefix;
  return {{p + "/health", &http::Api::health, "GET " + p + "/health"},
          {p + "/streams", &http::Api::streams, "GET " + p + "/streams"},
          {p + "/streams/([^/]+)/detections", &http::Api::detections,
           "GET " + p + "/streams/{id}/detections"},
          {p + R"(/streams/([^/]+)/snapshot\.jpg)", &http::Api::snapshot,
           "GET " + p + "/streams/{id}/snapshot.jpg"},
          {p + "/streams/([^/]+)/counts", &http::Api::counts, "GET " + p + "/streams/{id}/counts"},
          {p + "/streams/([^/]+)/events", &http::Api::events, "GET " + p + "/streams/{id}/events"},
          {p + "/metrics", &http::Api::metrics, "GET " + p + "/metrics"}};
}

void validate(const HttpServerOptions& o) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("http server: " + what);
  };
  if (o.host.empty()) fail("host is empty; use 127.0.0.1 (local only) or 0.0.0.0 (all)");
  if (o.port < 0 || o.port > 65535) fail(fmt::format("port {} is not in 0..65535", o.port));
  if (o.threads < 1) fail("threads must be >= 1");
  if (o.max_threads < o.threads) fail("max_threads must be >= threads");
  if (o.max_long_polls >= o.threads) {
    fail(
        fmt::format("max_long_polls ({}) must be below threads ({}) so that other requests "
                    "still find a worker",
                    o.max_long_polls, o.threads));
  }
  if (o.max_wait.count() < 0) fail("max_wait must be >= 0");
  if (o.read_timeout.count() <= 0 || o.write_timeout.count() <= 0) {
    fail("read_timeout and write_timeout must be > 0");
  }
  if (o.keep_alive_timeout.count() < 1) fail("keep_alive_timeout must be >= 1 s");
  if (o.keep_alive_max_requests < 1) fail("keep_alive_max_requests must be >= 1");
}

// Compares in time that depends only on the lengths, so a client cannot find the token byte by
// byte from response times.
bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// The token after "Bearer " (scheme case-insensitive, RFC 7235), or empty.
std::string bearer_token(const Request& req) {
  const std::string auth = req.get_header_value("Authorization");
  constexpr size_t kScheme = 7;  // "Bearer "
  if (auth.size() <= kScheme || auth[kScheme - 1] != ' ') return {};
  return lower(std::string_view(auth).substr(0, kScheme - 1)) == "bearer" ? auth.substr(kScheme)
                                                                          : std::string();
}

// One bad request must never take the server down: anything a handler throws becomes a 500.
void call_guarded(const Request& req, Response& res, const std::function<void()>& handler) {
  try {
    handler();
  } catch (const std::exception& e) {
    spdlog::error("http: {} {} failed: {}", req.method, req.path, e.what());
    http::send_error(res, 500, fmt::format("internal error: {}", e.what()),
                     "the server keeps running; retry, and report the error if it repeats");
  } catch (...) {
    spdlog::error("http: {} {} failed with an unknown exception", req.method, req.path);
    http::send_error(res, 500, "internal error",
                     "the server keeps running; retry, and report the error if it repeats");
  }
}

httplib::Server::Handler guarded(std::function<void(const Request&, Response&)> handler) {
  return [handler = std::move(handler)](const Request& req, Response& res) {
    call_guarded(req, res, [&] { handler(req, res); });
  };
}

// httplib 0.11 reads the body of every POST, PUT, PATCH and DELETE before routing, and for a
// request that declares none (no Content-Length, not chunked) it reads until the client closes or
// the read timeout passes: `curl -X DELETE .../streams/cam1` waited 5 s for its answer. By HTTP/1.1
// such a request has no body (RFC 9112, 6.3). Handlers given httplib's content reader run before
// that read, so these read a body only where one is declared (up to the payload limit, which the
// reader enforces with a 413), and always read it whole, so that a keep-alive connection stays in
// step even where the body is not used.
bool declares_body(const Request& req) {
  return req.has_header("Content-Length") ||
         lower(req.get_header_value("Transfer-Encoding")).find("chunked") != std::string::npos;
}

httplib::Server::HandlerWithContentReader with_body(
    std::function<void(const Request&, const std::string& body, Response&)> handler) {
  return [handler = std::move(handler)](const Request& req, Response& res,
                                        const httplib::ContentReader& reader) {
    std::string body;
    if (declares_body(req) && !reader([&](const char* data, size_t n) {
          body.append(data, n);
          return true;
        })) {
      return;  // httplib set the status (413 too large, 400 malformed); the error handler words it
    }
    call_guarded(req, res, [&] { handler(req, body, res); });
  };
}

// When this worker began waiting for its current request: the connection's start, then the end
// of each response on it. httplib answers a header line over its 8 KiB limit and headers that
// stop coming with the same bare 400; the time waited tells them apart (431 / 408). Per worker
// thread because httplib serves a connection on one worker from its first byte to its close.
thread_local std::chrono::steady_clock::time_point t_request_wait_start;

class RequestClockPool : public http::ElasticThreadPool {
 public:
  using ElasticThreadPool::ElasticThreadPool;
  void enqueue(std::function<void()> job) override {
    ElasticThreadPool::enqueue([job = std::move(job)] {
      t_request_wait_start = std::chrono::steady_clock::now();
      job();
    });
  }
};

// RFC 9110 5.6.2: a method is a token.
bool is_token(const std::string& text) {
  static const std::string kSymbols = "!#$%&'*+-.^_`|~";
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || kSymbols.find(static_cast<char>(c)) != std::string::npos;
  });
}

// The methods httplib routes to handlers; every path answers them (405 where not served).
bool is_routed_method(const std::string& method) {
  for (const char* m : {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}) {
    if (method == m) return true;
  }
  return false;
}

}  // namespace

struct HttpServer::Impl {
  Impl(HttpServerOptions o, ResultsStore& results, SnapshotStore* snapshots,
       MetricsRegistry* registry, StreamControl* control, EventsStore* events)
      : options(std::move(o)),
        api(options, results, snapshots, registry, control, events),
        metrics(registry),
        stream_control(control) {}

  void configure();
  void configure_metrics();
  HandlerResponse check_token(const Request& req, Response& res) const;
  void other_method(const Request& req, Response& res) const;
  void refused_request(const Request& req, Response& res) const;
  HandlerResponse error_to_json(const Request& req, Response& res) const;
  void not_found(const Request& req, Response& res) const;
  void bind();
  void start();
  void stop();

  const HttpServerOptions options;  // before api, which keeps a reference
  http::Api api;
  MetricsRegistry* metrics;
  StreamControl* stream_control;
  MetricsRegistry::CollectorHandle metrics_collector;  // after api, which it reads
  const std::vector<Route> routes = api_routes();
  std::vector<std::regex> route_regexes;
  std::vector<std::string> endpoints;  // "GET /api/v1/health", ... for hints
  httplib::Server server;
  int port = 0;
  std::mutex stop_mutex;
  std::atomic<bool> listen_returned{false};
  std::thread thread;  // after server: joined (by stop()) before the server goes away
};

void HttpServer::Impl::configure() {
  // httplib owns the task queue this factory returns (its API takes a raw pointer).
  server.new_task_queue = [n = options.threads, max = options.max_threads] {
    return new RequestClockPool(n, max);
  };
  server.set_read_timeout(options.read_timeout);
  server.set_write_timeout(options.write_timeout);
  server.set_keep_alive_timeout(options.keep_alive_timeout.count());
  server.set_keep_alive_max_count(options.keep_alive_max_requests);
  server.set_payload_max_length(options.max_payload_bytes);
  // SO_REUSEADDR only, to rebind at once while old connections linger in TIME_WAIT. httplib's
  // default adds SO_REUSEPORT, which lets a second server bind the same port and silently take
  // part of the connections instead of failing.
  server.set_socket_options([](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  configure_metrics();
  server.set_pre_routing_handler(
      [this](const Request& req, Response& res) { return check_token(req, res); });
  for (const auto& r : routes) {
    route_regexes.emplace_back(r.pattern);
    endpoints.push_back(r.display);
    server.Get(r.pattern, guarded([this, handler = r.handler](const Request& req, Response& res) {
                 (api.*handler)(req, res);
               }));
  }
  // Registered before the catch-all handlers below, which httplib would otherwise match first.
  const std::string p = http::kApiPrefix;
  if (stream_control) {
    server.Post(p + "/streams",
                with_body([this](const Request& req, const std::string& body, Response& res) {
                  api.add_stream(req, body, res);
                }));
    server.Delete(p + "/streams/([^/]+)",
                  with_body([this](const Request& req, const std::string&, Response& res) {
                    api.remove_stream(req, res);
                  }));
    endpoints.push_back("POST " + p + "/streams");
    endpoints.push_back("DELETE " + p + "/streams/{id}");
  }
  if (!options.dashboard_html.empty()) {
    server.Get("/",
               guarded([this](const Request& req, Response& res) { api.dashboard(req, res); }));
    endpoints.push_back("GET / (dashboard)");
  }
  const auto other = guarded([this](const Request& req, Response& res) { other_method(req, res); });
  const auto other_with_body = with_body(
      [this](const Request& req, const std::string&, Response& res) { other_method(req, res); });
  const std::string any = ".*";
  server.Post(any, other_with_body);
  server.Put(any, other_with_body);
  server.Patch(any, other_with_body);
  server.Delete(any, other_with_body);
  server.Options(any, other);
  // Typed explicitly: the lambda also converts to the overload that ignores the result.
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const Request& req, Response& res) { return error_to_json(req, res); }));
}

// Every response is logged (debug) and, with a registry, counted by status code; the number of
// waiting long-polls is read at each scrape.
void HttpServer::Impl::configure_metrics() {
  if (metrics) {
    metrics->declare(metric_names::kHttpRequests, MetricType::kCounter,
                     "HTTP responses by status code.", {"code"});
    metrics->declare(metric_names::kHttpLongPolls, MetricType::kGauge,
                     "Long-polls waiting for results now.");
    metrics_collector = metrics->add_collector([this](MetricsRegistry& r) {
      r.set(metric_names::kHttpLongPolls, {}, static_cast<double>(api.long_polls_waiting()));
    });
  }
  server.set_logger([this](const Request& req, const Response& res) {
    t_request_wait_start = std::chrono::steady_clock::now();  // the next request's wait begins
    spdlog::debug("http: {} {} -> {}", req.method, req.path, res.status);
    if (metrics) metrics->add(metric_names::kHttpRequests, {std::to_string(res.status)});
  });
}

HandlerResponse HttpServer::Impl::check_token(const Request& req, Response& res) const {
  // /health stays open: liveness probes (systemd, load balancers) carry no secrets, and it tells
  // nothing but that the service is up.
  // The dashboard page is open too: it is static, holds no data, and a browser cannot send a
  // header when it navigates; the page itself sends the token with every API call.
  if (options.bearer_token.empty() || req.path == std::string(http::kApiPrefix) + "/health" ||
      (req.path == "/" && !options.dashboard_html.empty())) {
    return HandlerResponse::Unhandled;
  }
  const std::string token = bearer_token(req);
  if (token.empty()) {
    res.set_header("WWW-Authenticate", R"(Bearer realm="yolo")");
    http::send_error(res, 401, "missing bearer token",
                     "send the header 'Authorization: Bearer <token>' with the token the service "
                     "is configured with");
    return HandlerResponse::Handled;
  }
  if (!same_secret(token, options.bearer_token)) {
    res.set_header("WWW-Authenticate", R"(Bearer realm="yolo", error="invalid_token")");
    http::send_error(res, 401, "invalid bearer token",
                     "use the token the service is configured with");
    return HandlerResponse::Handled;
  }
  return HandlerResponse::Unhandled;
}

// Other methods on a known path get 405 with Allow (GET and HEAD; POST too on /streams when
// streams can be added), elsewhere 404.
void HttpServer::Impl::other_method(const Request& req, Response& res) const {
  const bool known =
      std::any_of(route_regexes.begin(), route_regexes.end(),
                  [&](const std::regex& re) { return std::regex_match(req.path, re); });
  if (!known) return not_found(req, res);
  std::vector<std::string> allowed = {"GET", "HEAD"};
  if (stream_control && req.path == std::string(http::kApiPrefix) + "/streams") {
    allowed.push_back("POST");
  }
  res.set_header("Allow", fmt::format("{}", fmt::join(allowed, ", ")));
  http::send_error(res, 405, fmt::format("method {} is not allowed on {}", req.method, req.path),
                   fmt::format("use {}", fmt::join(allowed, " or ")),
                   {{"allowed_methods", allowed}});
}

// Errors httplib answers itself (no route, malformed request, body or URI too long) get the same
// JSON shape as ours. httplib calls this for every status >= 400, so responses that already
// have a body (ours) are left alone.
HandlerResponse HttpServer::Impl::error_to_json(const Request& req, Response& res) const {
  if (!res.body.empty()) return HandlerResponse::Unhandled;
  switch (res.status) {
    case 404:
      not_found(req, res);
      break;
    case 413:
      http::send_error(
          res, 413,
          fmt::format("request body too large (limit {} bytes)", options.max_payload_bytes),
          "only POST /api/v1/streams takes a body, a small JSON stream object; send GET "
          "requests without one");
      break;
    case 414:
      http::send_error(res, 414, "request URI too long", "shorten the path and query");
      break;
    case 400:
      refused_request(req, res);
      break;
    default:
      http::send_error(res, res.status, fmt::format("HTTP error {}", res.status),
                       "see docs/http-api.md");
  }
  return HandlerResponse::Handled;
}

// httplib answers a bare 400 for everything it refuses before a handler runs. What it parsed of
// the request line tells the kinds apart, each answered as RFC 9110 (section 15) names it.
void HttpServer::Impl::refused_request(const Request& req, Response& res) const {
  const std::string& method = req.method;
  if (!is_token(method) || req.target.empty() || req.version.rfind("HTTP/", 0) != 0) {
    http::send_error(res, 400, "malformed HTTP request",
                     "send an HTTP/1.1 request such as 'GET /api/v1/health HTTP/1.1'");
    return;
  }
  if (req.version != "HTTP/1.1" && req.version != "HTTP/1.0") {
    http::send_error(res, 505, fmt::format("HTTP version {} is not supported", req.version),
                     "send HTTP/1.1 (or HTTP/1.0) requests", {{"version", req.version}});
    return;
  }
  // Known to HTTP, served by no resource here: 405 with the resource's Allow (404 off the API).
  if (method == "TRACE" || method == "CONNECT") return other_method(req, res);
  if (!is_routed_method(method)) {
    http::send_error(res, 501, fmt::format("method {} is not implemented", method),
                     "this server answers GET and HEAD (POST and DELETE on /api/v1/streams where "
                     "streams can be added); see docs/http-api.md",
                     {{"method", method}});
    return;
  }
  if (declares_body(req)) {  // httplib could not read the body it declares
    http::send_error(res, 400, "malformed request body",
                     "send a body of exactly Content-Length bytes, or valid chunked encoding");
    return;
  }
  // The request line was read and its headers were not: they stopped coming, or one line was
  // longer than httplib reads (8 KiB).
  const auto waited = std::chrono::steady_clock::now() - t_request_wait_start;
  if (waited >= options.read_timeout) {
    http::send_error(res, 408,
                     fmt::format("the request's headers did not arrive within {} ms",
                                 options.read_timeout.count()),
                     "send the whole request, ending its headers with an empty line");
    return;
  }
  http::send_error(res, 431, "request header fields too large",
                   "keep each header line under 8 KiB (a long token or cookie is the usual cause)");
}

void HttpServer::Impl::not_found(const Request& req, Response& res) const {
  const bool other_version = req.path.rfind("/api/", 0) == 0 &&
                             req.path.rfind(std::string(http::kApiPrefix) + "/", 0) != 0;
  http::send_error(res, 404, fmt::format("no endpoint {} {}", req.method, req.path),
                   other_version ? fmt::format("this server speaks {} only", http::kApiPrefix)
                                 : "use one of the endpoints listed in 'endpoints'",
                   {{"endpoints", endpoints}});
}

void HttpServer::Impl::bind() {
  errno = 0;
  bool ok;
  if (options.port == 0) {
    port = server.bind_to_any_port(options.host);
    ok = port > 0;
  } else {
    port = options.port;
    ok = server.bind_to_port(options.host, options.port);
  }
  if (!ok) {
    const std::string why = errno ? fmt::format(" ({})", std::strerror(errno)) : std::string();
    throw std::runtime_error(fmt::format(
        "http server: cannot listen on {}:{}{}; check the host address, choose another port, or "
        "stop the process using it",
        options.host, options.port, why));
  }
}

void HttpServer::Impl::start() {
  thread = std::thread([this] {
    server.listen_after_bind();
    listen_returned = true;
  });
  // httplib's stop() does nothing before the accept loop runs; a stop() issued earlier would be
  // lost and the join would hang. So return only once it is running (or has failed).
  while (!server.is_running() && !listen_returned) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  spdlog::info("http: serving {} on {}:{}{}", http::kApiPrefix, options.host, port,
               options.bearer_token.empty() ? "" : " (bearer token required)");
}

void HttpServer::Impl::stop() {
  std::lock_guard<std::mutex> lock(stop_mutex);
  if (!thread.joinable()) return;
  api.begin_stop();
  server.stop();  // closes the listening socket; the accept loop ends...
  thread.join();  // ...and, before it returns, waits for the workers to finish their requests
}

HttpServer::HttpServer(HttpServerOptions options, ResultsStore& results, SnapshotStore* snapshots,
                       MetricsRegistry* metrics, StreamControl* streams, EventsStore* events) {
  validate(options);
  impl_ = std::make_unique<Impl>(std::move(options), results, snapshots, metrics, streams, events);
  impl_->configure();
  impl_->bind();
  impl_->start();
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::stop() {
  impl_->stop();
}

int HttpServer::port() const {
  return impl_->port;
}

const std::string& HttpServer::host() const {
  return impl_->options.host;
}

}  // namespace yolo
