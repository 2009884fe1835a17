#include "yolo/monitor/source_description.h"

#include <fmt/format.h>
#include <glib.h>

#include <memory>
#include <stdexcept>

namespace yolo::monitor {
namespace {

// file:///a%20b -> /a b (g_filename_from_uri decodes escapes); a plain path stays as written.
std::string file_path(const std::string& uri) {
  if (uri.rfind("file://", 0) != 0) return uri;
  GError* error = nullptr;
  std::unique_ptr<gchar, decltype(&g_free)> path(g_filename_from_uri(uri.c_str(), nullptr, &error),
                                                 &g_free);
  if (!path) {
    const std::string why = error ? error->message : "unknown error";
    g_clear_error(&error);
    throw std::invalid_argument(fmt::format("\"{}\" is not a valid file URI: {}", uri, why));
  }
  return path.get();
}

}  // namespace

SourceOptions source_options(const RtspConfig& rtsp) {
  SourceOptions o;
  o.rtsp_tcp = rtsp.tcp;
  o.rtsp_latency = rtsp.latency;
  return o;
}

std::string quote_gst_value(const std::string& value) {
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string source_description(const StreamConfig& stream, const SourceOptions& options) {
  switch (stream.kind) {
    case SourceKind::kRtsp:
      return fmt::format("rtspsrc location={}{} latency={} ! decodebin",
                         quote_gst_value(stream.uri), options.rtsp_tcp ? " protocols=tcp" : "",
                         options.rtsp_latency.count());
    case SourceKind::kFile:
      return fmt::format("filesrc location={} ! decodebin", quote_gst_value(file_path(stream.uri)));
    case SourceKind::kV4l2:
      return fmt::format("v4l2src device={} ! decodebin", quote_gst_value(stream.uri));
    case SourceKind::kHttp:
      return fmt::format("souphttpsrc location={} ! decodebin", quote_gst_value(stream.uri));
  }
  throw std::invalid_argument("stream " + stream.id + ": unknown source kind");
}

std::string pipeline_description(const StreamConfig& stream, const SourceOptions& options,
                                 const std::string& inference_fragment) {
  return fmt::format(
      "{}{} ! queue name={} leaky=downstream max-size-buffers=1 max-size-bytes=0 max-size-time=0 "
      "! videoconvert ! video/x-raw,format=BGR ! {}appsink name={} sync=false max-buffers=1 "
      "drop=true",
      source_description(stream, options), stream.kind == SourceKind::kFile ? " ! clocksync" : "",
      kLeakyQueueName, inference_fragment.empty() ? std::string() : inference_fragment + " ! ",
      kAppSinkName);
}

}  // namespace yolo::monitor
