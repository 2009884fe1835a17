// Readers of one input each (an image file, a video, a live stream), used by input_sequence.cpp
// to iterate a whole source. Each throws SourceError with a message that names the input and
// what to do; the sequence records it and moves on to the next input.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>

#include "source_paths.h"
#include "yolo/media/media_source.h"
#include "yolo/predict/frame_source.h"

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

// Decodes the image with OpenCV on the first next().
std::unique_ptr<InputReader> make_image_reader(const SourceInput& input, InputPosition position);
// A video file or video URL (origin kVideo: every frame, vid_stride applied) or a live stream
// (kStream: a URI or webcam number, stream_buffer and vid_stride applied), through one GStreamer
// decoder; throws SourceError when the decoder cannot start.
std::unique_ptr<InputReader> make_decoder_reader(const SourceInput& input, InputPosition position,
                                                 const SourceOptions& options, FrameOrigin origin);

}  // namespace yolo::predict
