#include "yolo/gst/analytics_meta.h"

namespace yolo::gst {
namespace {

const GstMetaInfo* analytics_meta_info() {
  // As for the inference marker (detection_meta.cpp): every copy of this library looks the type
  // up before registering it.
  static const GstMetaInfo* info = [] {
    if (const GstMetaInfo* existing = gst_meta_get_info(kAnalyticsMeta)) return existing;
    static const gchar* no_tags[] = {nullptr};  // no tags: kept by every transform
    return gst_meta_register_custom(kAnalyticsMeta, no_tags, nullptr, nullptr, nullptr);
  }();
  return info;
}

}  // namespace

void register_analytics_meta() {
  analytics_meta_info();
}

void attach_analytics_meta(GstBuffer* buffer, const AnalyticsMetaFields& f) {
  if (!analytics_meta_info()) return;  // registration failed (logged by GStreamer)
  GstCustomMeta* meta = gst_buffer_add_custom_meta(buffer, kAnalyticsMeta);
  if (!meta) return;
  gst_structure_set(gst_custom_meta_get_structure(meta), "stream-id", G_TYPE_STRING,
                    f.stream_id.c_str(), "events", G_TYPE_STRING, f.events.c_str(), "counts",
                    G_TYPE_STRING, f.counts.c_str(), "geometry", G_TYPE_STRING, f.geometry.c_str(),
                    nullptr);
}

std::optional<AnalyticsMetaFields> read_analytics_meta(GstBuffer* buffer) {
  if (!gst_meta_get_info(kAnalyticsMeta)) return std::nullopt;
  GstCustomMeta* meta = gst_buffer_get_custom_meta(buffer, kAnalyticsMeta);
  if (!meta) return std::nullopt;
  const GstStructure* s = gst_custom_meta_get_structure(meta);
  auto text = [&](const char* field) {
    const char* v = gst_structure_get_string(s, field);
    return std::string(v ? v : "");
  };
  return AnalyticsMetaFields{text("stream-id"), text("events"), text("counts"), text("geometry")};
}

}  // namespace yolo::gst
