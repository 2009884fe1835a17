// Plots a person looks at instead of reading numbers (Ultralytics' labels.jpg and
// train_batch*.jpg), drawn with OpenCV and written atomically.
#pragma once

#include <filesystem>
#include <map>
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "yolo/runtime/annotate.h"  // class_colour: one palette for plots and predictions
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/data/dataset.h"

namespace yolo {

// labels.jpg: instances per class (bars), box shapes overlaid at a common centre, and the
// distributions of box centres (x, y) and sizes (w, h) as heat maps. 800 x 800 pixels.
cv::Mat plot_label_statistics(const std::vector<ImageRecord>& records,
                              const std::map<int, std::string>& names);

// A grid of up to 16 batch images with their target boxes and class names.
cv::Mat plot_batch(const Batch& batch, const std::map<int, std::string>& names,
                   int max_images = 16);

// Encodes as PNG for a ".png" path, else as JPEG (quality 90), and writes atomically; throws
// std::runtime_error naming the path on failure.
void save_plot(const std::filesystem::path& path, const cv::Mat& image);

}  // namespace yolo
