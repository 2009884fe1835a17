// Option checks shared by the dataset and the video generator.
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "yolo/synth/synthetic_data.h"

namespace yolo::synth {
namespace {

template <typename T>
void check_range(const char* key, T value, T lo, T hi, const char* what) {
  if (value < lo || value > hi) {
    throw std::invalid_argument(fmt::format("synth: {}={} is out of range: {} must be in {}..{}",
                                            key, value, what, lo, hi));
  }
}

}  // namespace

std::vector<std::string> synth_class_names(const SynthOptions& options) {
  const auto& all = options.cue == ClassCue::kColour ? kColourClassNames : kShapeClassNames;
  const size_t n = std::min(all.size(), static_cast<size_t>(std::max(0, options.num_classes)));
  return {all.begin(), all.begin() + n};
}

void validate_synth_options(const SynthOptions& o) {
  if (o.dir.empty()) {
    throw std::invalid_argument(
        "synth: dir is empty: give the output folder, e.g. dir=datasets/synth");
  }
  if (o.num_classes < 1 || o.num_classes > static_cast<int>(kShapeClassNames.size())) {
    throw std::invalid_argument(
        fmt::format("synth: nc={} is out of range: choose 1..{} classes (in order: {})",
                    o.num_classes, kShapeClassNames.size(),
                    o.cue == ClassCue::kColour ? fmt::join(kColourClassNames, ", ")
                                               : fmt::join(kShapeClassNames, ", ")));
  }
  if (o.imgsz < 32) {
    throw std::invalid_argument(fmt::format(
        "synth: imgsz={} is too small: the long side of the images must be at least 32 pixels",
        o.imgsz));
  }
  check_range("imgsz", o.imgsz, 32, 8192, "the long side of the images in pixels");
  check_range("train_images", o.train_images, 0, 10'000'000, "the number of training images");
  check_range("val_images", o.val_images, 0, 10'000'000, "the number of validation images");
  check_range("threads", o.threads, 0, 1024, "the worker thread count (0 = all cores)");
  check_range("max_objects", o.max_objects, 0, 64, "the most shapes per image");
  check_range("background_fraction", o.background_fraction, 0.0, 1.0,
              "the share of images without shapes");
  check_range("min_object_size", o.min_object_size, 0.001, 1.0,
              "a fraction of the image's short side");
  check_range("max_object_size", o.max_object_size, o.min_object_size, 1.0,
              "a fraction of the image's short side, at least min_object_size");
  check_range("min_visible_fraction", o.min_visible_fraction, 0.0, 1.0,
              "the visible share of a shape's area");
  check_range("min_box_px", o.min_box_px, 1, 1024, "the smallest labelled box side in pixels");
  check_range("jpeg_quality", o.jpeg_quality, 1, 100, "the JPEG quality");
  check_range("video_frames", o.video_frames, 1, 100'000, "the number of video frames");
  check_range("video_fps", o.video_fps, 1, 240, "the video frame rate");
  check_range("video_objects", o.video_objects, 1, 64, "the number of moving shapes");
  check_range("video_min_object_size", o.video_min_object_size, 0.01, 0.9,
              "a fraction of the video frame height");
  check_range("video_max_object_size", o.video_max_object_size, o.video_min_object_size, 0.9,
              "a fraction of the video frame height, at least video_min_object_size");
}

}  // namespace yolo::synth
