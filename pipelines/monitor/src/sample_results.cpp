#include "yolo/monitor/sample_results.h"

#include "yolo/gst/detection_meta.h"

#include <gst/video/video.h>

#include <chrono>
#include <opencv2/imgproc.hpp>

#include "yolo/media/frame_colours.h"

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
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
  // cvtColor codes from the packed formats the `yolo` element passes on; 0: BGR itself.
  int packed_code = -1;
  switch (format) {
    case GST_VIDEO_FORMAT_BGR:
      packed_code = 0;
      break;
    case GST_VIDEO_FORMAT_RGB:
      packed_code = cv::COLOR_RGB2BGR;
      break;
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_BGRA:
      packed_code = cv::COLOR_BGRA2BGR;
      break;
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_RGBA:
      packed_code = cv::COLOR_RGBA2BGR;
      break;
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_NV12:
      break;
    default:
      return false;
  }
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) return false;
  const int w = GST_VIDEO_FRAME_WIDTH(&frame), h = GST_VIDEO_FRAME_HEIGHT(&frame);
  try {
    if (packed_code < 0) {
      // YUV with the stream's colours (the element's and predict's conversion).
      cv::Mat bgr(h, w, CV_8UC3);
      media::yuv_frame_to_bgr(frame, media::frame_colours(caps), bgr);
      use(bgr);
    } else {
      // Upstream may pad rows: the Mat takes the stride from the frame, not width * bytes.
      const cv::Mat pixels(h, w, CV_8UC(GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, 0)),
                           GST_VIDEO_FRAME_PLANE_DATA(&frame, 0),
                           static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0)));
      if (packed_code == 0) {
        use(pixels);
      } else {
        cv::Mat bgr;
        cv::cvtColor(pixels, bgr, packed_code);
        use(bgr);
      }
    }
  } catch (...) {
    gst_video_frame_unmap(&frame);
    throw;
  }
  gst_video_frame_unmap(&frame);
  return true;
}

}  // namespace yolo::monitor
