#include "frame_upload.h"

#include <fmt/format.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <stdexcept>

namespace yolo {
namespace {

const char* plane_name(PixelFormat format, int plane) {
  if (format == PixelFormat::kNV12) return plane == 0 ? "Y" : "UV";
  if (format == PixelFormat::kI420) return plane == 0 ? "Y" : plane == 1 ? "U" : "V";
  return "pixel";
}

// (rows, columns, bytes per element) of a plane.
std::vector<int64_t> plane_shape(const FrameView& f, int plane) {
  const int64_t h = f.height, w = f.width;
  switch (f.format) {
    case PixelFormat::kNV12:
      return plane == 0 ? std::vector<int64_t>{h, w, 1} : std::vector<int64_t>{h / 2, w / 2, 2};
    case PixelFormat::kI420:
      return plane == 0 ? std::vector<int64_t>{h, w, 1} : std::vector<int64_t>{h / 2, w / 2, 1};
    default:
      return {h, w, bytes_per_pixel(f.format)};
  }
}

}  // namespace

void validate_frame(const FrameView& f, size_t index) {
  // Formatted only for an error: a valid frame (every frame of a stream) allocates nothing here.
  const auto what = [&] {
    return fmt::format("preprocess_frames: frame {} ({} {}x{})", index, to_string(f.format),
                       f.width, f.height);
  };
  if (f.width <= 0 || f.height <= 0) {
    throw std::invalid_argument(what() + ": width and height must be positive");
  }
  if (plane_count(f.format) > 1 && (f.width % 2 != 0 || f.height % 2 != 0)) {
    throw std::invalid_argument(
        what() +
        ": 4:2:0 YUV needs an even width and height (one chroma sample per 2 x 2 "
        "pixels); crop or convert the frame to a packed format first");
  }
  for (int p = 0; p < plane_count(f.format); ++p) {
    if (f.data[p] == nullptr) {
      throw std::invalid_argument(
          fmt::format("{}: data of plane {} ({}) is null", what(), p, plane_name(f.format, p)));
    }
    const int64_t min_stride = min_plane_stride(f.format, f.width, p);
    if (f.stride[p] < min_stride) {
      throw std::invalid_argument(fmt::format(
          "{}: stride of plane {} ({}) is {} bytes, shorter than one row of {} bytes; pass the "
          "buffer's real row stride (GST_VIDEO_FRAME_PLANE_STRIDE, cv::Mat::step)",
          what(), p, plane_name(f.format, p), f.stride[p], min_stride));
    }
  }
}

std::vector<torch::Tensor> planes_on_device(const FrameView& f, const torch::Device& device) {
  // Page-locked memory exists only with a GPU runtime (CUDA or ROCm, both "cuda" in torch).
  const bool gpu = device.is_cuda() && torch::cuda::is_available();
  std::vector<torch::Tensor> planes;
  for (int p = 0; p < plane_count(f.format); ++p) {
    const std::vector<int64_t> shape = plane_shape(f, p);
    // from_blob wants a mutable pointer; the view is only ever read.
    torch::Tensor host = torch::from_blob(const_cast<uint8_t*>(f.data[p]), shape,
                                          {f.stride[p], shape[2], 1}, torch::kByte);
    if (shape[2] == 1) host = host.squeeze(2);
    if (device.is_cpu()) {
      planes.push_back(host);
      continue;
    }
    torch::Tensor staging =
        torch::empty(host.sizes(), torch::TensorOptions().dtype(torch::kByte).pinned_memory(gpu));
    staging.copy_(host);  // packs the rows, skipping the stride padding
    planes.push_back(staging.to(device, /*non_blocking=*/gpu));
  }
  return planes;
}

}  // namespace yolo
