// What each stream of a service is doing before it serves detections, for GET /api/v1/health and
// for the detections endpoints' answer while a stream has none yet (docs/http-api.md).
//
// A stream goes starting -> loading model -> waiting for frames -> ready; the producer that
// knows sets it (the `yolo` element: its HTTP port is bound before the model loads, so a client
// can tell "starting" from "dead"; the publisher: ready once the first inferred frame is
// served). Thread-safe: producers set, HTTP workers read.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace yolo {

enum class Readiness { kStarting, kLoadingModel, kWaitingForFrames, kReady };
// "starting", "loading model", "waiting for frames", "ready"
const char* to_string(Readiness readiness);

struct StreamReadiness {
  Readiness state = Readiness::kStarting;
  std::string detail;  // in words: the model being loaded, ...; may be empty
};

class ReadinessBoard {
 public:
  void set(const std::string& stream, Readiness state, std::string detail = {});
  void remove(const std::string& stream);
  std::optional<StreamReadiness> of(const std::string& stream) const;

  // {"state": the least ready stream's state ("starting" while there is none),
  //  "ready": every stream (at least one) is ready,
  //  "streams": {"cam1": {"state": "loading model", "detail": "..."}, ...}}
  nlohmann::json to_json() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, StreamReadiness> streams_;
};

}  // namespace yolo
