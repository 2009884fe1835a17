// Model summary (Ultralytics' model.info()): per-layer table, parameter/gradient totals, GFLOPs.
#pragma once

#include <string>

#include "yolo/models/detection_model.h"

namespace yolo {

struct ModelSummary {
  int64_t layers = 0;   // top-level layers
  int64_t modules = 0;  // all modules in the tree
  int64_t parameters = 0;
  int64_t gradients = 0;  // parameters that require grad (the frozen DFL conv does not)
  double gflops = 0;      // 2 x conv multiply-adds for one image at the given size
  std::string table;      // index, from, repeats, params, module, arguments
};

// Conv-only GFLOPs of one (h, w) image, as thop and Ultralytics' published numbers count them.
// Unfused end-to-end models count both heads; fused ones only the one-to-one head.
double count_gflops(DetectionModelImpl& model, int64_t h, int64_t w);

ModelSummary summarize(DetectionModelImpl& model, int64_t h, int64_t w);

// "YOLO26n summary (fused): 24 layers, 2,417,452 parameters, 0 gradients, 5.4 GFLOPs"
std::string summary_line(const DetectionModelImpl& model, const ModelSummary& s);

// 2572280 -> "2,572,280"
std::string with_thousands(int64_t v);

}  // namespace yolo
