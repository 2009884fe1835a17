#include "yolo/media/gst_support.h"

#include <fmt/format.h>

#include "yolo/media/gst_handles.h"

namespace yolo::media {

std::string gst_init_error() {
  GError* raw = nullptr;
  if (gst_init_check(nullptr, nullptr, &raw)) return {};
  GErrorPtr error(raw);
  return fmt::format(
      "GStreamer cannot start ({}): check the GStreamer installation "
      "(gstreamer1.0-plugins-base, -good)",
      error ? error->message : "unknown reason");
}

std::string gstreamer_version() {
  guint major = 0, minor = 0, micro = 0, nano = 0;
  gst_version(&major, &minor, &micro, &nano);
  return fmt::format("{}.{}.{}", major, minor, micro);
}

bool gst_element_available(const char* factory) {
  GstElementFactory* found = gst_element_factory_find(factory);
  if (!found) return false;
  gst_object_unref(found);
  return true;
}

std::string missing_elements_reason(const std::vector<NeededElement>& needed,
                                    const std::string& purpose) {
  if (std::string why = gst_init_error(); !why.empty()) return why;
  std::vector<std::string> missing;
  for (const NeededElement& e : needed) {
    if (!gst_element_available(e.factory))
      missing.push_back(fmt::format("'{}' (package {})", e.factory, e.package));
  }
  if (missing.empty()) return {};
  const bool many = missing.size() > 1;
  return fmt::format("the GStreamer element{} {} {} not installed; {} needs {}", many ? "s" : "",
                     fmt::join(missing, ", "), many ? "are" : "is", purpose, many ? "them" : "it");
}

std::string describe_gst_message(GstMessage* message) {
  GError* raw = nullptr;
  gchar* raw_debug = nullptr;
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    gst_message_parse_error(message, &raw, &raw_debug);
  } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_WARNING) {
    gst_message_parse_warning(message, &raw, &raw_debug);
  } else {
    return GST_MESSAGE_TYPE_NAME(message);
  }
  GErrorPtr error(raw);
  GCharPtr debug(raw_debug);
  const std::string text = error ? error->message : "unknown error";
  const char* element = GST_MESSAGE_SRC_NAME(message);
  // The debug string is a source location plus details; keep only the details line.
  std::string detail = debug ? debug.get() : "";
  const size_t colon = detail.find("):");
  if (colon != std::string::npos) detail = detail.substr(colon + 2);
  const size_t nl = detail.find('\n');
  if (nl != std::string::npos) detail = detail.substr(0, nl);
  while (!detail.empty() && detail.front() == ' ') detail.erase(0, 1);
  if (detail.empty()) return fmt::format("{} ({})", text, element ? element : "pipeline");
  return fmt::format("{} ({}: {})", text, element ? element : "pipeline", detail);
}

}  // namespace yolo::media
