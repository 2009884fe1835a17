// GstHarness helpers shared by the element tests: owning handles, caps strings and synthetic
// frames in every format the elements take.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

namespace yolo::testing {

struct HarnessDeleter {
  void operator()(GstHarness* h) const { gst_harness_teardown(h); }
};
using Harness = std::unique_ptr<GstHarness, HarnessDeleter>;

struct BufferDeleter {
  void operator()(GstBuffer* b) const { gst_buffer_unref(b); }
};
using Buffer = std::unique_ptr<GstBuffer, BufferDeleter>;

inline std::string caps_string(const std::string& format, int w, int h) {
  return "video/x-raw,format=" + format + ",width=" + std::to_string(w) +
         ",height=" + std::to_string(h) + ",framerate=30/1";
}

// A BGR image in `format`'s layout, planes stacked without padding (I420/NV12: h * 3/2 rows).
inline cv::Mat bgr_to_format(const cv::Mat& bgr, const std::string& format) {
  const int w = bgr.cols, h = bgr.rows;
  cv::Mat converted;
  if (format == "BGR") converted = bgr;
  if (format == "RGB") cv::cvtColor(bgr, converted, cv::COLOR_BGR2RGB);
  if (format == "BGRx" || format == "BGRA") cv::cvtColor(bgr, converted, cv::COLOR_BGR2BGRA);
  if (format == "RGBx" || format == "RGBA") cv::cvtColor(bgr, converted, cv::COLOR_BGR2RGBA);
  if (format == "I420") cv::cvtColor(bgr, converted, cv::COLOR_BGR2YUV_I420);
  if (format == "NV12") {  // OpenCV has no BGR -> NV12: build it from I420
    cv::Mat i420;
    cv::cvtColor(bgr, i420, cv::COLOR_BGR2YUV_I420);
    converted = cv::Mat(h * 3 / 2, w, CV_8UC1);
    i420.rowRange(0, h).copyTo(converted.rowRange(0, h));
    const uchar* u = i420.ptr(h);
    const uchar* v = u + (w / 2) * (h / 2);
    uchar* uv = converted.ptr(h);
    for (int i = 0; i < (w / 2) * (h / 2); ++i) {
      uv[2 * i] = u[i];
      uv[2 * i + 1] = v[i];
    }
  }
  return converted;
}

// A frame with a bright disc on a dark background, in `format`, as one tightly packed buffer.
inline GstBuffer* make_frame(const std::string& format, int w, int h, guint64 pts_index = 0) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, gst_video_format_from_string(format.c_str()), w, h);
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  cv::Mat bgr(h, w, CV_8UC3, cv::Scalar(30, 40, 50));
  cv::circle(bgr, {w / 3, h / 2}, std::min(w, h) / 4, cv::Scalar(40, 200, 250), cv::FILLED);
  const cv::Mat converted = bgr_to_format(bgr, format);
  GstMapInfo map;
  gst_buffer_map(buffer, &map, GST_MAP_WRITE);
  // The GstVideoInfo layout of these sizes is tightly packed (widths are multiples of 4).
  std::memcpy(map.data, converted.data,
              std::min<size_t>(map.size, converted.total() * converted.elemSize()));
  gst_buffer_unmap(buffer, &map);
  GST_BUFFER_PTS(buffer) = pts_index * GST_SECOND / 30;
  GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
  return buffer;
}

// All bytes of a buffer.
inline std::vector<uint8_t> buffer_bytes(GstBuffer* buffer) {
  std::vector<uint8_t> bytes(gst_buffer_get_size(buffer));
  gst_buffer_extract(buffer, 0, bytes.data(), bytes.size());
  return bytes;
}

}  // namespace yolo::testing
