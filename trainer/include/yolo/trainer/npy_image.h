// Decoded images as NumPy .npy files: the format of Ultralytics' `cache=disk` (np.save of
// cv2.imread's H x W x 3 uint8 BGR array), so caches written by either tool serve both.
#pragma once

#include <filesystem>
#include <opencv2/core/mat.hpp>
#include <stdexcept>
#include <string>

namespace yolo {

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The .npy bytes (format 1.0, C order, '|u1', shape (rows, cols, 3)) of an 8-bit 3-channel image.
std::string encode_npy_image(const cv::Mat& bgr);

// Reads an .npy written by encode_npy_image or by np.save of an H x W x 3 uint8 array (formats
// 1.0-3.0). Throws NpyError naming the file for anything else: another dtype or shape, Fortran
// order, a malformed header, or data shorter than the header promises.
cv::Mat read_npy_image(const std::filesystem::path& path);

}  // namespace yolo
