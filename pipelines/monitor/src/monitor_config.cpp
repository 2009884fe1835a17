// monitor.yaml and stream objects: YAML -> JSON -> one validator that collects every problem.
#include "yolo/monitor/monitor_config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "config_reader.h"
#include "yaml_to_json.h"
#include "yolo/core/device.h"
#include "yolo/core/strings.h"
#include "yolo/core/utf8.h"
#include "yolo/serving/mqtt_topic.h"
#include "yolo/tracking/tracker_config.h"

namespace yolo::monitor {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

// The shared inference settings under their monitor names (kInferenceNames), and the monitor's.
const InferenceNames& kNames = kInferenceNames;
const std::vector<std::string> kInferenceKeys = {"model",
                                                 kNames.device.monitor_yaml,
                                                 kNames.conf.monitor_yaml,
                                                 kNames.iou.monitor_yaml,
                                                 kNames.classes.monitor_yaml,
                                                 "inference_interval",
                                                 "tracker",
                                                 kNames.bf16.monitor_yaml,
                                                 kNames.rect.monitor_yaml};

const char* bf16_text(bool on) {
  return on ? "true" : "false";
}

std::vector<std::string> with(std::vector<std::string> keys, const std::vector<std::string>& more) {
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}

std::string format_problems(const std::string& source, const std::vector<ConfigProblem>& ps) {
  std::string out = fmt::format("{}: {} problem{}", source, ps.size(), ps.size() == 1 ? "" : "s");
  for (const auto& p : ps) {
    out += "\n  " + (p.path.empty() ? std::string() : p.path + ": ") + p.message;
  }
  return out;
}

// The inference keys shared by the top level (defaults) and each stream (overrides).
struct InferenceOverrides {
  std::optional<std::string> model, device;
  std::optional<double> conf, iou;
  std::optional<std::vector<int>> classes;
  std::optional<int> inference_interval;
  std::optional<std::string> tracker;
  std::shared_ptr<const tracking::TrackerConfig> tracker_config;  // `tracker` as read
  std::optional<bool> bf16, rect;
};

// A tracker is read and checked when the configuration is read (--check, reloads, POST /streams),
// so a bad file is reported with its key path instead of failing the stream's pipeline later; the
// settings read are kept and handed to the stream's yolotracker as a value.
void read_tracker(ConfigReader& r, const json& obj, const std::string& path,
                  InferenceOverrides& o) {
  o.tracker = r.string(obj, path, "tracker", true);
  if (!o.tracker || o.tracker->empty()) return;
  try {
    o.tracker_config =
        std::make_shared<const tracking::TrackerConfig>(tracking::load_tracker_config(*o.tracker));
  } catch (const std::exception& e) {
    r.problem(ConfigReader::join(path, "tracker"), e.what());
    o.tracker.reset();
  }
}

// The tracker a stream with lines or zones and no tracker of its own gets.
std::shared_ptr<const tracking::TrackerConfig> analytics_tracker() {
  static const auto config = std::make_shared<const tracking::TrackerConfig>(
      tracking::load_tracker_config("bytetrack.yaml"));
  return config;
}

InferenceOverrides read_inference(ConfigReader& r, const json& obj, const std::string& path) {
  InferenceOverrides o;
  o.model = r.string(obj, path, "model");
  o.device = r.string(obj, path, kNames.device.monitor_yaml);
  if (o.device) {
    try {
      parse_device(*o.device);
    } catch (const std::exception& e) {
      r.problem(ConfigReader::join(path, kNames.device.monitor_yaml), e.what());
      o.device.reset();
    }
  }
  o.conf = r.number(obj, path, kNames.conf.monitor_yaml, kConfRange.lo, kConfRange.hi);
  o.iou = r.number(obj, path, kNames.iou.monitor_yaml, kIouRange.lo, kIouRange.hi);
  o.classes = r.class_list(obj, path, kNames.classes.monitor_yaml);
  o.bf16 = r.boolean(obj, path, kNames.bf16.monitor_yaml);
  o.rect = r.boolean(obj, path, kNames.rect.monitor_yaml);
  if (auto n = r.integer(obj, path, "inference_interval", 1, 1000)) {
    o.inference_interval = static_cast<int>(*n);
  }
  read_tracker(r, obj, path, o);
  return o;
}

// The stream's analytics keys, read by the analytics library (which names the key and what is
// allowed); JSON is YAML, so the stream's JSON goes to it as it is.
void read_analytics(ConfigReader& r, const json& obj, const std::string& path, StreamConfig& s) {
  json keys = json::object();
  for (const auto& k : analytics::analytics_keys()) {
    if (obj.contains(k) && !obj[k].is_null()) keys[k] = obj[k];
  }
  if (keys.empty()) return;
  try {
    const analytics::AnalyticsConfig a = analytics::parse_analytics(YAML::Load(keys.dump()), path);
    s.analytics_keys = keys;
    if (!a.empty()) s.analytics = a;
  } catch (const std::exception& e) {
    r.problem("", e.what());  // the message starts with the path
  }
}

StreamConfig read_stream(ConfigReader& r, const json& obj, const std::string& path) {
  StreamConfig s;
  if (!r.object(obj, path, with(with({"id", "uri"}, kInferenceKeys), analytics::analytics_keys())))
    return s;
  static const std::regex id_pattern("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  if (const auto id = r.string(obj, path, "id")) {
    if (std::regex_match(*id, id_pattern)) {
      s.id = *id;
    } else {
      r.problem(ConfigReader::join(path, "id"),
                fmt::format("\"{}\" is not a valid stream id: use 1 to 64 letters, digits, '_', "
                            "'.' or '-', starting with a letter or digit (it appears in URLs and "
                            "file names)",
                            *id));
    }
  } else if (!obj.contains("id") || obj["id"].is_null()) {
    r.problem(ConfigReader::join(path, "id"), "missing; give each stream a unique id, e.g. cam1");
  }
  if (const auto uri = r.string(obj, path, "uri")) {
    std::string why;
    if (const auto kind = classify_uri(*uri, &why)) {
      s.uri = *uri;
      s.kind = *kind;
    } else {
      r.problem(ConfigReader::join(path, "uri"), why);
    }
  } else if (!obj.contains("uri") || obj["uri"].is_null()) {
    r.problem(ConfigReader::join(path, "uri"),
              "missing; e.g. rtsp://camera/stream, /path/to/video.mp4, /dev/video0 or "
              "http://camera/mjpeg");
  }
  const InferenceOverrides o = read_inference(r, obj, path);
  s.model = o.model;
  s.device = o.device;
  s.conf = o.conf;
  s.iou = o.iou;
  s.classes = o.classes;
  s.inference_interval = o.inference_interval;
  s.bf16 = o.bf16;
  s.rect = o.rect;
  s.tracker = o.tracker;
  s.tracker_config = o.tracker_config;
  read_analytics(r, obj, path.empty() ? std::string("stream") : path, s);
  if (s.analytics && s.tracker && s.tracker->empty()) {
    r.problem(ConfigReader::join(path, "tracker"),
              "\"\" turns tracking off, but this stream's lines and zones need track ids: remove "
              "it (they then get bytetrack.yaml, or the default tracker) or name a tracker");
  }
  return s;
}

// A section's object, or an empty one when the key is missing or null.
const json& section_of(const json& parent, const char* key) {
  static const json empty = json::object();
  return parent.contains(key) && !parent[key].is_null() ? parent[key] : empty;
}

void read_batching(ConfigReader& r, const json& b, MonitorConfig& c) {
  if (!r.object(b, "batching", {"batch_size", "batch_timeout"})) return;
  if (auto v = r.integer(b, "batching", "batch_size", 1, 256)) c.batching.batch_size = int(*v);
  if (auto v = r.duration(b, "batching", "batch_timeout", milliseconds(0))) {
    c.batching.batch_timeout = *v;
  }
}

void read_http(ConfigReader& r, const json& h, MonitorConfig& c) {
  if (!r.object(h, "http", {"bind", "port", "token"})) return;
  if (auto v = r.string(h, "http", "bind")) c.http.bind = *v;
  if (auto v = r.integer(h, "http", "port", 0, 65535)) c.http.port = int(*v);
  if (auto v = r.string(h, "http", "token", true)) c.http.token = *v;
}

void read_rtsp(ConfigReader& r, const json& s, MonitorConfig& c) {
  if (!r.object(s, "rtsp", {"transport", "latency"})) return;
  if (auto v = r.string(s, "rtsp", "transport")) {
    if (*v == "tcp" || *v == "auto") {
      c.rtsp.tcp = *v == "tcp";
    } else {
      r.problem(
          "rtsp.transport",
          fmt::format("\"{}\" is not a transport; use tcp (default) or auto (UDP first)", *v));
    }
  }
  if (auto v = r.duration(s, "rtsp", "latency", milliseconds(0))) c.rtsp.latency = *v;
}

void read_mqtt(ConfigReader& r, const json& m, MonitorConfig& c) {
  const std::string p = "outputs.mqtt";
  if (!r.object(m, p,
                {"url", "topic", "qos", "client_id", "username", "password_file", "tls", "buffer",
                 "detections", "device_id", "tags"}))
    return;
  auto& o = c.outputs.mqtt;
  if (auto v = r.string(m, p, "url", true)) o.url = *v;
  if (!o.url.empty() && o.url.rfind("mqtt://", 0) != 0 && o.url.rfind("mqtts://", 0) != 0) {
    r.problem(ConfigReader::join(p, "url"),
              "must start with mqtt:// (TCP, port 1883) or mqtts:// (TLS, port 8883)");
  }
  if (o.url.find('@') != std::string::npos) {
    // Never echo it: it may hold a password.
    r.problem(ConfigReader::join(p, "url"),
              "must not hold credentials: use username and password_file");
  }
  if (auto v = r.string(m, p, "topic")) {
    if (const std::string why = mqtt_topic_problem(*v); !why.empty()) {
      r.problem(ConfigReader::join(p, "topic"), why);
    } else {
      o.topic = *v;
    }
  }
  if (auto v = r.integer(m, p, "qos", 0, 1)) o.qos = int(*v);
  if (auto v = r.string(m, p, "client_id", true)) o.client_id = *v;
  if (auto v = r.string(m, p, "username", true)) o.username = *v;
  if (auto v = r.string(m, p, "password_file", true)) o.password_file = *v;
  if (auto v = r.string(m, p, "device_id", true)) {
    if (const std::string why = mqtt_device_id_problem(*v); !v->empty() && !why.empty()) {
      r.problem(ConfigReader::join(p, "device_id"), fmt::format("\"{}\" {}", *v, why));
    } else {
      o.device_id = *v;
    }
  }
  const json& tls = section_of(m, "tls");
  if (r.object(tls, p + ".tls", {"ca", "cert", "key"})) {
    if (auto v = r.string(tls, p + ".tls", "ca", true)) o.tls_ca = *v;
    if (auto v = r.string(tls, p + ".tls", "cert", true)) o.tls_cert = *v;
    if (auto v = r.string(tls, p + ".tls", "key", true)) o.tls_key = *v;
  }
  const json& buffer = section_of(m, "buffer");
  if (r.object(buffer, p + ".buffer", {"max_messages", "max_bytes"})) {
    if (auto v = r.integer(buffer, p + ".buffer", "max_messages", 1, 10000000))
      o.buffer_max_messages = static_cast<std::uint64_t>(*v);
    if (auto v = r.bytes(buffer, p + ".buffer", "max_bytes")) {
      if (*v < 1024 || *v > (256ull << 20)) {
        r.problem(ConfigReader::join(p, "buffer.max_bytes"), "must be 1K..256M");
      } else {
        o.buffer_max_bytes = *v;
      }
    }
  }
  const json& d = section_of(m, "detections");
  if (r.object(d, p + ".detections", {"every", "on_change"})) {
    if (auto v = r.integer(d, p + ".detections", "every", 0, 1000000)) o.detections_every = int(*v);
    if (auto v = r.boolean(d, p + ".detections", "on_change")) o.detections_on_change = *v;
  }
  if (m.contains("tags") && !m["tags"].is_null()) {
    if (!m["tags"].is_object()) {
      r.problem(ConfigReader::join(p, "tags"), "must be a map of names to values");
    } else {
      o.tags = m["tags"];
    }
  }
}

void read_outputs(ConfigReader& r, const json& o, MonitorConfig& c) {
  if (!r.object(o, "outputs", {"jsonl", "snapshots", "mqtt"})) return;
  read_mqtt(r, section_of(o, "mqtt"), c);
  const json& j = section_of(o, "jsonl");
  if (r.object(j, "outputs.jsonl", {"path", "max_bytes", "keep_files"})) {
    if (auto v = r.string(j, "outputs.jsonl", "path", true)) c.outputs.jsonl.path = *v;
    if (auto v = r.bytes(j, "outputs.jsonl", "max_bytes")) c.outputs.jsonl.max_bytes = *v;
    if (auto v = r.integer(j, "outputs.jsonl", "keep_files", 0, 1000)) {
      c.outputs.jsonl.keep_files = int(*v);
    }
  }
  const json& s = section_of(o, "snapshots");
  const std::string sp = "outputs.snapshots";
  if (r.object(s, sp, {"directory", "interval", "keep_per_stream", "live_interval"})) {
    auto& snapshots = c.outputs.snapshots;
    if (auto v = r.string(s, sp, "directory", true)) snapshots.directory = *v;
    if (auto v = r.duration(s, sp, "interval", milliseconds(100))) snapshots.interval = *v;
    if (auto v = r.integer(s, sp, "keep_per_stream", 1, 1000000)) {
      snapshots.keep_per_stream = int(*v);
    }
    if (auto v = r.duration(s, sp, "live_interval", milliseconds(0))) {
      snapshots.live_interval = *v;
    }
  }
}

void read_supervision(ConfigReader& r, const json& s, MonitorConfig& c) {
  const std::string p = "supervision";
  if (!r.object(s, p, {"stall_timeout", "start_timeout", "backoff", "max_retries"})) return;
  if (auto v = r.duration(s, p, "stall_timeout", milliseconds(100))) {
    c.supervision.stall_timeout = *v;
  }
  if (auto v = r.duration(s, p, "start_timeout", milliseconds(100))) {
    c.supervision.start_timeout = *v;
  }
  if (auto v = r.integer(s, p, "max_retries", 0, 1000000)) c.supervision.max_retries = int(*v);
  const json& b = section_of(s, "backoff");
  const std::string bp = "supervision.backoff";
  if (!r.object(b, bp, {"initial", "max", "jitter"})) return;
  auto& backoff = c.supervision.backoff;
  if (auto v = r.duration(b, bp, "initial", milliseconds(1))) backoff.initial = *v;
  if (auto v = r.duration(b, bp, "max", milliseconds(1))) backoff.max = *v;
  if (auto v = r.number(b, bp, "jitter", 0.0, 1.0)) backoff.jitter = *v;
  if (backoff.max < backoff.initial) {
    r.problem(ConfigReader::join(bp, "max"),
              fmt::format("{} ms is below initial ({} ms); the cap must be >= the first delay",
                          backoff.max.count(), backoff.initial.count()));
  }
}

void read_streams(ConfigReader& r, const json& doc, MonitorConfig& c) {
  if (!doc.contains("streams") || doc["streams"].is_null()) return;
  const json& list = doc["streams"];
  if (!list.is_array()) {
    r.problem("streams", "expected a list of streams, each with at least id and uri");
    return;
  }
  std::map<std::string, size_t> first_index;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = ConfigReader::index("streams", i);
    StreamConfig s = read_stream(r, list[i], path);
    if (!s.id.empty()) {
      const auto [it, fresh] = first_index.emplace(s.id, i);
      if (!fresh) {
        r.problem(ConfigReader::join(path, "id"),
                  fmt::format("duplicate id \"{}\" (also streams[{}].id); ids must be unique", s.id,
                              it->second));
      }
    }
    c.streams.push_back(std::move(s));
  }
}

// A stream without a model of its own needs the default one.
void check_every_stream_has_a_model(ConfigReader& r, const MonitorConfig& c) {
  if (!c.defaults.model.empty()) return;
  for (size_t i = 0; i < c.streams.size(); ++i) {
    if (!c.streams[i].model) {
      r.problem("model",
                fmt::format("missing: streams[{}] ({}) has no model of its own; set a default "
                            "model (e.g. model: yolo26n.pt) or one per stream",
                            i, c.streams[i].id));
      return;
    }
  }
}

MonitorConfig read_config(ConfigReader& r, const json& doc) {
  MonitorConfig c;
  if (!r.object(doc, "",
                with(kInferenceKeys, {"batching", "http", "rtsp", "outputs", "supervision",
                                      "state_file", "streams"}))) {
    return c;
  }
  const InferenceOverrides d = read_inference(r, doc, "");
  if (d.model) c.defaults.model = *d.model;
  if (d.device) c.defaults.device = *d.device;
  if (d.conf) c.defaults.conf = *d.conf;
  if (d.iou) c.defaults.iou = *d.iou;
  if (d.classes) c.defaults.classes = classes_text(*d.classes);
  if (d.inference_interval) c.defaults.inference_interval = *d.inference_interval;
  if (d.bf16) c.defaults.bf16 = bf16_text(*d.bf16);
  if (d.rect) c.defaults.rect = *d.rect;
  if (d.tracker) {
    c.defaults.tracker = *d.tracker;
    c.defaults.tracker_config = d.tracker_config;
  }
  read_batching(r, section_of(doc, "batching"), c);
  read_http(r, section_of(doc, "http"), c);
  read_rtsp(r, section_of(doc, "rtsp"), c);
  read_outputs(r, section_of(doc, "outputs"), c);
  read_supervision(r, section_of(doc, "supervision"), c);
  if (auto v = r.string(doc, "", "state_file", true)) c.state_file = *v;
  read_streams(r, doc, c);
  check_every_stream_has_a_model(r, c);
  return c;
}

}  // namespace

ConfigError::ConfigError(const std::string& source, std::vector<ConfigProblem> problems)
    : UsageError(format_problems(source, problems)), problems_(std::move(problems)) {}

std::chrono::milliseconds parse_duration(const std::string& text) {
  static const std::regex re(R"(\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)\s*(ms|s|m|h)?\s*)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) {
    throw std::invalid_argument(
        fmt::format("\"{}\" is not a duration; use e.g. 500ms, 10s, 2m, 1h", text));
  }
  const double value = std::stod(m[1]);
  const std::string unit = m[3];
  const double factor_ms = unit == "ms" ? 1 : unit == "m" ? 60000 : unit == "h" ? 3600000 : 1000;
  const double ms = value * factor_ms;
  if (ms > 1e12) throw std::invalid_argument(fmt::format("\"{}\" is too long", text));
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(ms)));
}

MonitorConfig parse_config(const std::string& yaml_text, const std::string& source) {
  // YAML files are UTF-8 text; yaml-cpp passes other bytes through, and a stream id or uri
  // holding them could then not be written to the state file or shown over HTTP (found by
  // fuzz_monitor_config).
  if (const auto bad = find_invalid_utf8(yaml_text)) {
    throw ConfigError(
        source,
        {{"", fmt::format("the file is not UTF-8 text: {}; save it as UTF-8", describe(*bad))}});
  }
  json doc;
  try {
    doc = yaml_to_json(YAML::Load(yaml_text));
  } catch (const YAML::Exception& e) {
    throw ConfigError(source, {{"", fmt::format("not valid YAML: {} (line {}, column {})", e.msg,
                                                e.mark.line + 1, e.mark.column + 1)}});
  }
  if (doc.is_null()) {
    throw ConfigError(source, {{"", "the file is empty; see config/monitor.yaml for an example"}});
  }
  ConfigReader reader;
  MonitorConfig config = read_config(reader, doc);
  if (!reader.problems().empty()) throw ConfigError(source, reader.problems());
  return config;
}

MonitorConfig load_config(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    const bool there = std::filesystem::exists(path, ec);
    throw ConfigError(
        path.string(),
        {{"", there ? "cannot read the file (permissions?); the service's user must be able to "
                      "read it"
                    : "no such file; write one (config/monitor.yaml, installed as "
                      "/usr/share/yolo-edge/config/monitor.yaml, lists every key) or give its "
                      "path to --config"}});
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path.string());
}

StreamConfig stream_from_json(const json& j, const std::string& source) {
  ConfigReader reader;
  StreamConfig s = read_stream(reader, j, "");
  if (!reader.problems().empty()) throw ConfigError(source, reader.problems());
  return s;
}

json to_json(const StreamConfig& s) {
  json j = {{"id", s.id}, {"uri", s.uri}};
  if (s.model) j["model"] = *s.model;
  if (s.device) j["device"] = *s.device;
  if (s.conf) j["conf"] = *s.conf;
  if (s.iou) j["iou"] = *s.iou;
  if (s.classes) j["classes"] = *s.classes;
  if (s.inference_interval) j["inference_interval"] = *s.inference_interval;
  if (s.bf16) j["bf16"] = *s.bf16;
  if (s.rect) j["rect"] = *s.rect;
  if (s.tracker) j["tracker"] = *s.tracker;
  j.update(s.analytics_keys);
  return j;
}

StreamSettings resolve(const StreamConfig& stream, const MonitorConfig& config) {
  StreamSettings s = config.defaults;
  if (stream.model) s.model = *stream.model;
  if (stream.device) s.device = *stream.device;
  if (stream.conf) s.conf = *stream.conf;
  if (stream.iou) s.iou = *stream.iou;
  if (stream.classes) s.classes = classes_text(*stream.classes);
  if (stream.inference_interval) s.inference_interval = *stream.inference_interval;
  if (stream.bf16) s.bf16 = bf16_text(*stream.bf16);
  if (stream.rect) s.rect = *stream.rect;
  if (stream.tracker) {
    s.tracker = *stream.tracker;
    s.tracker_config = stream.tracker_config;
  }
  // Lines and zones count tracks: without a tracker they would never see one.
  if (stream.analytics && s.tracker.empty()) {
    s.tracker = "bytetrack.yaml";
    s.tracker_config = analytics_tracker();
  }
  return s;
}

}  // namespace yolo::monitor
