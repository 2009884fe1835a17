// A live stream (RTSP/RTMP/HTTP/TCP URI, or a webcam number): frames as they arrive, the newest
// only unless stream_buffer=True (Ultralytics' LoadStreams).
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

// What to check, by the kind of source (media's words, shared with yolo-monitor).
std::string stream_hint(const std::string& source) {
  const std::optional<media::SourceKind> kind = media::classify_uri(source);
  if (!kind) return "check the URI";
  std::string hint = media::source_failure_hint(*kind);
  if (*kind != media::SourceKind::kV4l2 && *kind != media::SourceKind::kFile)
    hint += ", and raise stream_timeout= for slow networks";
  return hint;
}

// A webcam number N is the V4L2 device /dev/videoN; anything else is a uri for the media library.
std::string media_source(const std::string& source) {
  const bool webcam = !source.empty() && std::all_of(source.begin(), source.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  return webcam ? "/dev/video" + source : source;
}

class StreamReader : public InputReader {
 public:
  StreamReader(const SourceInput& input, InputPosition position, const SourceOptions& options)
      : input_(input), position_(position) {
    media::DecoderOptions d;
    d.source = media_source(input.path);
    hint_ = stream_hint(d.source);
    d.vid_stride = options.vid_stride;
    d.keep_last_of_stride = false;  // LoadStreams keeps frames 0, stride, 2*stride, ...
    d.latest_only = !options.stream_buffer;
    d.timeout_s = options.timeout_s;
    try {
      decoder_ = std::make_unique<media::FrameDecoder>(d);
    } catch (const SourceError& e) {
      throw SourceError(
          fmt::format("cannot open stream '{}': {}; {}", input.path, e.what(), hint_));
    }
  }

  std::optional<Frame> next() override {
    std::optional<media::DecodedFrame> d;
    try {
      d = decoder_->next();
    } catch (const SourceError& e) {
      throw SourceError(fmt::format("stream '{}' failed after {} frame(s): {}; {}", input_.path,
                                    kept_, e.what(), hint_));
    }
    if (!d) {
      if (kept_ == 0)
        throw SourceError(
            fmt::format("stream '{}' ended before its first frame; {}", input_.path, hint_));
      return std::nullopt;
    }
    return frame_from_decoded(std::move(*d), input_, position_, FrameOrigin::kStream, ++kept_, -1,
                              decoder_->fps());
  }

 private:
  SourceInput input_;
  InputPosition position_;
  int64_t kept_ = 0;
  std::unique_ptr<media::FrameDecoder> decoder_;
  std::string hint_;  // what to check when the stream fails
};

}  // namespace

std::unique_ptr<InputReader> make_stream_reader(const SourceInput& input, InputPosition position,
                                                const SourceOptions& options) {
  return std::make_unique<StreamReader>(input, position, options);
}

}  // namespace yolo::predict
