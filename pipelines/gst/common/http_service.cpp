#include "http_service.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace yolo::gst {

HttpService::HttpService(const std::string& address, int port) : runtime_metrics_(registry_) {
  HttpServerOptions options;
  options.host = address;
  options.port = port;
  options.health_details = [this] { return readiness_.to_json(); };
  options.stream_status = [this](const std::string& id) -> std::optional<StreamStatus> {
    const std::optional<StreamReadiness> r = readiness_.of(id);
    if (!r) return std::nullopt;
    return StreamStatus{to_string(r->state), r->detail, true};
  };
  server_ = std::make_unique<HttpServer>(options, results_, &snapshots_, &registry_);
}

HttpServiceRegistry& HttpServiceRegistry::process() {
  static HttpServiceRegistry registry;
  return registry;
}

std::shared_ptr<HttpService> HttpServiceRegistry::acquire(const std::string& address, int port) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (port != 0) {
    if (auto live = services_[port].lock()) {
      if (live->address() != address)
        throw std::invalid_argument(fmt::format(
            "http-port {} is already served on {} by another yolo element; use the same "
            "http-address or another port",
            port, live->address()));
      return live;
    }
  }
  auto created = std::make_shared<HttpService>(address, port);
  services_[created->port()] = created;
  return created;
}

}  // namespace yolo::gst
