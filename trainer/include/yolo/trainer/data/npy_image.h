// Decoded images as NumPy .npy files: the format of Ultralytics' `cache=disk` (np.save of
// cv2.imread's H x W x 3 uint8 BGR array), so caches written by either tool serve both.
#pragma once

#include <filesystem>
#include <opencv2/core/mat.hpp>
#include <stdexcept>
#include <string>

#include "yolo/core/error.h"

namespace yolo {

class NpyError : public FailureError {
 public:
  // kTruncated: an image array cut short (e.g. np.save interrupted by a full disk), safe to
  // rewrite. kNotAnImage: some other file (another dtype or shape, not .npy at all), which a
  // cache must not overwrite.
  enum class Kind { kTruncated, kNotAnImage };
  NpyError(Kind kind, const std::string& what) : FailureError(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// Where cache=disk keeps an image's decoded pixels: beside it, suffix replaced (Ultralytics' name).
inline std::filesystem::path npy_cache_path(const std::filesystem::path& image) {
  return std::filesystem::path(image).replace_extension(".npy");
}

// The .npy bytes (format 1.0, C order, '|u1', shape (rows, cols, 3)) of an 8-bit 3-channel image.
std::string encode_npy_image(const cv::Mat& bgr);

// Reads an .npy written by encode_npy_image or by np.save of an H x W x 3 uint8 array (formats
// 1.0-3.0). Throws NpyError naming the file for anything else: another dtype or shape, Fortran
// order, a malformed or oversized header, or less data than the header promises (checked against
// the file's size before anything is allocated).
cv::Mat read_npy_image(const std::filesystem::path& path);

}  // namespace yolo
