// The `yolo` element's properties as plain values with their defaults, and their table (names,
// ranges, when they may change): the one place gst_yolo.cpp (property specs) and yolo_logic.cpp
// (behaviour) take them from.
#pragma once

#include <string>
#include <vector>

#include "property_table.h"
#include "yolo/runtime/inference_settings.h"

namespace yolo::gst {

// The inference settings (conf, iou, max_det, classes, device, half, bf16, rect) are the shared
// InferenceSettings, under their element names (kInferenceNames); the rest is the element's own.
struct ElementSettings : InferenceSettings {
  std::string model;                        // path; required
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

  static constexpr unsigned kMaxBatch = 256;
  static constexpr unsigned kMaxBatchTimeoutUs = 10'000'000;

  // One line per value outside its range, naming the property, the value and the range, and for
  // a bf16 that is not a choice (ranged_param_spec.h: why the specs let such values through).
  std::vector<std::string> problems() const;
};

// The properties' table (element_settings.cpp); the "stats" property follows its rows.
const PropertyTable<ElementSettings>& yolo_properties();

}  // namespace yolo::gst
