#include "yolo/media/media_source.h"

#include <fmt/format.h>
#include <glib.h>

#include <memory>
#include <regex>
#include <stdexcept>
#include <utility>

#include "yolo/core/strings.h"

namespace yolo::media {
namespace {

// tcp://host:port[/...]: host and port, nullopt without a port.
std::optional<std::pair<std::string, int>> tcp_host_port(const std::string& rest) {
  static const std::regex re(R"(([^:/]+):([0-9]{1,5})(/.*)?)");
  std::smatch m;
  if (!std::regex_match(rest, m, re)) return std::nullopt;
  const int port = std::stoi(m[2].str());
  if (port < 1 || port > 65535) return std::nullopt;
  return std::make_pair(m[1].str(), port);
}

}  // namespace

std::string local_file_path(const std::string& uri) {
  if (uri.rfind("file://", 0) != 0) return uri;
  // GLib only (no GStreamer): the monitor's configuration parser, fuzzed on its own, uses this.
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

const char* to_string(SourceKind kind) {
  switch (kind) {
    case SourceKind::kRtsp:
      return "rtsp";
    case SourceKind::kFile:
      return "file";
    case SourceKind::kV4l2:
      return "v4l2";
    case SourceKind::kHttp:
      return "http";
    case SourceKind::kRtmp:
      return "rtmp";
    case SourceKind::kTcp:
      return "tcp";
  }
  return "unknown";
}

std::optional<SourceKind> classify_uri(const std::string& uri, std::string* why) {
  const auto fail = [&](const std::string& message) -> std::optional<SourceKind> {
    if (why) *why = message;
    return std::nullopt;
  };
  if (uri.empty()) return fail("must not be empty");
  static const std::regex scheme_re("([A-Za-z][A-Za-z0-9+.-]*)://(.*)");
  std::smatch m;
  if (std::regex_match(uri, m, scheme_re)) {
    const std::string scheme = lower(m[1].str());
    const std::string rest = m[2];
    if (scheme == "rtsp" || scheme == "rtsps" || scheme == "http" || scheme == "https" ||
        scheme == "rtmp" || scheme == "rtmps" || scheme == "tcp") {
      if (rest.empty() || rest[0] == '/') {
        return fail(fmt::format("\"{}\" has no host; e.g. {}://192.168.1.10/stream", uri, scheme));
      }
      if (scheme == "tcp") {
        if (!tcp_host_port(rest))
          return fail(fmt::format("\"{}\" needs a port; e.g. tcp://192.168.1.10:5000", uri));
        return SourceKind::kTcp;
      }
      if (scheme.rfind("rtmp", 0) == 0) return SourceKind::kRtmp;
      return scheme[0] == 'r' ? SourceKind::kRtsp : SourceKind::kHttp;
    }
    if (scheme == "file") {
      if (rest.empty() || rest[0] != '/') {
        return fail(
            fmt::format("\"{}\" is not an absolute file URI; use file:///abs/path or a "
                        "plain path",
                        uri));
      }
      return SourceKind::kFile;
    }
    return fail(
        fmt::format("unsupported scheme \"{}\" (use rtsp://, a file path, /dev/videoN, "
                    "http(s)://, rtmp:// or tcp://host:port)",
                    scheme));
  }
  static const std::regex v4l2_re("/dev/video[0-9]+");
  if (std::regex_match(uri, v4l2_re)) return SourceKind::kV4l2;
  if (uri.rfind("/dev/", 0) == 0) {
    return fail(fmt::format("\"{}\" is not a V4L2 capture device; use /dev/videoN", uri));
  }
  return SourceKind::kFile;
}

std::string quote_gst_value(const std::string& value) {
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string source_failure_hint(SourceKind kind) {
  switch (kind) {
    case SourceKind::kFile:
      return "check that the file exists, is readable by this user and is a video this machine "
             "decodes (gst-discoverer-1.0 FILE shows its streams)";
    case SourceKind::kV4l2:
      return "check that the device exists, is not held by another program, and that this user "
             "may open it (group 'video')";
    case SourceKind::kRtsp:
    case SourceKind::kHttp:
    case SourceKind::kRtmp:
    case SourceKind::kTcp:
      break;
  }
  return "check the URI and credentials, and that the camera or server is up and reachable "
         "from this machine";
}

std::string source_description(SourceKind kind, const std::string& uri,
                               const SourceOptions& options) {
  switch (kind) {
    case SourceKind::kRtsp:
      return fmt::format("rtspsrc location={}{} latency={} ! decodebin", quote_gst_value(uri),
                         options.rtsp_tcp ? " protocols=tcp" : "", options.rtsp_latency.count());
    case SourceKind::kFile:
      return fmt::format("filesrc location={} ! decodebin", quote_gst_value(local_file_path(uri)));
    case SourceKind::kV4l2:
      return fmt::format("v4l2src device={} ! decodebin", quote_gst_value(uri));
    case SourceKind::kHttp:
      return fmt::format("souphttpsrc location={} ! decodebin", quote_gst_value(uri));
    case SourceKind::kRtmp:
      return fmt::format("rtmpsrc location={} ! decodebin", quote_gst_value(uri));
    case SourceKind::kTcp: {
      const auto host_port = tcp_host_port(uri.substr(uri.find("://") + 3));
      if (!host_port) throw std::invalid_argument(fmt::format("\"{}\" needs a port", uri));
      return fmt::format("tcpclientsrc host={} port={} ! decodebin",
                         quote_gst_value(host_port->first), host_port->second);
    }
  }
  throw std::invalid_argument(fmt::format("\"{}\": unknown source kind", uri));
}

}  // namespace yolo::media
