// Preprocessing on the inference device: raw 8-bit frames (packed RGB/BGR with or without a
// fourth byte, NV12, I420; any row strides) -> the model's input tensor, with tensor operations
// only, so one source runs on the CPU, CUDA and ROCm builds of LibTorch.
//
// The result is the preprocessing contract of shared/DESIGN.md, the same as the CPU reference
// letterbox() + images_to_tensor() (letterbox.h, input_tensor.h, the OpenCV edge): Ultralytics'
// letterbox (pad 114, centred, Python rounding), RGB, /255, NCHW. Pixels match the reference
// exactly, not just closely: the resize replays OpenCV's fixed-point INTER_LINEAR arithmetic
// (11-bit weights, half-pixel centres, no antialiasing) and the YUV conversion replays
// cv::cvtColor's fixed-point BT.601 (COLOR_YUV2BGR_NV12 / _I420: limited range, nearest-neighbour
// chroma). The tests check every format against the reference (test_device_preprocess.cpp).
//
// Frames are described, not copied (FrameView, frame_view.h). On a GPU the planes go through
// page-locked staging memory with asynchronous copies; on the CPU they are read in place. The
// caller keeps the frame memory valid until preprocess_frames() returns; the result never
// refers to it.
#pragma once

#include <torch/types.h>

#include <vector>

#include "yolo/core/yuv_colour.h"
#include "yolo/runtime/frame_view.h"
#include "yolo/runtime/letterbox_geometry.h"

namespace yolo {

struct DevicePreprocessOptions {
  LetterboxOptions letterbox;          // target size and padding, as for the CPU letterbox()
  torch::Device device = torch::kCPU;  // where the work happens and the result lives
  bool half = false;                   // float16 result (engines running FP16); else float32
  // YUV formats only. The default (BT.601, limited range) is bit-identical to cv::cvtColor's
  // COLOR_YUV2BGR_NV12 / _I420 (its 3-decimal coefficients); the other combinations derive the
  // coefficients from the standard's Kr, Kb in the same 20-bit fixed point. Chroma is
  // upsampled nearest-neighbour (each sample covers 2 x 2 pixels), as OpenCV does.
  YuvMatrix yuv_matrix = YuvMatrix::kBT601;
  YuvRange yuv_range = YuvRange::kLimited;
};

struct PreprocessedBatch {
  torch::Tensor input;                         // (B, 3, H, W) RGB in [0, 1] on options.device
  std::vector<LetterboxTransform> transforms;  // per frame, for boxes_to_source() and
                                               // detections_to_source()
};

// Letterboxes, converts to RGB and normalises a batch of frames (any formats and sizes mixed)
// on options.device. All frames must letterbox to one size (always true unless auto_stride).
// Throws std::invalid_argument naming the frame and the problem for an empty batch, a null
// plane, a stride shorter than a row, a non-positive or (NV12/I420) odd size, or frames that
// letterbox to different sizes.
PreprocessedBatch preprocess_frames(const std::vector<FrameView>& frames,
                                    const DevicePreprocessOptions& options);

}  // namespace yolo
