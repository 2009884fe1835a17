// GStreamer raw video frames as the runtime sees them: the pixel format mapping, FrameViews
// over mapped GstVideoFrames (strides and plane offsets from GstVideoMeta honoured), the
// colorimetry of YUV frames, a BGR copy for snapshots, and the overlay drawn in place.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <opencv2/core/mat.hpp>
#include <optional>
#include <vector>

#include "yolo/gst/pixel_formats.h"
#include "yolo/runtime/annotate.h"
#include "yolo/runtime/detection.h"
#include "yolo/runtime/device_preprocess.h"
#include "yolo/runtime/frame_view.h"

// The raw video both elements take and give (pad templates).
#define YOLO_VIDEO_CAPS GST_VIDEO_CAPS_MAKE("{ RGB, BGR, RGBx, BGRx, RGBA, BGRA, NV12, I420 }")

namespace yolo::gst {

// Unmaps a GstVideoFrame when it goes out of scope.
struct MappedFrame {
  GstVideoFrame frame{};
  bool mapped = false;
  MappedFrame(const GstVideoInfo* info, GstBuffer* buffer, GstMapFlags flags)
      : mapped(gst_video_frame_map(&frame, info, buffer, flags)) {}
  ~MappedFrame() {
    if (mapped) gst_video_frame_unmap(&frame);
  }
  MappedFrame(const MappedFrame&) = delete;
  MappedFrame& operator=(const MappedFrame&) = delete;
};

// The metas an in-place element of this plugin accepts and passes on, added to an allocation
// query: GstVideoMeta (padded frames are read in place) and the ROI metas.
void add_frame_metas(GstQuery* allocation_query);
// Every element's propose_allocation: the parent class's answer, then add_frame_metas.
gboolean propose_with_frame_metas(GstBaseTransformClass* parent, GstBaseTransform* trans,
                                  GstQuery* decide_query, GstQuery* query);

// False, with an element error that says what to put before `element`, for frames it cannot
// take: NV12/I420 of odd width or height (their chroma planes would be cut).
bool frame_size_supported(GstElement* element, PixelFormat format, const GstVideoInfo& info);

// The planes of a mapped frame; valid while the frame stays mapped.
FrameView frame_view_of(const GstVideoFrame& frame, PixelFormat format);

// YUV matrix and range from the caps' colorimetry, with FFmpeg's rule for what they do not say
// (BT.601, limited range, at every size: media/frame_colours.h), so that the element sees the
// colours Ultralytics' OpenCV decode gives.
void set_yuv_colorimetry(const GstCaps* caps, DevicePreprocessOptions& options);

// An 8-bit BGR copy of a mapped frame (snapshots). YUV frames are converted as BT.601 limited
// range whatever their caps say: a picture for people, not the model's input.
cv::Mat frame_to_bgr(const GstVideoFrame& frame, PixelFormat format);

// One grey channel of a mapped frame, for BoT-SORT's motion compensation: NV12/I420 give a view
// of their luma plane (no copy; valid while the frame stays mapped), packed RGB formats a
// converted copy.
cv::Mat grey_of(const GstVideoFrame& frame, PixelFormat format);

// An open polyline (a track's trail) in frame pixels, BGR colour.
struct TrailDrawing {
  std::vector<cv::Point> points;
  cv::Scalar colour;
  int line_width = 2;
};

// Draws trails onto a frame mapped for writing, in every format (NV12/I420: luma at full size,
// chroma at half size, as the boxes).
void draw_trails(GstVideoFrame& frame, PixelFormat format, const std::vector<TrailDrawing>& trails);

// Draws the detections (frame pixels) onto a frame mapped for writing: boxes and labels in class
// colours on packed formats; on NV12/I420 the same boxes and tabs in colour with the label text
// in the luma plane.
void draw_detections(GstVideoFrame& frame, PixelFormat format,
                     const std::vector<Detection>& detections, const AnnotateOptions& options);

}  // namespace yolo::gst
