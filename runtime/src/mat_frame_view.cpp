#include "yolo/runtime/mat_frame_view.h"

#include <fmt/format.h>

#include <opencv2/core.hpp>
#include <stdexcept>

namespace yolo {

FrameView frame_view_of_mat(const cv::Mat& image, PixelFormat format) {
  const int bpp = bytes_per_pixel(format);
  if (bpp == 0 || image.depth() != CV_8U || image.channels() != bpp) {
    throw std::invalid_argument(fmt::format(
        "frame_view_of_mat: a {} frame needs an 8-bit image with {} channels, got type {}",
        to_string(format), bpp, cv::typeToString(image.type())));
  }
  return FrameView::packed(format, image.cols, image.rows, image.data,
                           static_cast<int64_t>(image.step[0]));
}

}  // namespace yolo
