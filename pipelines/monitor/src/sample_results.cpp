#include "yolo/monitor/sample_results.h"

#include "yolo/gst/detection_meta.h"
#include "yolo/gst/pixel_formats.h"

#include <gst/video/video.h>

#include <chrono>
#include <optional>

#include "yolo/media/frame_colours.h"
#include "yolo/runtime/mat_frame_view.h"

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
  // The exact sub-pixel boxes (the ROI rectangles are rounded outwards for drawing).
  r.detections =
      yolo::gst::read_roi_metas(buffer, yolo::gst::RoiRegions::kDetections, r.width, r.height);
  return r;
}

bool with_bgr_frame(GstSample* sample, const std::function<void(const cv::Mat& bgr)>& use) {
  GstVideoInfo info;
  GstCaps* caps = gst_sample_get_caps(sample);
  GstBuffer* buffer = gst_sample_get_buffer(sample);
  if (!caps || !buffer || !gst_video_info_from_caps(&info, caps)) return false;
  const std::optional<PixelFormat> format =
      yolo::gst::pixel_format_of(GST_VIDEO_INFO_FORMAT(&info));
  if (!format) return false;
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) return false;
  // The planes in place (upstream may pad rows: the strides are the frame's).
  FrameView view;
  view.format = *format;
  view.width = GST_VIDEO_FRAME_WIDTH(&frame);
  view.height = GST_VIDEO_FRAME_HEIGHT(&frame);
  for (int p = 0; p < plane_count(*format); ++p) {
    view.data[p] = static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    view.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
  }
  try {
    // YUV with the stream's colours, as the element and predict convert it.
    const media::FrameColours colours = media::frame_colours(caps);
    BgrScratch converted;
    use(bgr_of_frame(view, colours.matrix, colours.range, converted));
  } catch (...) {
    gst_video_frame_unmap(&frame);
    throw;
  }
  gst_video_frame_unmap(&frame);
  return true;
}

}  // namespace yolo::monitor
