// H.264-in-MP4 encoding through OpenCV's GStreamer backend, with errors that name what is
// missing instead of OpenCV's silent "not opened".
#pragma once

#include <filesystem>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>

namespace yolo::synth {

// Empty when OpenCV has the GStreamer backend and every element of the encoding pipeline is
// installed; otherwise a sentence naming what is missing and which package brings it.
std::string h264_encoder_unavailable_reason();

// Writes BGR frames of a fixed size to an MP4 file. The file is complete only after close()
// (mp4mux writes its index at end of stream).
class H264Mp4Writer {
 public:
  // Throws std::runtime_error naming the missing element or the file when it cannot start.
  H264Mp4Writer(const std::filesystem::path& file, cv::Size frame_size, int fps);
  ~H264Mp4Writer();
  H264Mp4Writer(const H264Mp4Writer&) = delete;
  H264Mp4Writer& operator=(const H264Mp4Writer&) = delete;

  void write(const cv::Mat& bgr);  // CV_8UC3 of frame_size
  void close();                    // sends end of stream and waits for the muxer

 private:
  cv::VideoWriter writer_;
  cv::Size size_;
};

}  // namespace yolo::synth
