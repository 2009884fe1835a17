// How `yolo-trainer predict` presents one frame's detections (Ultralytics' engine/results.py
// Results.plot / save_txt / verbose and utils/plotting.py Annotator): drawn boxes, YOLO-format
// label lines, and the per-frame console summary.
#pragma once

#include <opencv2/core/mat.hpp>
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

// Ultralytics' Annotator default: max(round((height + width) / 2 * 0.003), 2), rounding half to
// even as Python does.
int default_line_width(int height, int width);

// The label drawn for a detection ("rectangle 0.87", "rectangle", or "" with show_labels off).
std::string detection_label(const Detection& d, const AnnotateOptions& options);

// Draws boxes in class colours (class_colour), with filled label tabs above each box (inside it
// when there is no room above), in place on an 8-bit BGR image.
void annotate_detections(cv::Mat& bgr, const std::vector<Detection>& detections,
                         const AnnotateOptions& options);

// YOLO label lines for an image of width x height: "class cx cy w h[ conf]\n" per detection,
// normalised to [0, 1], numbers as Python's "%g" (6 significant digits), as Ultralytics'
// Results.save_txt writes them. Empty for no detections (Ultralytics then writes no file).
std::string format_label_lines(const std::vector<Detection>& detections, int width, int height,
                               bool save_conf);

// "2 rectangles, 1 ellipse" (counts per class in class-id order, plural by appending 's' as
// Ultralytics does), or "(no detections)".
std::string summarize_detections(const std::vector<Detection>& detections);

}  // namespace yolo
