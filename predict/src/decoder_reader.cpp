// Videos and live streams, read through one GStreamer decoder (yolo/media/frame_decoder.h). The
// two differ only in how frames are kept and in their messages:
//   video   a file (or a URL of one): every frame decoded in order, one in vid_stride kept (the
//           last of each stride, as Ultralytics' LoadImagesAndVideos); its length is known.
//   stream  RTSP/RTMP/HTTP/TCP URI or a webcam number: frames as they arrive, the newest only
//           unless stream_buffer=True, frames 0, stride, 2*stride... kept (LoadStreams).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "input_readers.h"
#include "yolo/media/frame_decoder.h"
#include "yolo/media/media_source.h"

namespace yolo::predict {
namespace {

constexpr const char* kVideoHint =
    "check that the file is a complete video (not truncated) and that GStreamer has a decoder "
    "for its codec (gstreamer1.0-libav, gstreamer1.0-plugins-good/-bad/-ugly)";

// What to check when a stream fails, by the kind of source (media's words, shared with
// yolo-monitor).
std::string stream_hint(const std::string& uri) {
  const std::optional<media::SourceKind> kind = media::classify_uri(uri);
  if (!kind) return "check the URI";
  std::string hint = media::source_failure_hint(*kind);
  if (*kind != media::SourceKind::kV4l2 && *kind != media::SourceKind::kFile)
    hint += ", and raise stream_timeout= for slow networks";
  return hint;
}

// A webcam number N is the V4L2 device /dev/videoN; anything else is a uri for the media library.
std::string stream_uri(const std::string& source) {
  const bool webcam = !source.empty() && std::all_of(source.begin(), source.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  return webcam ? "/dev/video" + source : source;
}

class DecoderReader : public InputReader {
 public:
  DecoderReader(const SourceInput& input, InputPosition position, const SourceOptions& options,
                FrameOrigin origin)
      : input_(input), position_(position), origin_(origin), stride_(options.vid_stride) {
    const bool video = origin == FrameOrigin::kVideo;
    media::DecoderOptions d;
    d.source = video ? input.path : stream_uri(input.path);
    d.vid_stride = options.vid_stride;
    d.keep_last_of_stride = video;
    d.latest_only = !video && !options.stream_buffer;
    d.timeout_s = options.timeout_s;
    noun_ = video ? "video" : "stream";
    hint_ = video ? kVideoHint : stream_hint(d.source);
    try {
      decoder_ = std::make_unique<media::FrameDecoder>(d);
    } catch (const SourceError& e) {
      throw SourceError(
          fmt::format("cannot open {} '{}': {}; {}", noun_, input.path, e.what(), hint_));
    }
  }

  std::optional<Frame> next() override {
    std::optional<media::DecodedFrame> d;
    try {
      d = decoder_->next();
    } catch (const SourceError& e) {
      throw SourceError(failed_after(e));
    }
    if (!d) {
      if (kept_ == 0) throw SourceError(nothing_read());
      return std::nullopt;
    }
    return to_frame(std::move(*d));
  }

 private:
  std::string failed_after(const SourceError& e) const {
    if (origin_ == FrameOrigin::kStream)
      return fmt::format("stream '{}' failed after {} frame(s): {}; {}", input_.path, kept_,
                         e.what(), hint_);
    return fmt::format("cannot read video '{}' after {} frame(s): {}; {}", input_.path, kept_,
                       e.what(), hint_);
  }

  std::string nothing_read() const {
    if (origin_ == FrameOrigin::kStream)
      return fmt::format("stream '{}' ended before its first frame; {}", input_.path, hint_);
    return fmt::format("video '{}' has no video frames{}; {}", input_.path,
                       stride_ > 1 ? fmt::format(" at vid_stride={}", stride_) : "", hint_);
  }

  Frame to_frame(media::DecodedFrame&& decoded) {
    Frame f;
    f.image = std::move(decoded.image);
    f.path = input_.path;
    f.stream_id = source_stem(input_.path);
    f.origin = origin_;
    f.item = position_.item;
    f.items = position_.items;
    f.frame_index = decoded.index;
    f.kept_number = ++kept_;
    // A stream's length is unknown; a video's is its frames over vid_stride, when it tells.
    const int64_t frames = decoder_->frame_count();
    f.kept_total = origin_ == FrameOrigin::kVideo && frames >= 0 ? frames / stride_ : -1;
    f.pts_ns = decoded.pts_ns;
    f.fps = decoder_->fps();
    return f;
  }

  SourceInput input_;
  InputPosition position_;
  FrameOrigin origin_;
  int stride_;
  int64_t kept_ = 0;
  std::string noun_;  // "video" or "stream", in messages
  std::string hint_;  // what to check when it fails
  std::unique_ptr<media::FrameDecoder> decoder_;
};

}  // namespace

std::unique_ptr<InputReader> make_decoder_reader(const SourceInput& input, InputPosition position,
                                                 const SourceOptions& options, FrameOrigin origin) {
  return std::make_unique<DecoderReader>(input, position, options, origin);
}

}  // namespace yolo::predict
