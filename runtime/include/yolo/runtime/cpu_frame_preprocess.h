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

#include <memory>
#include <opencv2/core/mat.hpp>
#include <vector>

#include "yolo/runtime/device_preprocess.h"
#include "yolo/runtime/frame_view.h"
#include "yolo/runtime/letterbox_geometry.h"
#include "yolo/runtime/mat_frame_view.h"

namespace yolo {

class CpuLinearResize;

// One frame at a time into memory the caller owns, with the conversion and resize buffers and
// tables kept from frame to frame: for a stream (frames of one size) nothing is allocated after
// the first frame. The resize is OpenCV's INTER_LINEAR replayed bit for bit (cv::resize itself
// allocates its tables on every call); the letterbox is written straight into the output (no
// padded copy, no second pass), with the bytes of letterbox() + images_to_tensor().
class CpuFramePreprocessor {
 public:
  CpuFramePreprocessor();
  ~CpuFramePreprocessor();
  CpuFramePreprocessor(CpuFramePreprocessor&&) noexcept;
  CpuFramePreprocessor& operator=(CpuFramePreprocessor&&) noexcept;

  // Writes `frame` into `out`: 3 planes (R, G, B) of t.out_height x t.out_width floats, where t
  // is compute_letterbox(frame.height, frame.width, options.letterbox), which is returned.
  // Throws std::invalid_argument for a bad frame (validate_frame's messages).
  LetterboxTransform run(const FrameView& frame, const DevicePreprocessOptions& options,
                         float* out);

 private:
  BgrScratch bgr_;
  cv::Mat resized_;
  std::unique_ptr<CpuLinearResize> resize_;
};

// As preprocess_frames(), on the CPU: options.device must be the CPU. Frames must letterbox to
// one size. Throws std::invalid_argument for bad frames (validate_frame's messages).
PreprocessedBatch preprocess_frames_on_cpu(const std::vector<FrameView>& frames,
                                           const DevicePreprocessOptions& options);

// preprocess_frames_on_cpu() for a CPU device, preprocess_frames() for any other.
PreprocessedBatch preprocess_frames_for_device(const std::vector<FrameView>& frames,
                                               const DevicePreprocessOptions& options);

}  // namespace yolo
