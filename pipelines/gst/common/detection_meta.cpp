#include "yolo/gst/detection_meta.h"

#include <gst/video/gstvideometa.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace yolo::gst {
namespace {

// A coordinate as a whole pixel within 0..limit: floor (or ceil) of a finite value; a NaN or
// infinite one (a broken upstream box) becomes 0, since casting it to int is undefined.
int whole_pixel(float v, bool up, int low, int limit) {
  if (!std::isfinite(v)) return low;
  const double rounded = up ? std::ceil(v) : std::floor(v);
  return static_cast<int>(
      std::clamp(rounded, static_cast<double>(low), static_cast<double>(limit)));
}

void snap_to_roi(Detection& d, int width, int height) {
  const int x1 = whole_pixel(d.x1, false, 0, width);
  const int y1 = whole_pixel(d.y1, false, 0, height);
  d.x2 = static_cast<float>(whole_pixel(d.x2, true, x1, width));
  d.y2 = static_cast<float>(whole_pixel(d.y2, true, y1, height));
  d.x1 = static_cast<float>(x1);
  d.y1 = static_cast<float>(y1);
}

Detection roi_box(Detection d, int width, int height) {
  snap_to_roi(d, width, height);
  return d;
}

double normalised(float v, int size) {
  return std::clamp(v / static_cast<float>(size), 0.0f, 1.0f) * 1.0;
}

// The "tracking" structure's track-id, whichever integer type a writer used.
int64_t track_id_of(const GstVideoRegionOfInterestMeta* roi) {
  const GstStructure* s = gst_video_region_of_interest_meta_get_param(
      const_cast<GstVideoRegionOfInterestMeta*>(roi), kTrackingParams);
  const GValue* v = s ? gst_structure_get_value(s, "track-id") : nullptr;
  if (!v) return 0;
  if (G_VALUE_HOLDS_UINT64(v)) return static_cast<int64_t>(g_value_get_uint64(v));
  if (G_VALUE_HOLDS_INT64(v)) return g_value_get_int64(v);
  if (G_VALUE_HOLDS_UINT(v)) return g_value_get_uint(v);
  if (G_VALUE_HOLDS_INT(v)) return g_value_get_int(v);
  return 0;
}

// The label, score and class of a region; `s` is its "detection" structure or null.
Detection scored_region(const GstVideoRegionOfInterestMeta* roi, const GstStructure* s) {
  Detection d;
  d.x1 = static_cast<float>(roi->x);
  d.y1 = static_cast<float>(roi->y);
  d.x2 = static_cast<float>(roi->x + roi->w);
  d.y2 = static_cast<float>(roi->y + roi->h);
  d.track_id = track_id_of(roi);
  const char* type = roi->roi_type ? g_quark_to_string(roi->roi_type) : nullptr;
  if (!s) {
    // No score: a tracker's or another analyser's region, drawn with its type as the label.
    d.confidence = std::numeric_limits<float>::quiet_NaN();
    d.class_id = -1;
    d.class_name = type ? type : "region";
    return d;
  }
  double confidence = 0;
  gst_structure_get_double(s, "confidence", &confidence);
  d.confidence = static_cast<float>(confidence);
  gst_structure_get_int(s, "class-id", &d.class_id);
  const char* label = gst_structure_get_string(s, "label");
  if (!label) label = type;
  d.class_name = label ? label : "class " + std::to_string(d.class_id);
  return d;
}

const GstMetaInfo* inference_meta_info() {
  // The plugin and each program linking this library (tests, yolo-monitor) have their own copy
  // of this function, so a type another copy registered is looked up, not registered again.
  static const GstMetaInfo* info = [] {
    if (const GstMetaInfo* existing = gst_meta_get_info(kInferenceMeta)) return existing;
    static const gchar* no_tags[] = {nullptr};  // no tags: copied by every transform
    return gst_meta_register_custom(kInferenceMeta, no_tags, nullptr, nullptr, nullptr);
  }();
  return info;
}

}  // namespace

std::vector<Detection> as_roi_boxes(std::vector<Detection> detections, int width, int height) {
  for (Detection& d : detections) snap_to_roi(d, width, height);
  return detections;
}

void as_roi_boxes(const std::vector<Detection>& detections, int width, int height,
                  std::vector<Detection>& boxes) {
  boxes.resize(detections.size());
  for (size_t i = 0; i < detections.size(); ++i) {
    boxes[i] = detections[i];  // the name's buffer is reused when it is long enough
    snap_to_roi(boxes[i], width, height);
  }
}

void set_roi_box(GstVideoRegionOfInterestMeta* roi, const Detection& box, int width, int height) {
  const Detection whole = roi_box(box, width, height);
  roi->x = static_cast<guint>(whole.x1);
  roi->y = static_cast<guint>(whole.y1);
  roi->w = static_cast<guint>(whole.x2 - whole.x1);
  roi->h = static_cast<guint>(whole.y2 - whole.y1);
  GstStructure* params = gst_video_region_of_interest_meta_get_param(roi, kDetectionParams);
  if (!params) return;
  gst_structure_set(params, "x_min", G_TYPE_DOUBLE, normalised(box.x1, width), "y_min",
                    G_TYPE_DOUBLE, normalised(box.y1, height), "x_max", G_TYPE_DOUBLE,
                    normalised(box.x2, width), "y_max", G_TYPE_DOUBLE, normalised(box.y2, height),
                    nullptr);
}

void set_roi_track(GstVideoRegionOfInterestMeta* roi, int64_t track_id, int64_t frames_tracked) {
  roi->id = static_cast<gint>(std::clamp<int64_t>(track_id, -1, G_MAXINT));
  GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, kTrackingParams);
  if (!s) {
    s = gst_structure_new_empty(kTrackingParams);
    gst_video_region_of_interest_meta_add_param(roi, s);  // takes ownership
  }
  gst_structure_set(s, "track-id", G_TYPE_UINT64, static_cast<guint64>(track_id), nullptr);
  if (frames_tracked > 0)
    gst_structure_set(s, "frames-tracked", G_TYPE_UINT64, static_cast<guint64>(frames_tracked),
                      nullptr);
}

void attach_roi_metas(GstBuffer* buffer, const std::vector<Detection>& detections, int width,
                      int height) {
  for (const Detection& d : detections) {
    GstVideoRegionOfInterestMeta* meta =
        gst_buffer_add_video_region_of_interest_meta(buffer, d.class_name.c_str(), 0, 0, 0, 0);
    meta->id = -1;
    GstStructure* params = gst_structure_new(
        kDetectionParams, "confidence", G_TYPE_DOUBLE, static_cast<double>(d.confidence),
        "class-id", G_TYPE_INT, d.class_id, "label", G_TYPE_STRING, d.class_name.c_str(), nullptr);
    gst_video_region_of_interest_meta_add_param(meta, params);  // takes ownership
    set_roi_box(meta, d, width, height);  // the exact box goes into the params
    if (d.track_id > 0) set_roi_track(meta, d.track_id);
  }
}

std::optional<Detection> roi_detection(const GstVideoRegionOfInterestMeta* roi, int width,
                                       int height) {
  const GstStructure* s = gst_video_region_of_interest_meta_get_param(
      const_cast<GstVideoRegionOfInterestMeta*>(roi), kDetectionParams);
  if (!s) return std::nullopt;
  Detection d = scored_region(roi, s);
  double x_min, y_min, x_max, y_max;
  if (width > 0 && height > 0 && gst_structure_get_double(s, "x_min", &x_min) &&
      gst_structure_get_double(s, "y_min", &y_min) &&
      gst_structure_get_double(s, "x_max", &x_max) &&
      gst_structure_get_double(s, "y_max", &y_max)) {
    d.x1 = static_cast<float>(x_min * width);
    d.y1 = static_cast<float>(y_min * height);
    d.x2 = static_cast<float>(x_max * width);
    d.y2 = static_cast<float>(y_max * height);
  }
  return d;
}

std::vector<Detection> read_roi_metas(GstBuffer* buffer, RoiRegions regions, int width,
                                      int height) {
  std::vector<Detection> out;
  gpointer state = nullptr;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(
             buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    const GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, kDetectionParams);
    if (!s && regions == RoiRegions::kDetections) continue;  // another element's region
    if (s && width > 0 && height > 0) {
      out.push_back(*roi_detection(roi, width, height));
    } else {
      out.push_back(scored_region(roi, s));
    }
  }
  return out;
}

void register_inference_meta() {
  inference_meta_info();
}

void mark_inference(GstBuffer* buffer, bool inferred, guint64 frame) {
  if (!inference_meta_info()) return;  // registration failed (logged by GStreamer)
  GstCustomMeta* meta = gst_buffer_add_custom_meta(buffer, kInferenceMeta);
  if (!meta) return;
  gst_structure_set(gst_custom_meta_get_structure(meta), "inferred", G_TYPE_BOOLEAN,
                    inferred ? TRUE : FALSE, "frame", G_TYPE_UINT64, frame, nullptr);
}

std::optional<guint64> inference_frame(GstBuffer* buffer) {
  if (!gst_meta_get_info(kInferenceMeta)) return std::nullopt;
  GstCustomMeta* meta = gst_buffer_get_custom_meta(buffer, kInferenceMeta);
  guint64 frame = 0;
  if (!meta || !gst_structure_get_uint64(gst_custom_meta_get_structure(meta), "frame", &frame))
    return std::nullopt;
  return frame;
}

std::optional<bool> inference_mark(GstBuffer* buffer) {
  // Not registered in this process: no buffer can carry it.
  if (!gst_meta_get_info(kInferenceMeta)) return std::nullopt;
  GstCustomMeta* meta = gst_buffer_get_custom_meta(buffer, kInferenceMeta);
  if (!meta) return std::nullopt;
  gboolean inferred = FALSE;
  if (!gst_structure_get_boolean(gst_custom_meta_get_structure(meta), "inferred", &inferred))
    return std::nullopt;
  return inferred != FALSE;
}

GstStructure* detections_structure(const std::string& stream_id, guint64 frame, GstClockTime pts,
                                   int width, int height,
                                   const std::vector<Detection>& detections) {
  GValue list = G_VALUE_INIT;
  g_value_init(&list, GST_TYPE_LIST);
  for (const Detection& d : detections) {
    GValue item = G_VALUE_INIT;
    g_value_init(&item, GST_TYPE_STRUCTURE);
    GstStructure* s = gst_structure_new(
        kDetectionParams, "x1", G_TYPE_DOUBLE, static_cast<double>(d.x1), "y1", G_TYPE_DOUBLE,
        static_cast<double>(d.y1), "x2", G_TYPE_DOUBLE, static_cast<double>(d.x2), "y2",
        G_TYPE_DOUBLE, static_cast<double>(d.y2), "confidence", G_TYPE_DOUBLE,
        static_cast<double>(d.confidence), "class-id", G_TYPE_INT, d.class_id, "label",
        G_TYPE_STRING, d.class_name.c_str(), nullptr);
    if (d.track_id > 0)
      gst_structure_set(s, "track-id", G_TYPE_UINT64, static_cast<guint64>(d.track_id), nullptr);
    g_value_take_boxed(&item, s);
    gst_value_list_append_and_take_value(&list, &item);
  }
  GstStructure* msg =
      gst_structure_new(kDetectionsMessage, "stream-id", G_TYPE_STRING, stream_id.c_str(), "frame",
                        G_TYPE_UINT64, frame, "pts", G_TYPE_UINT64, static_cast<guint64>(pts),
                        "width", G_TYPE_INT, width, "height", G_TYPE_INT, height, nullptr);
  gst_structure_take_value(msg, "detections", &list);
  return msg;
}

}  // namespace yolo::gst
