#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "yolo/models/checkpoint.h"
#include "yolo/models/summary.h"
#include "yolo/trainer/modes/modes.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/settings/model_source.h"
#include "yolo/trainer/settings/shared_settings.h"

namespace yolo {

int run_info_mode(const Config& cfg) {
  auto model = load_model_setting(cfg.get_string("model"));
  const ImageSize imgsz = imgsz_setting(cfg);
  const int64_t h = imgsz.h, w = imgsz.w;
  ModelSummary unfused = summarize(*model, h, w);
  fmt::print("{}", unfused.table);
  fmt::print("{}\n", summary_line(*model, unfused));
  auto fused = clone_model(*model);
  fused->eval();
  fused->fuse();
  ModelSummary f = summarize(*fused, h, w);
  fmt::print("{}\n", summary_line(*fused, f));
  if (h != 640 || w != 640) fmt::print("GFLOPs at imgsz {}x{}\n", h, w);
  return 0;
}

}  // namespace yolo
