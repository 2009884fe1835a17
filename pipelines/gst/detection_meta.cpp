#include "yolo/gst/detection_meta.h"

#include <gst/video/gstvideometa.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace yolo::gst {

std::vector<Detection> as_roi_boxes(std::vector<Detection> detections, int width, int height) {
  for (Detection& d : detections) {
    const int x1 = std::clamp(static_cast<int>(std::floor(d.x1)), 0, width);
    const int y1 = std::clamp(static_cast<int>(std::floor(d.y1)), 0, height);
    d.x2 = static_cast<float>(std::clamp(static_cast<int>(std::ceil(d.x2)), x1, width));
    d.y2 = static_cast<float>(std::clamp(static_cast<int>(std::ceil(d.y2)), y1, height));
    d.x1 = static_cast<float>(x1);
    d.y1 = static_cast<float>(y1);
  }
  return detections;
}

void attach_roi_metas(GstBuffer* buffer, const std::vector<Detection>& detections, int width,
                      int height) {
  const std::vector<Detection> boxes = as_roi_boxes(detections, width, height);
  for (size_t i = 0; i < boxes.size(); ++i) {
    const Detection& d = detections[i];  // the exact box goes into the params
    const Detection& box = boxes[i];
    GstVideoRegionOfInterestMeta* meta = gst_buffer_add_video_region_of_interest_meta(
        buffer, d.class_name.c_str(), static_cast<guint>(box.x1), static_cast<guint>(box.y1),
        static_cast<guint>(box.x2 - box.x1), static_cast<guint>(box.y2 - box.y1));
    meta->id = -1;
    GstStructure* params = gst_structure_new(
        kDetectionParams, "confidence", G_TYPE_DOUBLE, static_cast<double>(d.confidence),
        "class-id", G_TYPE_INT, d.class_id, "label", G_TYPE_STRING, d.class_name.c_str(), "x_min",
        G_TYPE_DOUBLE, std::clamp(d.x1 / width, 0.0f, 1.0f) * 1.0, "y_min", G_TYPE_DOUBLE,
        std::clamp(d.y1 / height, 0.0f, 1.0f) * 1.0, "x_max", G_TYPE_DOUBLE,
        std::clamp(d.x2 / width, 0.0f, 1.0f) * 1.0, "y_max", G_TYPE_DOUBLE,
        std::clamp(d.y2 / height, 0.0f, 1.0f) * 1.0, nullptr);
    gst_video_region_of_interest_meta_add_param(meta, params);  // takes ownership
  }
}

std::vector<Detection> read_roi_metas(GstBuffer* buffer, RoiRegions regions) {
  std::vector<Detection> out;
  gpointer state = nullptr;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(
             buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    const GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, kDetectionParams);
    if (!s && regions == RoiRegions::kDetections) continue;  // another element's region
    Detection d;
    d.x1 = static_cast<float>(roi->x);
    d.y1 = static_cast<float>(roi->y);
    d.x2 = static_cast<float>(roi->x + roi->w);
    d.y2 = static_cast<float>(roi->y + roi->h);
    const char* type = roi->roi_type ? g_quark_to_string(roi->roi_type) : nullptr;
    if (!s) {
      // No score: a tracker's or another analyser's region, drawn with its type as the label.
      d.confidence = std::numeric_limits<float>::quiet_NaN();
      d.class_id = -1;
      d.class_name = type ? type : "region";
      out.push_back(std::move(d));
      continue;
    }
    double confidence = 0;
    gst_structure_get_double(s, "confidence", &confidence);
    d.confidence = static_cast<float>(confidence);
    gst_structure_get_int(s, "class-id", &d.class_id);
    const char* label = gst_structure_get_string(s, "label");
    if (!label) label = type;
    d.class_name = label ? label : "class " + std::to_string(d.class_id);
    out.push_back(std::move(d));
  }
  return out;
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
