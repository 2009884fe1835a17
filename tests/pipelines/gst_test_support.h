// Shared by the `yolo` element tests: GStreamer set up to find the plugin in the build tree, and
// tiny exported models (untrained: with conf-threshold 0 they still produce boxes, enough to
// check geometry, metadata and flow).
#pragma once

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "free_port.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/detection_model.h"

namespace yolo::testing {

inline std::string plugin_dir() {
  return std::string(YOLO_BINARY_DIR) + "/gst-plugins";
}

// Call before gst_init: the plugin is found in the build tree, and the registry lives in the
// build folder so that a stale user registry never hides a rebuilt plugin.
inline void use_build_tree_plugin() {
  setenv("GST_PLUGIN_PATH", plugin_dir().c_str(), 1);
  const std::string registry = std::string(YOLO_BINARY_DIR) + "/gst-registry-tests.bin";
  setenv("GST_REGISTRY", registry.c_str(), 1);
}

class GstEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    use_build_tree_plugin();
    gst_init(nullptr, nullptr);
    ASSERT_NE(gst_element_factory_find("yolo"), nullptr)
        << "libgstyolo.so not found in " << plugin_dir();
  }
};

// An untrained model with `nc` classes named first_name, first_name+1, ... (a, b, c by default)
// exported at h x w (cached per shape and names): a fixed-shape export, or with `checkpoint` a
// training checkpoint (it carries its weights, so it runs rectangular inputs too).
inline std::filesystem::path tiny_model(const std::string& yaml = "yolov8n.yaml", int h = 64,
                                        int w = 64, int nc = 3, char first_name = 'a',
                                        bool checkpoint = false) {
  namespace fs = std::filesystem;
  const fs::path path =
      fs::path(YOLO_BINARY_DIR) / "test-models" /
      (yaml + "-" + std::to_string(h) + "x" + std::to_string(w) + "-nc" + std::to_string(nc) +
       std::string(1, first_name) + (checkpoint ? ".pt" : ".torchscript"));
  if (fs::exists(path)) return path;
  torch::manual_seed(3);
  auto model = yolo::build_model(yaml, nc);
  for (int i = 0; i < nc; ++i) model->names[i] = std::string(1, static_cast<char>(first_name + i));
  yolo::ExportOptions o;
  o.height = h;
  o.width = w;
  o.include_weights = checkpoint;
  yolo::export_torchscript(*model, o, path);
  return path;
}

}  // namespace yolo::testing
