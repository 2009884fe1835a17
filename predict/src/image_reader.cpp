// One image file, decoded with OpenCV (8-bit BGR; 16-bit and grey images are converted).
#include <fmt/format.h>

#include <opencv2/imgcodecs.hpp>

#include "input_readers.h"

namespace yolo::predict {
namespace {

class ImageReader : public InputReader {
 public:
  ImageReader(const SourceInput& input, InputPosition position)
      : input_(input), position_(position) {}

  std::optional<Frame> next() override {
    if (done_) return std::nullopt;
    done_ = true;
    Frame f;
    try {
      f.image = cv::imread(input_.path, cv::IMREAD_COLOR);
    } catch (const cv::Exception& e) {
      throw SourceError(fmt::format("image '{}' cannot be decoded ({}): replace or remove the file",
                                    input_.path, e.what()));
    }
    if (f.image.empty()) {
      throw SourceError(
          fmt::format("image '{}' cannot be decoded (corrupt, truncated or not an image in a "
                      "format OpenCV reads): replace or remove the file",
                      input_.path));
    }
    f.path = input_.path;
    f.stream_id = source_stem(input_.path);
    f.origin = FrameOrigin::kImage;
    f.item = position_.item;
    f.items = position_.items;
    return f;
  }

 private:
  SourceInput input_;
  InputPosition position_;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<InputReader> make_image_reader(const SourceInput& input, InputPosition position) {
  return std::make_unique<ImageReader>(input, position);
}

}  // namespace yolo::predict
