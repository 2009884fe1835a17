// What yolo-monitor says about its start-up: the "state" and "ready" fields of GET /api/v1/health,
// and why a stream's detections endpoint has nothing yet (docs/http-api.md).
//
// The service is as far along as its slowest stream:
//   loading model   a stream's `yolo` element is loading its model
//   starting        a stream has not delivered its first frame yet (connecting, negotiating)
//   ready           every stream delivers frames
//   degraded        some streams deliver, others reconnect, stall or have failed
//   down            streams are configured and none delivers
//   idle            no streams are configured (POST /api/v1/streams adds some)
// "ready" (the boolean) is true when the service serves detections of at least one stream, or has
// no stream to wait for.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "yolo/serving/http_server.h"

namespace yolo::monitor {

class StreamManager;

// {"state": "...", "ready": bool, "streams": {"running": 3, "starting": 1, ...}} (counts by state)
nlohmann::json service_readiness(const StreamManager& streams);

// For HttpServerOptions::stream_status: what a stream without results is doing; nullopt for an
// unknown id.
std::optional<StreamStatus> stream_status(const StreamManager& streams, const std::string& id);

}  // namespace yolo::monitor
