// Which YUV matrix and range decoded frames use, read from their caps, and the repair of what
// GStreamer 1.22's MP4 demuxer gets wrong about the range, so that frames are converted to RGB
// the way FFmpeg (and so Ultralytics' OpenCV decode) converts them.
//
// What caps do not say follows FFmpeg's rule, not GStreamer's: a stream without a colour matrix
// is BT.601 at every size (GStreamer assumes BT.709 above 576 lines), and one without a range
// is limited range. docs/predict.md, "Video colours", has the rule and why.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <opencv2/core/mat.hpp>

#include <string>

#include "yolo/core/yuv_colour.h"

namespace yolo::media {

struct FrameColours {
  YuvMatrix matrix = YuvMatrix::kBT601;
  YuvRange range = YuvRange::kLimited;
  bool matrix_from_stream = false;  // the caps named the matrix (else FFmpeg's default)
  bool range_from_stream = false;   // the caps named the range (else limited)
};

// From raw video caps' "colorimetry" field. Matrices other than BT.601 and BT.709 (BT.2020,
// SMPTE 240M, RGB) are taken as BT.709, their closest supported neighbour for 8-bit video.
FrameColours frame_colours(const GstCaps* caps);

// A mapped I420 or NV12 frame to BGR (`bgr`: allocated by the caller, the frame's size, CV_8UC3)
// with these colours (yuv_colour.h's integer conversion), rows split over OpenCV's threads (a
// 1080p frame is about 2 million pixels).
void yuv_frame_to_bgr(const GstVideoFrame& frame, const FrameColours& colours, cv::Mat& bgr);

// Watches a pipeline for MP4/MOV demuxers (qtdemux) and repairs the range their video caps
// report. Why: GStreamer 1.22's qtdemux reads the full-range bit of the 'colr' box from the wrong
// byte (the low byte of the matrix code), so every full-range MP4 is reported as limited range
// and stretched by 16 levels (avdec_* honours a range in its input caps over the bitstream's).
// For a local file (`uri` a path or file:// URI) the bit is read from the file itself; otherwise
// the range is cleared so that the decoder takes it from the bitstream (H.264/H.265 VUI), as
// FFmpeg does. A range qtdemux reports as full is kept (a GStreamer that reads the box right).
// Call before the pipeline leaves NULL.
void repair_container_range(GstElement* pipeline, const std::string& uri);

}  // namespace yolo::media
