// Ultralytics-format detection datasets: the dataset YAML, image and label discovery, label
// checking, and the label cache.
//
// Layout (as Ultralytics reads it): images anywhere under the split's folder(s) or listed in a
// .txt file; each image's label file is found by replacing the last `/images/` path component
// with `/labels/` and the extension with `.txt`. A label line is `class cx cy w h` normalised to
// [0, 1]; lines with more than 6 columns are polygons (class x1 y1 x2 y2 ...), turned into their
// bounding box. A missing or empty label file is a background image.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "yolo/core/error.h"

namespace yolo {

// Thrown for unusable dataset YAMLs and missing datasets; what() names the file/path and the fix.
class DatasetError : public FailureError {
 public:
  using FailureError::FailureError;
};

struct DatasetConfig {
  std::filesystem::path yaml_path;  // the dataset YAML as found
  std::filesystem::path root;       // resolved `path`
  // split name ("train", "val", "test") -> sources: folders, .txt lists or image files
  std::map<std::string, std::vector<std::filesystem::path>> splits;
  std::map<int, std::string> names;  // class id -> name, ids 0..nc-1
  int nc = 0;
  int channels = 3;
  std::string download;  // `download:` URL, empty if none
};

// Reads a dataset YAML. `path` resolves against the YAML's folder, else against datasets_dir.
// Throws DatasetError: missing train/val, names/nc missing or inconsistent, bad types.
DatasetConfig load_dataset_config(const std::filesystem::path& yaml,
                                  const std::filesystem::path& datasets_dir = "datasets");

// Image files (by extension) under the given sources, sorted; .txt lists are read with `./`
// relative to the list's folder. Throws DatasetError naming a source that does not exist.
std::vector<std::filesystem::path> list_images(const std::vector<std::filesystem::path>& sources);

// Ultralytics' img2label_paths rule.
std::filesystem::path label_path_for(const std::filesystem::path& image);

// True for the image extensions Ultralytics accepts that OpenCV can decode.
bool is_image_file(const std::filesystem::path& p);

// One object: class and box (centre-x, centre-y, width, height), normalised to [0, 1].
struct LabelBox {
  int cls = 0;
  float cx = 0, cy = 0, w = 0, h = 0;
  bool operator==(const LabelBox& o) const {
    return cls == o.cls && cx == o.cx && cy == o.cy && w == o.w && h == o.h;
  }
};

struct LabelParseResult {
  std::vector<LabelBox> boxes;
  int duplicates_removed = 0;
  int polygons = 0;               // lines converted from polygons
  std::optional<int> error_line;  // 1-based line of the first problem
  std::string error;              // empty when the file is usable
};

// Parses and checks one label file's text against nc (class range, column count, numbers, NaN,
// coordinates in [-0.01, 1.01]); boxes are clipped to [0, 1], duplicates dropped.
LabelParseResult parse_label_text(const std::string& text, int nc);

// The checked contents of one split.
struct ImageRecord {
  std::filesystem::path image;
  int width = 0, height = 0;
  std::vector<LabelBox> boxes;
};

struct SkippedFile {
  std::filesystem::path file;
  std::string reason;  // includes the line number for label problems
};

struct DatasetScan {
  std::vector<ImageRecord> images;  // usable images, in list_images order
  int backgrounds = 0;              // usable images without objects
  int instances = 0;
  int duplicates_removed = 0;
  std::vector<SkippedFile> skipped;  // corrupt images and images with unusable labels
  bool from_cache = false;

  // "train: 120 images, 6 backgrounds, 2 skipped, 431 instances" and the skipped files
  // (at most max_listed), one per line.
  std::string summary(const std::string& split, size_t max_listed = 10) const;
};

// Checks every image (decodable, >= 10 px, JPEGs complete) and its labels, in parallel with
// `workers` threads. Results are cached in `<labels folder>.yolo-edge.cache` next to the labels
// folder and reused while no image or label file changed (paths, sizes and modification times).
DatasetScan scan_dataset(const std::vector<std::filesystem::path>& images, int nc, int workers = 2);

// Where scan_dataset caches a split's scan: labels/<split>.yolo-edge.cache beside the label folder
// of `first_image` (Ultralytics' own labels/<split>.cache is left alone, so one dataset folder
// serves both tools).
std::filesystem::path label_scan_cache_path(const std::filesystem::path& first_image);

}  // namespace yolo
