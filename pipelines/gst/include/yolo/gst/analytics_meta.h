// What `yoloanalytics` puts on each frame it analysed, for yolooverlay, yolopublish and
// applications: a GstCustomMeta named "YoloAnalyticsMeta" whose structure holds three JSON texts
// (the product's JSON, docs/detections-json.md#events-and-counts):
//   events   (string): the events this frame caused, a JSON array (often "[]")
//   counts   (string): the stream's counts after this frame
//   geometry (string): the lines and zones in this frame's pixels,
//                      {"lines": [{"name", "points": [[x, y], [x, y]]}], "zones": [{"name",
//                      "points"}]}
//   stream-id (string)
// JSON rather than nested GstStructures: one format from the analytics library to the broker,
// and the meta's consumers parse it with the same code as every other reader.
#pragma once

#include <gst/gst.h>

#include <optional>
#include <string>

namespace yolo::gst {

inline constexpr const char* kAnalyticsMeta = "YoloAnalyticsMeta";

struct AnalyticsMetaFields {
  std::string stream_id, events, counts, geometry;
};

void register_analytics_meta();
void attach_analytics_meta(GstBuffer* buffer, const AnalyticsMetaFields& fields);
// nullopt when the frame has no analytics meta.
std::optional<AnalyticsMetaFields> read_analytics_meta(GstBuffer* buffer);

}  // namespace yolo::gst
