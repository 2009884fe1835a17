// Raw frames (frame_view.h) preprocessed on the CPU the way the CPU reference path preprocesses
// images (letterbox.h, input_tensor.h): each frame becomes 8-bit BGR (YUV through
// yolo/core/yuv_colour.h, the same integer conversion as the device path), then OpenCV's
// letterbox and the same float arithmetic. So what the `yolo` element feeds a CPU model is, byte
// for byte, what `yolo-trainer val` and `predict` feed it for the same pixels.
//
// Why a second path beside device_preprocess.h: on the CPU, that path's tensor gathers and
// int32 temporaries cost about 4x OpenCV's SIMD resize on a 1280x720 frame (docs/benchmarks.md,
// "GStreamer element"), time a stream's thread spends while the model waits. On a GPU the device
// path stays: the frame is uploaded once and every step runs there.
#pragma once

#include <vector>

#include "yolo/runtime/device_preprocess.h"
#include "yolo/runtime/frame_view.h"

namespace yolo {

// As preprocess_frames(), on the CPU: options.device must be the CPU. Frames must letterbox to
// one size. Throws std::invalid_argument for bad frames (validate_frame's messages).
PreprocessedBatch preprocess_frames_on_cpu(const std::vector<FrameView>& frames,
                                           const DevicePreprocessOptions& options);

// preprocess_frames_on_cpu() for a CPU device, preprocess_frames() for any other.
PreprocessedBatch preprocess_frames_for_device(const std::vector<FrameView>& frames,
                                               const DevicePreprocessOptions& options);

}  // namespace yolo
