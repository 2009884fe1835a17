#include "video_frames.h"

#include <gst/video/gstvideometa.h>

#include <algorithm>
#include <cstring>
#include <opencv2/imgproc.hpp>

#include "yolo/media/frame_colours.h"
#include "yolo/runtime/mat_frame_view.h"

namespace yolo::gst {
namespace {

cv::Mat plane_mat(const GstVideoFrame& frame, int plane, int rows, int cols, int type) {
  return cv::Mat(rows, cols, type, GST_VIDEO_FRAME_PLANE_DATA(&frame, plane),
                 static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane)));
}

// BT.601 limited range, the conversion cv::cvtColor inverts for NV12/I420 (overlay colours only
// need to look right, not to round-trip exactly).
cv::Vec3b bgr_to_yuv(const cv::Scalar& bgr) {
  const double b = bgr[0], g = bgr[1], r = bgr[2];
  const auto clamp = [](double v) { return static_cast<uchar>(std::clamp(v, 0.0, 255.0)); };
  return {clamp(16 + 0.257 * r + 0.504 * g + 0.098 * b),
          clamp(128 - 0.148 * r - 0.291 * g + 0.439 * b),
          clamp(128 + 0.439 * r - 0.368 * g - 0.071 * b)};
}

cv::Point half(const cv::Point& p) {
  return {p.x / 2, p.y / 2};
}

void draw_yuv(GstVideoFrame& frame, PixelFormat format, const std::vector<BoxDrawing>& boxes) {
  const int w = GST_VIDEO_FRAME_WIDTH(&frame), h = GST_VIDEO_FRAME_HEIGHT(&frame);
  cv::Mat y = plane_mat(frame, 0, h, w, CV_8UC1);
  cv::Mat uv, u, v;
  if (format == PixelFormat::kNV12) {
    uv = plane_mat(frame, 1, h / 2, w / 2, CV_8UC2);
  } else {
    u = plane_mat(frame, 1, h / 2, w / 2, CV_8UC1);
    v = plane_mat(frame, 2, h / 2, w / 2, CV_8UC1);
  }
  // Each primitive is drawn on luma at full size and on chroma at half size.
  const auto paint = [&](const cv::Point& p1, const cv::Point& p2, const cv::Vec3b& yuv,
                         int thickness) {
    const int chroma_thickness = thickness == cv::FILLED ? cv::FILLED : std::max(1, thickness / 2);
    cv::rectangle(y, p1, p2, cv::Scalar(yuv[0]), thickness);
    if (format == PixelFormat::kNV12) {
      cv::rectangle(uv, half(p1), half(p2), cv::Scalar(yuv[1], yuv[2]), chroma_thickness);
    } else {
      cv::rectangle(u, half(p1), half(p2), cv::Scalar(yuv[1]), chroma_thickness);
      cv::rectangle(v, half(p1), half(p2), cv::Scalar(yuv[2]), chroma_thickness);
    }
  };
  for (const BoxDrawing& b : boxes) {
    const cv::Vec3b colour = bgr_to_yuv(b.colour);
    paint(b.p1, b.p2, colour, b.line_width);
    if (b.label.empty()) continue;
    paint(b.tab_p1, b.tab_p2, colour, cv::FILLED);
    const cv::Vec3b text = bgr_to_yuv(b.text_colour);
    cv::putText(y, b.label, b.text_origin, cv::FONT_HERSHEY_SIMPLEX, b.font_scale,
                cv::Scalar(text[0]), b.text_thickness, cv::LINE_AA);
  }
}

}  // namespace

void add_frame_metas(GstQuery* allocation_query) {
  gst_query_add_allocation_meta(allocation_query, GST_VIDEO_META_API_TYPE, nullptr);
  gst_query_add_allocation_meta(allocation_query, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE,
                                nullptr);
}

gboolean propose_with_frame_metas(GstBaseTransformClass* parent, GstBaseTransform* trans,
                                  GstQuery* decide_query, GstQuery* query) {
  if (!parent->propose_allocation(trans, decide_query, query)) return FALSE;
  add_frame_metas(query);
  return TRUE;
}

bool frame_size_supported(GstElement* element, PixelFormat format, const GstVideoInfo& info) {
  if ((format != PixelFormat::kNV12 && format != PixelFormat::kI420) ||
      (info.width % 2 == 0 && info.height % 2 == 0))
    return true;
  GstElementFactory* factory = gst_element_get_factory(element);
  const char* name = factory ? gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory)) : "it";
  GST_ELEMENT_ERROR(
      element, STREAM, FORMAT,
      ("%s frames of odd size %dx%d are not supported", to_string(format), info.width, info.height),
      ("put videoconvert ! video/x-raw,format=BGRx (or a videoscale to an even "
       "size) before %s",
       name));
  return false;
}

FrameView frame_view_of(const GstVideoFrame& frame, PixelFormat format) {
  FrameView view;
  view.format = format;
  view.width = GST_VIDEO_FRAME_WIDTH(&frame);
  view.height = GST_VIDEO_FRAME_HEIGHT(&frame);
  for (int p = 0; p < plane_count(format); ++p) {
    view.data[p] = static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    view.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
  }
  return view;
}

void set_yuv_colorimetry(const GstCaps* caps, DevicePreprocessOptions& options) {
  const media::FrameColours colours = media::frame_colours(caps);
  options.yuv_matrix = colours.matrix;
  options.yuv_range = colours.range;
}

cv::Mat frame_to_bgr(const GstVideoFrame& frame, PixelFormat format) {
  BgrScratch converted;
  const cv::Mat bgr =
      bgr_of_frame(frame_view_of(frame, format), YuvMatrix::kBT601, YuvRange::kLimited, converted);
  return converted.bgr.empty() ? bgr.clone() : converted.bgr;  // owned either way
}

cv::Mat grey_of(const GstVideoFrame& frame, PixelFormat format) {
  const int w = GST_VIDEO_FRAME_WIDTH(&frame), h = GST_VIDEO_FRAME_HEIGHT(&frame);
  cv::Mat grey;
  switch (format) {
    case PixelFormat::kNV12:
    case PixelFormat::kI420:
      return plane_mat(frame, 0, h, w, CV_8UC1);
    case PixelFormat::kBGR:
      cv::cvtColor(plane_mat(frame, 0, h, w, CV_8UC3), grey, cv::COLOR_BGR2GRAY);
      break;
    case PixelFormat::kRGB:
      cv::cvtColor(plane_mat(frame, 0, h, w, CV_8UC3), grey, cv::COLOR_RGB2GRAY);
      break;
    case PixelFormat::kBGRx:
    case PixelFormat::kBGRA:
      cv::cvtColor(plane_mat(frame, 0, h, w, CV_8UC4), grey, cv::COLOR_BGRA2GRAY);
      break;
    case PixelFormat::kRGBx:
    case PixelFormat::kRGBA:
      cv::cvtColor(plane_mat(frame, 0, h, w, CV_8UC4), grey, cv::COLOR_RGBA2GRAY);
      break;
  }
  return grey;
}

void draw_trails(GstVideoFrame& frame, PixelFormat format,
                 const std::vector<TrailDrawing>& trails) {
  if (trails.empty()) return;
  const int w = GST_VIDEO_FRAME_WIDTH(&frame), h = GST_VIDEO_FRAME_HEIGHT(&frame);
  if (format == PixelFormat::kNV12 || format == PixelFormat::kI420) {
    cv::Mat y = plane_mat(frame, 0, h, w, CV_8UC1);
    std::vector<cv::Mat> chroma;
    if (format == PixelFormat::kNV12) {
      chroma.push_back(plane_mat(frame, 1, h / 2, w / 2, CV_8UC2));
    } else {
      chroma.push_back(plane_mat(frame, 1, h / 2, w / 2, CV_8UC1));
      chroma.push_back(plane_mat(frame, 2, h / 2, w / 2, CV_8UC1));
    }
    for (const TrailDrawing& t : trails) {
      const cv::Vec3b yuv = bgr_to_yuv(t.colour);
      cv::polylines(y, t.points, false, cv::Scalar(yuv[0]), t.line_width);
      std::vector<cv::Point> halved;
      for (const cv::Point& p : t.points) halved.push_back(half(p));
      const int thickness = std::max(1, t.line_width / 2);
      if (chroma.size() == 1) {
        cv::polylines(chroma[0], halved, false, cv::Scalar(yuv[1], yuv[2]), thickness);
      } else {
        cv::polylines(chroma[0], halved, false, cv::Scalar(yuv[1]), thickness);
        cv::polylines(chroma[1], halved, false, cv::Scalar(yuv[2]), thickness);
      }
    }
    return;
  }
  cv::Mat image = plane_mat(frame, 0, h, w, CV_8UC(bytes_per_pixel(format)));
  const bool rgb =
      format == PixelFormat::kRGB || format == PixelFormat::kRGBx || format == PixelFormat::kRGBA;
  for (const TrailDrawing& t : trails) {
    const cv::Scalar& c = t.colour;
    // A 4th channel (alpha or padding) is set to 255 under the line, as annotate_detections does.
    const cv::Scalar colour =
        rgb ? cv::Scalar(c[2], c[1], c[0], 255) : cv::Scalar(c[0], c[1], c[2], 255);
    cv::polylines(image, t.points, false, colour, t.line_width);
  }
}

void draw_detections(GstVideoFrame& frame, PixelFormat format,
                     const std::vector<Detection>& detections, const AnnotateOptions& options) {
  if (detections.empty()) return;
  const int w = GST_VIDEO_FRAME_WIDTH(&frame), h = GST_VIDEO_FRAME_HEIGHT(&frame);
  if (format == PixelFormat::kNV12 || format == PixelFormat::kI420) {
    draw_yuv(frame, format, layout_detections(h, w, detections, options));
    return;
  }
  const int channels = bytes_per_pixel(format);
  cv::Mat image = plane_mat(frame, 0, h, w, CV_8UC(channels));
  const bool rgb =
      format == PixelFormat::kRGB || format == PixelFormat::kRGBx || format == PixelFormat::kRGBA;
  annotate_detections(image, detections, options, 1.0,
                      rgb ? ChannelOrder::kRGB : ChannelOrder::kBGR);
}

}  // namespace yolo::gst
