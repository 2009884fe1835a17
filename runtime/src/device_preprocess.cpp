#include "yolo/runtime/device_preprocess.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <stdexcept>

#include "colour_conversion.h"
#include "frame_upload.h"
#include "linear_resize.h"

namespace yolo {

PreprocessedBatch preprocess_frames(const std::vector<FrameView>& frames,
                                    const DevicePreprocessOptions& options) {
  if (frames.empty()) throw std::invalid_argument("preprocess_frames: no frames");
  PreprocessedBatch batch;
  for (size_t i = 0; i < frames.size(); ++i) {
    validate_frame(frames[i], i);
    batch.transforms.push_back(
        compute_letterbox(frames[i].height, frames[i].width, options.letterbox));
    const LetterboxTransform& first = batch.transforms.front();
    const LetterboxTransform& t = batch.transforms.back();
    if (t.out_height != first.out_height || t.out_width != first.out_width) {
      throw std::invalid_argument(fmt::format(
          "preprocess_frames: frame {} letterboxes to {}x{} but frame 0 to {}x{} (auto_stride "
          "keeps each frame's aspect); batch frames of one size or turn auto_stride off",
          i, t.out_width, t.out_height, first.out_width, first.out_height));
    }
  }
  const LetterboxTransform& first = batch.transforms.front();
  const auto n = static_cast<int64_t>(frames.size());
  // The padded 8-bit batch, as the CPU path builds it before normalising.
  torch::Tensor canvas =
      torch::full({n, 3, first.out_height, first.out_width}, options.letterbox.pad_value,
                  torch::TensorOptions().dtype(torch::kByte).device(options.device));
  for (size_t i = 0; i < frames.size(); ++i) {
    const FrameView& f = frames[i];
    const LetterboxTransform& t = batch.transforms[i];
    const std::vector<torch::Tensor> planes = planes_on_device(f, options.device);
    LinearResize resize(f.height, f.width, t.resized_height, t.resized_width, options.device);
    const torch::Tensor taps =
        colour_taps(planes, f.format, resize.source_rows(), resize.source_cols(),
                    options.yuv_matrix, options.yuv_range);
    // (3, h, w) holding 0..255: int32, or the frame's own bytes when the size is unchanged; the
    // copies below cast to uint8.
    const torch::Tensor image = resize.apply(taps).permute({1, 0, 2});
    torch::Tensor content = canvas[static_cast<int64_t>(i)]
                                .narrow(1, t.pad_top, t.resized_height)
                                .narrow(2, t.pad_left, t.resized_width);
    if (colour_taps_are_bgr(f.format)) {
      for (int64_t c = 0; c < 3; ++c) content[c].copy_(image[2 - c]);  // BGR -> RGB
    } else {
      content.copy_(image);
    }
  }
  // The same float arithmetic as images_to_tensor(), so the values match it bit for bit: a true
  // division on every device. (CUDA turns a division by a CPU scalar into a multiplication by
  // its reciprocal, one rounding away from x / 255; a divisor tensor on the device is divided by.)
  torch::Tensor x = canvas.to(torch::kFloat);
  x.div_(torch::full({}, 255.0f, x.options()));
  batch.input = options.half ? x.to(torch::kHalf) : x;
  return batch;
}

}  // namespace yolo
