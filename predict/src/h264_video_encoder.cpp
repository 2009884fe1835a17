// The annotated-video encoder on the media library's H.264 writer (the one synth uses too).
#include "video_writer.h"
#include "yolo/media/h264_writer.h"

namespace yolo::predict {
namespace {

class H264VideoEncoder : public VideoEncoder {
 public:
  H264VideoEncoder(const std::filesystem::path& file, cv::Size size, double fps)
      : writer_(file, size, media::H264WriterOptions{fps, false, {}}) {}
  void write(const cv::Mat& bgr) override { writer_.write(bgr); }
  void finish() override { writer_.finish(); }

 private:
  media::H264Writer writer_;
};

}  // namespace

std::unique_ptr<VideoEncoder> make_h264_encoder(const std::filesystem::path& file, cv::Size size,
                                                double fps) {
  return std::make_unique<H264VideoEncoder>(file, size, fps);
}

}  // namespace yolo::predict
