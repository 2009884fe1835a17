// The fallback encoder: OpenCV's FFmpeg backend with codecs every libavcodec has (MPEG-4 Part 2;
// Motion JPEG for AVI), used only when the GStreamer H.264 chain is not installed.
#include <fmt/format.h>

#include <opencv2/videoio.hpp>
#include <stdexcept>

#include "video_writer.h"

namespace yolo::predict {
namespace {

class OpenCvEncoder : public VideoEncoder {
 public:
  OpenCvEncoder(const std::filesystem::path& file, cv::Size size, double fps) {
    const bool avi = file.extension() == ".avi";
    const int fourcc = avi ? cv::VideoWriter::fourcc('M', 'J', 'P', 'G')
                           : cv::VideoWriter::fourcc('m', 'p', '4', 'v');
    writer_.open(file.string(), cv::CAP_FFMPEG, fourcc, fps, size, true);
    if (!writer_.isOpened()) {
      throw std::runtime_error(fmt::format(
          "OpenCV's FFmpeg backend cannot write '{}' ({}x{}, {:g} fps): check that the folder is "
          "writable and that OpenCV was built with FFmpeg (libopencv-videoio)",
          file.string(), size.width, size.height, fps));
    }
  }
  void write(const cv::Mat& bgr) override { writer_.write(bgr); }
  void finish() override { writer_.release(); }

 private:
  cv::VideoWriter writer_;
};

}  // namespace

std::unique_ptr<VideoEncoder> make_opencv_encoder(const std::filesystem::path& file, cv::Size size,
                                                  double fps) {
  return std::make_unique<OpenCvEncoder>(file, size, fps);
}

}  // namespace yolo::predict
