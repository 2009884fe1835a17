// Ultralytics' letterbox geometry (data/augment.py LetterBox), with no pixels: where an image
// of a given size lands in the model input, and the way back. Used by both preprocessing paths
// (the CPU letterbox() in letterbox.h, the device-side preprocess_frames()) and by
// postprocessing, so the runtime core needs no OpenCV for it.
//
// r = min(H/h, W/w) (capped at 1 without scaleup); the image is resized to
// (round(w*r), round(h*r)) (Python's round: half to even), then padded to (H, W); the padding
// is split top = round(dh/2 - 0.1), bottom = round(dh/2 + 0.1) (likewise left/right), so odd
// padding puts the extra pixel at the bottom/right. With auto_stride the padding is reduced
// modulo the stride (the output keeps the aspect ratio and is only a stride multiple).
//
// Labels go in with r (Ultralytics' `ratio`). Boxes come back with each axis' own gain, resized /
// source size, which the rounding of the resized size makes differ from r by up to half a pixel
// over the side: what Ultralytics' scale_boxes does when predicting (8.4.190). Its validation
// maps back with r (its ratio_pad); the trainer's val loader sets the back gains so.
#pragma once

namespace yolo {

struct LetterboxOptions {
  int height = 640, width = 640;  // target size (pixels)
  bool auto_stride = false;       // pad only to a multiple of `stride` (minimum rectangle)
  bool scale_fill = false;        // stretch to the target size, no padding (aspect not kept)
  bool scaleup = true;            // allow enlarging; false: only shrink (Ultralytics val)
  bool center = true;             // split the padding; false: pad bottom/right only
  int stride = 32;
  int pad_value = 114;
};

// How one source image maps into the letterboxed image: x_dst = x_src * gain_x + pad_left.
struct LetterboxTransform {
  int src_width = 0, src_height = 0;          // source image
  int out_width = 0, out_height = 0;          // letterboxed image
  int resized_width = 0, resized_height = 0;  // image content before padding
  double gain_x = 1, gain_y = 1;              // r (equal unless scale_fill): source -> input
  double back_gain_x = 1, back_gain_y = 1;    // input -> source: resized / source size
  int pad_left = 0, pad_top = 0, pad_right = 0, pad_bottom = 0;

  // Source -> letterboxed pixel coordinates.
  double to_dst_x(double x) const { return x * gain_x + pad_left; }
  double to_dst_y(double y) const { return y * gain_y + pad_top; }
  // Letterboxed -> source pixel coordinates (not clipped).
  double to_src_x(double x) const { return (x - pad_left) / back_gain_x; }
  double to_src_y(double y) const { return (y - pad_top) / back_gain_y; }
};

// Geometry only (no pixels): what letterbox() will do to an image of this size.
LetterboxTransform compute_letterbox(int src_height, int src_width, const LetterboxOptions& opts);

}  // namespace yolo
