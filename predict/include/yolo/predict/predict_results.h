// How `yolo-trainer predict` presents one frame's detections (Ultralytics' engine/results.py
// Results.plot / save_txt / verbose and utils/plotting.py Annotator): drawn boxes, YOLO-format
// label lines, and the per-frame console summary.
#pragma once

#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "yolo/runtime/annotate.h"
#include "yolo/runtime/detection.h"

namespace yolo {

// YOLO label lines for an image of width x height: "class cx cy w h[ conf]\n" per detection,
// normalised to [0, 1], numbers as Python's "%g" (6 significant digits), as Ultralytics'
// Results.save_txt writes them. Empty for no detections (Ultralytics then writes no file).
std::string format_label_lines(const std::vector<Detection>& detections, int width, int height,
                               bool save_conf);

// "2 rectangles, 1 ellipse" (counts per class in class-id order, plural by appending 's' as
// Ultralytics does), or "(no detections)".
std::string summarize_detections(const std::vector<Detection>& detections);

}  // namespace yolo
