// H.264 video files through GStreamer's appsrc (the C API, so that buffers get exact timestamps
// and errors come from the bus with the element's own message):
//   appsrc ! videoconvert ! video/x-raw,format=I420 ! x264enc ! h264parse ! <muxer> ! filesink
// The one encoder of the product: predict's annotated videos and synth's test videos.
//
// I420 explicitly: from BGR, videoconvert would otherwise pick 4:4:4 and x264 would write the
// High 4:4:4 profile, which most decoders (browsers, hardware) refuse. A key frame every 2 s so
// that players can seek.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <opencv2/core/mat.hpp>
#include <string>

#include "yolo/media/gst_handles.h"

namespace yolo::media {

struct H264WriterOptions {
  double fps = 30;
  // x264's zerolatency tune (no B-frames, no look-ahead): for videos that are served again as
  // live streams (the synthetic camera), where a decoder must not wait for future frames.
  bool zero_latency = false;
  // The container: mp4, m4v, mov, mkv or avi; empty takes it from the file's extension (set it
  // when writing under a temporary name).
  std::string container;
};

// Empty when the writer can work for files with this extension (mp4, m4v, mov, mkv, avi; with
// or without the dot); otherwise a sentence naming what is missing and its package.
std::string h264_writer_unavailable_reason(const std::string& extension);

class H264Writer {
 public:
  // Starts the encoder for BGR frames of `size`, muxed as options.container says. Throws
  // std::runtime_error naming the missing element or the failure.
  H264Writer(const std::filesystem::path& file, cv::Size size, const H264WriterOptions& options);
  ~H264Writer();  // stops the pipeline; an unfinished file is incomplete (the caller removes it)
  H264Writer(const H264Writer&) = delete;
  H264Writer& operator=(const H264Writer&) = delete;

  // Appends a CV_8UC3 frame of the size given at creation; throws std::invalid_argument for
  // another size or type, std::runtime_error when the encoder failed.
  void write(const cv::Mat& bgr);
  // Ends the stream and waits for the muxer to write its index; throws std::runtime_error when
  // the encoder failed. The file is complete only after finish().
  void finish();
  int64_t frames() const { return frames_; }

 private:
  void check_bus();
  [[noreturn]] void fail(const std::string& what);

  cv::Size size_;
  struct VideoInfo;  // GstVideoInfo, kept out of this header
  std::unique_ptr<VideoInfo> info_;
  int64_t frames_ = 0;
  OwnedPipeline pipeline_;
  GstElementPtr appsrc_;
  GstBusPtr bus_;
};

}  // namespace yolo::media
