// Readers of one input each (an image file, a video, a live stream), used by input_sequence.cpp
// to iterate a whole source. Each throws SourceError with a message that names the input and
// what to do; the sequence records it and moves on to the next input.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>

#include "source_paths.h"
#include "yolo/media/media_source.h"
#include "yolo/trainer/predict_sources.h"

namespace yolo::media {
struct DecodedFrame;  // yolo/media/frame_decoder.h
}  // namespace yolo::media

namespace yolo::predict {

using media::SourceError;

class InputReader {
 public:
  virtual ~InputReader() = default;
  // The next frame of this input, nullopt at its end; throws SourceError when it cannot go on.
  virtual std::optional<Frame> next() = 0;
};

// Position of the input among all inputs, copied into every frame.
struct InputPosition {
  int item = 1, items = 1;
};

// The Frame of one decoded video or stream frame (the video and stream readers' common part):
// kept_number counts the frames this input has yielded, kept_total is -1 when unknown.
Frame frame_from_decoded(media::DecodedFrame&& decoded, const SourceInput& input,
                         InputPosition position, FrameOrigin origin, int64_t kept_number,
                         int64_t kept_total, double fps);

// Decodes the image with OpenCV on the first next().
std::unique_ptr<InputReader> make_image_reader(const SourceInput& input, InputPosition position);
// Every frame of a video file (or video URL), vid_stride applied; throws SourceError when the
// decoder cannot start.
std::unique_ptr<InputReader> make_video_reader(const SourceInput& input, InputPosition position,
                                               const SourceOptions& options);
// A live stream (URI or webcam number), stream_buffer and vid_stride applied.
std::unique_ptr<InputReader> make_stream_reader(const SourceInput& input, InputPosition position,
                                                const SourceOptions& options);

}  // namespace yolo::predict
