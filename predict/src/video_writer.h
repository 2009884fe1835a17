// Annotated videos. Encoding goes through GStreamer (appsrc ! videoconvert ! I420 ! x264enc !
// h264parse ! muxer ! filesink), the encoder Debian ships (gstreamer1.0-plugins-ugly) and the
// one the synthetic video generator uses; when x264enc or the muxer is missing, OpenCV's FFmpeg
// backend (MPEG-4 Part 2, or Motion JPEG in AVI) is used instead, with a warning saying why.
//
// The file is written under a temporary name in the output folder and renamed to its final name
// by close(), so a video appears complete or not at all.
#pragma once

#include <filesystem>
#include <memory>
#include <opencv2/core/mat.hpp>
#include <string>

namespace yolo::predict {

class VideoEncoder {
 public:
  virtual ~VideoEncoder() = default;
  // Appends a BGR frame of the size given at creation. Throws std::runtime_error on failure.
  virtual void write(const cv::Mat& bgr) = 0;
  // Finishes the file (end of stream, muxer index); throws std::runtime_error on failure.
  virtual void finish() = 0;
};

// H.264 through the media library's writer into the container of `file`'s extension (mp4, m4v,
// mov, mkv, avi); throws std::runtime_error naming the missing element or the failure. Whether it
// can work: media::h264_writer_unavailable_reason(extension).
std::unique_ptr<VideoEncoder> make_h264_encoder(const std::filesystem::path& file, cv::Size size,
                                                double fps);
// OpenCV's FFmpeg backend; throws std::runtime_error when it cannot open the file.
std::unique_ptr<VideoEncoder> make_opencv_encoder(const std::filesystem::path& file, cv::Size size,
                                                  double fps);

// One annotated video: frames of any size are fitted to the first frame's size.
class AnnotatedVideoWriter {
 public:
  // `file`'s extension picks the container: mp4, m4v, mov, mkv or avi (anything else: .mp4).
  // fps: frames per second of the written video (> 0).
  AnnotatedVideoWriter(std::filesystem::path file, double fps);
  ~AnnotatedVideoWriter();  // finishes the file if close() was not called (logs failures)
  AnnotatedVideoWriter(const AnnotatedVideoWriter&) = delete;
  AnnotatedVideoWriter& operator=(const AnnotatedVideoWriter&) = delete;

  // Throws std::runtime_error when no encoder can write the file.
  void write(const cv::Mat& bgr);
  // Finishes and renames the file to its final name; returns that name.
  std::filesystem::path close();
  const std::filesystem::path& path() const { return file_; }
  int64_t frames() const { return frames_; }

 private:
  std::filesystem::path file_, partial_;
  double fps_;
  cv::Size size_;
  int64_t frames_ = 0;
  std::unique_ptr<VideoEncoder> encoder_;
};

// The output name of an input's annotated video: `<dir>/<stem>.<ext>` keeping mp4, m4v, mov,
// mkv and avi, else `<dir>/<stem>.mp4`.
std::filesystem::path annotated_video_path(const std::filesystem::path& dir,
                                           const std::string& stem, const std::string& source);

}  // namespace yolo::predict
