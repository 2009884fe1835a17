// The yolo-monitor service configuration (monitor.yaml; reference: docs/monitor.md) and the
// stream object that POST /api/v1/streams takes as JSON.
//
// Error policy: parsing never stops at the first problem. Every problem is collected with the
// key path it concerns ("streams[1].uri", "http.port") and thrown together as one ConfigError,
// so that a user fixes a file in one round. Unknown keys are problems too (with the nearest
// valid key suggested), so a typo never silently falls back to a default.
//
// Usage:
//   const yolo::monitor::MonitorConfig config = yolo::monitor::load_config("monitor.yaml");
//   for (const auto& s : config.streams) {
//     const auto inference = yolo::monitor::resolve(s, config);  // per-stream overrides applied
//   }
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "yolo/analytics/analytics_config.h"
#include "yolo/serving/mqtt_output.h"

#include "yolo/core/error.h"
#include "yolo/media/media_source.h"
#include "yolo/runtime/inference_settings.h"
#include "yolo/tracking/tracker_config.h"

namespace yolo::monitor {

// One thing wrong in a configuration: where (key path) and what (with what to do).
struct ConfigProblem {
  std::string path;     // "streams[1].uri"; empty for the document itself
  std::string message;  // what is wrong and what to use instead
};

// Every problem found in one document. what() lists them one per line, each "path: message".
class ConfigError : public UsageError {
 public:
  ConfigError(const std::string& source, std::vector<ConfigProblem> problems);
  const std::vector<ConfigProblem>& problems() const { return problems_; }

 private:
  std::vector<ConfigProblem> problems_;
};

// What a stream's uri points at, and which GStreamer source opens it: the media library's, so
// that the monitor and `yolo-trainer predict` open a camera the same way.
using media::classify_uri;
using media::SourceKind;
using media::to_string;

// The settings a stream runs with, after per-stream overrides are applied: the shared inference
// settings (device, conf, iou, classes as ids, bf16, rect; the YAML keys are kInferenceNames'
// monitor names) and the monitor's own. rect: false keeps the square, one input shape for every
// stream of a model, so that streams of different frame sizes batch together.
struct StreamSettings : InferenceSettings {
  StreamSettings() { device = "cpu"; }  // the monitor runs on the CPU unless told
  std::string model;                    // checkpoint path or model name (e.g. yolo26n.pt)
  int inference_interval = 1;           // run the model on every Nth frame (>= 1)
  // Empty: no tracking. Else the tracker (botsort.yaml, bytetrack.yaml or a YAML with their
  // keys, docs/tracking.md): a yolotracker element follows the yolo element and the stream's
  // results carry track ids.
  std::string tracker;
  // The tracker's settings as read (and checked) with the configuration: the element gets them
  // as a value, so the file is read once. Null when not read here (the element reads `tracker`).
  std::shared_ptr<const tracking::TrackerConfig> tracker_config;
};

// One camera/source. The optional fields override the service defaults for this stream only.
struct StreamConfig {
  std::string id;   // 1..64 of [A-Za-z0-9_.-], starting with a letter or digit; unique
  std::string uri;  // rtsp(s)://..., a file path, file:///..., /dev/videoN, http(s)://...
  SourceKind kind = SourceKind::kFile;  // derived from uri
  std::optional<std::string> model;
  std::optional<std::string> device;
  std::optional<double> conf;
  std::optional<double> iou;
  std::optional<std::vector<int>> classes;
  std::optional<int> inference_interval;
  std::optional<bool> bf16;
  std::optional<bool> rect;
  std::optional<std::string> tracker;  // "" turns a default tracker off for this stream
  std::shared_ptr<const tracking::TrackerConfig> tracker_config;  // `tracker` as read
  // Lines and zones (docs/analytics.md): units, anchor, track_timeout, lines, zones as given
  // (kept for display, comparison and the state file), and as read. Analytics need track ids:
  // a stream with them and no tracker of its own or by default is tracked with bytetrack.yaml.
  nlohmann::json analytics_keys = nlohmann::json::object();
  std::optional<analytics::AnalyticsConfig> analytics;
};

// Cross-stream batching inside the shared model instance (the `yolo` element's batch-size and
// batch-timeout).
struct BatchingConfig {
  int batch_size = 1;                           // frames per model call, 1..256
  std::chrono::milliseconds batch_timeout{10};  // flush a partial batch after this
};

struct HttpConfig {
  std::string bind = "127.0.0.1";  // address to listen on; 0.0.0.0 for every interface
  int port = 8080;                 // 0..65535; 0 picks a free port
  std::string token;               // non-empty: API requests need "Authorization: Bearer <token>"
};

// RTSP source settings shared by every rtsp:// stream.
struct RtspConfig {
  bool tcp = true;                         // RTP over the RTSP TCP connection (NAT, lossy links)
  std::chrono::milliseconds latency{200};  // rtspsrc jitterbuffer; lower = fresher frames
};

// Results as JSON lines (one FrameResult per line, docs/detections-json.md).
struct JsonlOutputConfig {
  std::filesystem::path path;           // empty: no JSON-lines output
  std::uint64_t max_bytes = 100 << 20;  // rotate when a file would grow past this; 0 = never
  int keep_files = 5;                   // rotated files kept (path.1 .. path.N); 0..1000
};

// Annotated JPEG snapshots saved to disk (the in-memory latest snapshot for the HTTP API is
// always kept; this is the on-disk history).
struct SnapshotOutputConfig {
  std::filesystem::path directory;            // empty: none saved; else <directory>/<stream id>/...
  std::chrono::milliseconds interval{10000};  // at most one saved snapshot per stream per this
  int keep_per_stream = 100;                  // newest files kept per stream, older ones deleted
  // How often each stream's in-memory snapshot (HTTP, dashboard) is refreshed; 0 = every frame.
  std::chrono::milliseconds live_interval{500};
};

// Publishing to an MQTT broker (docs/monitor.md#outputs, docs/mqtt-publisher.md); an empty url
// turns it off.
using MqttOutputConfig = MqttOutputOptions;

struct OutputsConfig {
  JsonlOutputConfig jsonl;
  SnapshotOutputConfig snapshots;
  MqttOutputConfig mqtt;
};

struct BackoffConfig {
  std::chrono::milliseconds initial{1000};  // first delay before a rebuild
  std::chrono::milliseconds max{30000};     // cap of the doubling delay
  double jitter = 0.2;  // 0..1: each delay is drawn uniformly from [d*(1-jitter), d]
};

struct SupervisionConfig {
  std::chrono::milliseconds stall_timeout{10000};  // running stream without a frame this long
  std::chrono::milliseconds start_timeout{20000};  // (re)started stream without a first frame
  BackoffConfig backoff;
  int max_retries = 0;  // consecutive failed rebuilds before giving up (failed); 0 = forever
};

struct MonitorConfig {
  StreamSettings defaults;  // top-level model, device, conf, iou, classes, inference_interval
  BatchingConfig batching;
  HttpConfig http;
  RtspConfig rtsp;
  OutputsConfig outputs;
  SupervisionConfig supervision;
  std::filesystem::path state_file;  // empty: streams added/removed over HTTP are not persisted
  std::vector<StreamConfig> streams;
};

// Reads and validates a monitor.yaml. Throws ConfigError (source = the path) with every
// problem, including a file that cannot be read or is not YAML.
MonitorConfig load_config(const std::filesystem::path& path);
// The same for YAML text; `source` names it in messages.
MonitorConfig parse_config(const std::string& yaml_text, const std::string& source = "config");

// The stream object of POST /api/v1/streams and of the state file. Throws ConfigError whose
// paths are the stream's keys ("uri", "conf"). Only structure and ranges are checked here:
// whether the id is already taken is the caller's business.
StreamConfig stream_from_json(const nlohmann::json& j, const std::string& source = "stream");
// The inverse: only the fields that are set.
nlohmann::json to_json(const StreamConfig& s);

// The stream's overrides applied to the service defaults.
StreamSettings resolve(const StreamConfig& stream, const MonitorConfig& config);

// "500ms", "10s", "2m", "1h", or a plain number of seconds ("1.5"). Throws std::invalid_argument.
std::chrono::milliseconds parse_duration(const std::string& text);

}  // namespace yolo::monitor
