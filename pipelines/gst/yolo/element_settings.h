// The `yolo` element's properties as plain values with their defaults, and their table (names,
// ranges, when they may change): the one place gst_yolo.cpp (property specs) and yolo_logic.cpp
// (behaviour) take them from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "property_table.h"
#include "yolo/runtime/inference_defaults.h"

namespace yolo::gst {

struct ElementSettings {
  std::string model;                        // path; required
  std::string device;                       // core/device.h grammar; "" = best available
  double conf_threshold = kPredictConf;     // detections with a higher score are kept
  double iou_threshold = kNmsIou;           // NMS suppresses overlaps above it
  unsigned max_detections = kMaxDet;        // per frame
  std::string classes;                      // "" = all; comma-separated ids and/or names
  bool half = false;                        // FP16 (GPU devices only)
  bool rect = true;                         // the stream's minimal stride-multiple rectangle
  std::string bf16 = "auto";                // BF16 autocast on the CPU: auto, true or false
  unsigned batch_size = 1;                  // frames per model call
  unsigned batch_timeout_us = 5000;         // wait for a batch to fill
  std::string model_instance_id;            // "" = a model of its own
  unsigned inference_interval = 1;          // infer every Nth frame (1 = every frame)
  std::string stream_id;                    // "" = the element's name
  int http_port = 0;                        // 0 = no HTTP endpoint; -1: any free port
  std::string http_address = "127.0.0.1";   // where the endpoint listens
  unsigned snapshot_interval_ms = 1000;     // snapshots for the HTTP endpoint; 0 = none
  unsigned model_check_interval_ms = 2000;  // model file replaced? swap it in; 0 = never
  bool draw = false;                        // draw boxes and labels onto the frames
  bool post_messages = false;               // an element message per inferred frame

  static constexpr unsigned kMaxDetections = 10000;
  static constexpr unsigned kMaxBatch = 256;
  static constexpr unsigned kMaxBatchTimeoutUs = 10'000'000;

  // One line per value outside its range, naming the property, the value and the range, and for
  // a bf16 that is not a choice (ranged_param_spec.h: why the specs let such values through).
  std::vector<std::string> problems() const;
  // `bf16` as the engine takes it: empty for auto, else on or off (bf16 must be valid).
  std::optional<bool> bf16_choice() const;
};

// The properties' table (element_settings.cpp); the "stats" property follows its rows.
const PropertyTable<ElementSettings>& yolo_properties();

}  // namespace yolo::gst
