// One source (video file, camera, RTSP or HTTP stream) decoded to BGR frames through GStreamer:
//   <source_description(...)> ! videoconvert ! video/x-raw,format={ I420, NV12, BGR } ! appsink
// 4:2:0 frames are converted to BGR here with the stream's colorimetry and FFmpeg's rule for
// what it does not say (frame_colours.h), so that they match Ultralytics' OpenCV decode.
// The source part is media_source.h's, the one the monitor uses, so a camera is opened the same
// way everywhere. Video files use this path too rather than cv::VideoCapture: one decoder for
// files and streams (same codecs, timestamps and error messages), and this OpenCV's VideoCapture
// would pick its FFmpeg backend for files and GStreamer only when asked, so frame counts and
// timestamps would differ between the two kinds of source.
//
// Frames are taken from appsink in its streaming thread into a queue owned by this object:
//   - every frame policy (files, stream_buffer=True): the queue holds up to `max_queued`
//     frames, then the decoder waits (back-pressure, nothing is lost);
//   - latest-only policy (live streams, stream_buffer=False): each new frame replaces the queued
//     one, so the consumer always gets the newest frame and the stream never lags behind.
// vid_stride is applied as frames arrive, so skipped frames are never converted.
#pragma once

#include <cstdint>
#include <memory>
#include <opencv2/core/mat.hpp>
#include <optional>
#include <string>

#include "yolo/media/gst_handles.h"
#include "yolo/media/media_source.h"

namespace yolo::media {

struct DecoderOptions {
  std::string source;                // a file path, file:///..., rtsp://..., /dev/videoN, http://
  SourceOptions source_options;      // RTSP transport and latency
  int vid_stride = 1;                // keep one frame in vid_stride
  bool keep_last_of_stride = false;  // keep frames stride-1, 2*stride-1, ... instead of 0,
                                     // stride, ... (Ultralytics does the former for files)
  bool latest_only = false;          // keep only the newest frame (see above)
  size_t max_queued = 30;            // frames queued before the decoder waits (every-frame policy)
  double timeout_s = 10;             // no frame and no end for this long: SourceError
};

struct DecodedFrame {
  cv::Mat image;        // BGR, owned
  int64_t index = 0;    // 0-based number of the frame among all decoded frames
  int64_t pts_ns = -1;  // presentation timestamp; -1 when the buffer has none
};

struct FrameQueue;  // frames handed from the streaming thread (frame_decoder.cpp)

class FrameDecoder {
 public:
  // Builds and starts the pipeline; throws SourceError (unsupported or refused source, missing
  // elements).
  explicit FrameDecoder(const DecoderOptions& options);
  ~FrameDecoder();
  FrameDecoder(const FrameDecoder&) = delete;
  FrameDecoder& operator=(const FrameDecoder&) = delete;

  // The next kept frame; nullopt at end of stream. Throws SourceError (with GStreamer's
  // message) on a pipeline error, and on a timeout.
  std::optional<DecodedFrame> next();

  // Known after the first frame: frames per second (0 if the stream does not say) and the
  // number of frames in the whole input (-1 for live or unknown durations).
  double fps() const { return fps_; }
  int64_t frame_count() const { return frame_count_; }
  // The gst-launch description the decoder runs (its source part is source_description()'s).
  const std::string& description() const { return description_; }

 private:
  void poll_bus();
  void learn_stream_facts(GstSample* sample);

  DecoderOptions options_;
  std::string description_;
  std::unique_ptr<FrameQueue> queue_;
  OwnedPipeline pipeline_;
  GstBusPtr bus_;
  std::string error_;  // first pipeline error, reported once the queued frames are consumed
  double fps_ = 0;
  int64_t frame_count_ = -1;
  bool first_frame_seen_ = false;
};

}  // namespace yolo::media
