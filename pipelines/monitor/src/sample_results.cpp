#include "yolo/monitor/sample_results.h"

#include <gst/video/gstvideometa.h>
#include <gst/video/video.h>

#include <chrono>

namespace yolo::monitor {

FrameResult frame_result_from_sample(GstSample* sample, const std::string& stream_id,
                                     int64_t frame) {
  FrameResult r;
  r.stream_id = stream_id;
  r.frame = frame;
  r.wall_time = std::chrono::system_clock::now();
  if (GstCaps* caps = gst_sample_get_caps(sample)) {
    const GstStructure* s = gst_caps_get_structure(caps, 0);
    gst_structure_get_int(s, "width", &r.width);
    gst_structure_get_int(s, "height", &r.height);
  }
  GstBuffer* buffer = gst_sample_get_buffer(sample);
  if (!buffer) return r;
  if (GST_BUFFER_PTS_IS_VALID(buffer)) r.pts_ns = static_cast<int64_t>(GST_BUFFER_PTS(buffer));
  gpointer state = nullptr;
  while (GstMeta* meta = gst_buffer_iterate_meta_filtered(
             buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    const auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(meta);
    const GstStructure* params = gst_video_region_of_interest_meta_get_param(
        const_cast<GstVideoRegionOfInterestMeta*>(roi), "detection");
    if (!params) continue;  // another element's region, not a detection
    Detection d;
    d.x1 = static_cast<float>(roi->x);
    d.y1 = static_cast<float>(roi->y);
    d.x2 = static_cast<float>(roi->x + roi->w);
    d.y2 = static_cast<float>(roi->y + roi->h);
    double confidence = 0;
    gst_structure_get_double(params, "confidence", &confidence);
    d.confidence = static_cast<float>(confidence);
    gst_structure_get_int(params, "class-id", &d.class_id);
    const char* label = gst_structure_get_string(params, "label");
    if (!label && roi->roi_type) label = g_quark_to_string(roi->roi_type);
    d.class_name = label ? label : "class " + std::to_string(d.class_id);
    r.detections.push_back(std::move(d));
  }
  return r;
}

bool with_bgr_frame(GstSample* sample, const std::function<void(const cv::Mat& bgr)>& use) {
  GstVideoInfo info;
  GstCaps* caps = gst_sample_get_caps(sample);
  GstBuffer* buffer = gst_sample_get_buffer(sample);
  if (!caps || !buffer || !gst_video_info_from_caps(&info, caps) ||
      GST_VIDEO_INFO_FORMAT(&info) != GST_VIDEO_FORMAT_BGR) {
    return false;
  }
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) return false;
  // Upstream may pad rows: the Mat takes the stride from the frame, not width * 3.
  const cv::Mat bgr(GST_VIDEO_FRAME_HEIGHT(&frame), GST_VIDEO_FRAME_WIDTH(&frame), CV_8UC3,
                    GST_VIDEO_FRAME_PLANE_DATA(&frame, 0),
                    static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0)));
  try {
    use(bgr);
  } catch (...) {
    gst_video_frame_unmap(&frame);
    throw;
  }
  gst_video_frame_unmap(&frame);
  return true;
}

}  // namespace yolo::monitor
