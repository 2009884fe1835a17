// What a model file says about itself: the config.txt JSON inside every TorchScript archive we
// write and every Ultralytics TorchScript export (input size, stride, class names, head kind).
// Kept free of LibTorch so that it can be parsed, tested and fuzzed on its own.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "yolo/core/error.h"

namespace yolo {

// Thrown for files that are missing, truncated, not TorchScript, or carry unusable metadata;
// what() names the file and what to do.
class CheckpointError : public FailureError {
 public:
  using FailureError::FailureError;
};

struct ModelMetadata {
  std::string description, author = "yolo-edge", date, version, license = "", docs = "";
  std::string task = "detect";
  int64_t stride = 32;                   // largest model stride
  int64_t batch = 1;                     // traced batch size
  std::vector<int64_t> imgsz{640, 640};  // traced input [h, w]
  std::map<int, std::string> names;      // class id -> name
  int64_t channels = 3;
  bool end2end = false;                            // output (B, max_det, 6) instead of (B, 4+nc, A)
  nlohmann::json args = nlohmann::json::object();  // batch, optimize, half, nms, dynamic

  nlohmann::json to_json() const;
  // Accepts Ultralytics' variants: names keys as strings or ints (or a Python dict literal),
  // imgsz as a list, an int or a string; throws CheckpointError naming `source`.
  static ModelMetadata from_json_text(const std::string& text, const std::string& source);
};

// "0: person, 1: car, ...": a model's classes as messages list them (at most 20, then "...").
std::string describe_classes(const std::map<int, std::string>& names);

// Extra-file names inside our archives.
inline constexpr const char* kMetadataFile = "config.txt";
inline constexpr const char* kModelFile = "yolo/model.json";
inline constexpr const char* kWeightsFile = "yolo/weights.pkl";

}  // namespace yolo
