// Drawing detections onto frames, as Ultralytics' Annotator.box_label does: boxes of line width
// lw in class colours, label text of scale lw/3 and thickness max(lw-1, 1) on a filled tab in the
// box colour, above the box (inside it when there is no room above). One implementation for
// `yolo-trainer predict`, the snapshots of the HTTP endpoint and the `yolo` element's overlay.
//
// layout_detections() computes the geometry only, so that frames that are not packed 8-bit
// images (the element's NV12/I420 planes) can paint the same boxes with their own primitives.
#pragma once

#include <opencv2/core/mat.hpp>
#include <opencv2/core/types.hpp>
#include <string>
#include <vector>

#include "yolo/runtime/detection.h"

namespace yolo {

struct AnnotateOptions {
  bool show_boxes = true;   // draw anything at all (boxes and their labels)
  bool show_labels = true;  // a label above each box: the class name ...
  bool show_conf = true;    // ... followed by the confidence, "rectangle 0.87"
  int line_width = 0;       // box line width in pixels; 0: default_line_width of the image
};

// Byte order of the colour channels of the image drawn on (4-channel images keep their 4th).
enum class ChannelOrder { kBGR, kRGB };

// Ultralytics' 20-colour palette, as BGR (ids wrap around; negative ids are allowed).
cv::Scalar class_colour(int class_id);

// Ultralytics' Annotator default: max(round((height + width) / 2 * 0.003), 2), rounding half to
// even as Python does.
int default_line_width(int height, int width);

// The label drawn for a detection ("rectangle 0.87", "rectangle", or "" with show_labels off;
// the name alone when the confidence is NaN, a region without a score).
std::string detection_label(const Detection& d, const AnnotateOptions& options);

// One detection as drawn: the box outline, then (when the label is not empty) the filled tab and
// the text. Colours are BGR.
struct BoxDrawing {
  cv::Point p1, p2;  // box corners (inclusive)
  int line_width = 2;
  cv::Scalar colour;
  std::string label;
  cv::Point tab_p1, tab_p2;  // filled label tab corners
  cv::Point text_origin;     // bottom-left of the text (cv::putText's origin)
  double font_scale = 0.6;   // cv::FONT_HERSHEY_SIMPLEX
  int text_thickness = 1;
  cv::Scalar text_colour;
};

// The drawings for an image of width x height, lowest confidence first (so that the most
// confident boxes end on top). `scale` maps detection coordinates to image pixels (snapshots
// are downscaled frames).
std::vector<BoxDrawing> layout_detections(int height, int width,
                                          const std::vector<Detection>& detections,
                                          const AnnotateOptions& options, double scale = 1.0);

// Draws the detections in place on an 8-bit image with 3 or 4 channels in `order` (a 4th
// channel, alpha or padding, is set to 255 under the drawing). Throws std::invalid_argument for
// other image types.
void annotate_detections(cv::Mat& image, const std::vector<Detection>& detections,
                         const AnnotateOptions& options, double scale = 1.0,
                         ChannelOrder order = ChannelOrder::kBGR);

}  // namespace yolo
