#include "yolo/runtime/traced_head.h"

#include <spdlog/spdlog.h>

namespace yolo {

void warn_if_traced_head_differs(bool traced_end2end, std::optional<bool> nms,
                                 const std::string& path) {
  if (nms.has_value() && !*nms && !traced_end2end)
    spdlog::warn(
        "nms=False: '{}' was saved with the one-to-many head, so it runs with NMS; for the "
        "NMS-free head export it with `yolo-trainer export model={} nms=False`",
        path, path);
}

}  // namespace yolo
