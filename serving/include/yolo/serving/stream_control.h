// Optional stream control behind the HTTP API: a service that manages its streams (yolo-monitor)
// implements this and hands it to HttpServer, which then serves
//   GET    /api/v1/streams        every stream's id, state and stats (list())
//   POST   /api/v1/streams        add a stream from a JSON object (add()): 201, 400, 409
//   DELETE /api/v1/streams/{id}   remove one (remove()): 204, 404
// Without one, /api/v1/streams lists the streams that have results, and the API is read-only.
// Methods are called from the server's worker threads, possibly at the same time: implementations
// must be thread-safe. What they throw becomes a 500 (the server keeps running).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace yolo {

struct StreamControlResult {
  enum class Status {
    kOk,        // done (add: 201 with `stream`; remove: 204)
    kInvalid,   // the stream object is wrong (400)
    kConflict,  // a stream with that id exists already (409)
    kNotFound,  // no stream with that id (404)
  };
  Status status = Status::kOk;
  nlohmann::json stream;  // kOk from add(): the new stream as list() shows it
  std::string error;      // otherwise: what is wrong ...
  std::string hint;       // ... and what to do
  nlohmann::json details = nlohmann::json::object();  // extra fields for the error body

  static StreamControlResult ok(nlohmann::json stream = nullptr) {
    StreamControlResult r;
    r.stream = std::move(stream);
    return r;
  }
  static StreamControlResult failure(Status status, std::string error, std::string hint,
                                     nlohmann::json details = nlohmann::json::object()) {
    StreamControlResult r;
    r.status = status;
    r.error = std::move(error);
    r.hint = std::move(hint);
    r.details = std::move(details);
    return r;
  }
};

class StreamControl {
 public:
  virtual ~StreamControl() = default;
  // A JSON array with one object per stream, each with at least "id" (string) and "state"
  // (string: starting, running, stalled, reconnecting, failed); further fields (stats) are
  // passed through to the client.
  virtual nlohmann::json list() = 0;
  // `stream` is the request body, a JSON object (e.g. {"id": "cam2", "uri": "rtsp://..."}).
  virtual StreamControlResult add(const nlohmann::json& stream) = 0;
  virtual StreamControlResult remove(const std::string& id) = 0;
};

}  // namespace yolo
