// Frame planes -> three colour channels, for the source pixels a resize reads, with tensor
// operations. Conversions are per pixel (nearest-neighbour chroma), so converting only the
// gathered pixels gives the same bytes as converting the whole frame first.
#pragma once

#include <torch/types.h>

#include <vector>

#include "yolo/runtime/device_preprocess.h"
#include "yolo/runtime/frame_view.h"

namespace yolo {

// True when colour_taps() returns B, G, R (BGR, BGRx, BGRA); false for R, G, B (RGB formats and
// YUV). Packed pixels stay in memory order so that no reordered copy is made; the order is
// fixed when the result is written into the batch.
bool colour_taps_are_bgr(PixelFormat format);

// The colour channels at rows x cols of a frame: (R, 3, K) (the layout LinearResize::apply
// takes) on the planes' device. planes: as planes_on_device() gives them; rows (R,), cols (K,):
// int64 source indices on that device, or undefined tensors for all rows / columns. Packed formats
// give a uint8 view or copy; YUV gives int32 holding 0..255, converted with the fixed-point
// arithmetic of cv::cvtColor(COLOR_YUV2BGR_NV12 / _I420) (BT.601 limited range; other coefficients
// otherwise), clamped as its saturate_cast does.
torch::Tensor colour_taps(const std::vector<torch::Tensor>& planes, PixelFormat format,
                          const torch::Tensor& rows, const torch::Tensor& cols, YuvMatrix matrix,
                          YuvRange range);

}  // namespace yolo
