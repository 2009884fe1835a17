#include "input_readers.h"
#include "yolo/media/frame_decoder.h"

namespace yolo::predict {

Frame frame_from_decoded(media::DecodedFrame&& decoded, const SourceInput& input,
                         InputPosition position, FrameOrigin origin, int64_t kept_number,
                         int64_t kept_total, double fps) {
  Frame f;
  f.image = std::move(decoded.image);
  f.path = input.path;
  f.stream_id = source_stem(input.path);
  f.origin = origin;
  f.item = position.item;
  f.items = position.items;
  f.frame_index = decoded.index;
  f.kept_number = kept_number;
  f.kept_total = kept_total;
  f.pts_ns = decoded.pts_ns;
  f.fps = fps;
  return f;
}

}  // namespace yolo::predict
