// A video file (or a URL of one): every frame decoded in order, one in vid_stride kept.
#include <fmt/format.h>

#include <filesystem>

#include "input_readers.h"
#include "yolo/media/frame_decoder.h"

namespace yolo::predict {
namespace {

constexpr const char* kVideoHint =
    "check that the file is a complete video (not truncated) and that GStreamer has a decoder "
    "for its codec (gstreamer1.0-libav, gstreamer1.0-plugins-good/-bad/-ugly)";

class VideoReader : public InputReader {
 public:
  VideoReader(const SourceInput& input, InputPosition position, const SourceOptions& options)
      : input_(input), position_(position), stride_(options.vid_stride) {
    media::DecoderOptions d;
    d.source = input.path;
    d.vid_stride = options.vid_stride;
    d.keep_last_of_stride = true;  // as Ultralytics' LoadImagesAndVideos: grab N, keep the last
    d.latest_only = false;
    d.timeout_s = options.timeout_s;
    try {
      decoder_ = std::make_unique<media::FrameDecoder>(d);
    } catch (const SourceError& e) {
      throw SourceError(
          fmt::format("cannot open video '{}': {}; {}", input.path, e.what(), kVideoHint));
    }
  }

  std::optional<Frame> next() override {
    std::optional<media::DecodedFrame> d;
    try {
      d = decoder_->next();
    } catch (const SourceError& e) {
      throw SourceError(fmt::format("cannot read video '{}' after {} frame(s): {}; {}", input_.path,
                                    kept_, e.what(), kVideoHint));
    }
    if (!d) {
      if (kept_ == 0) {
        throw SourceError(fmt::format("video '{}' has no video frames{}; {}", input_.path,
                                      stride_ > 1 ? fmt::format(" at vid_stride={}", stride_) : "",
                                      kVideoHint));
      }
      return std::nullopt;
    }
    const int64_t total = decoder_->frame_count() >= 0 ? decoder_->frame_count() / stride_ : -1;
    return frame_from_decoded(std::move(*d), input_, position_, FrameOrigin::kVideo, ++kept_, total,
                              decoder_->fps());
  }

 private:
  SourceInput input_;
  InputPosition position_;
  int stride_;
  int64_t kept_ = 0;
  std::unique_ptr<media::FrameDecoder> decoder_;
};

}  // namespace

std::unique_ptr<InputReader> make_video_reader(const SourceInput& input, InputPosition position,
                                               const SourceOptions& options) {
  return std::make_unique<VideoReader>(input, position, options);
}

}  // namespace yolo::predict
