// A traced file runs with the head it was saved with: the `nms` setting can only warn when it
// asks for another one. Used by every mode that runs a traced file (val, predict, track).
#pragma once

#include <optional>
#include <string>

namespace yolo {

// Warns when nms=False asks for the NMS-free head of a file traced with the one-to-many head
// (export it again with nms=False).
void warn_if_traced_head_differs(bool traced_end2end, std::optional<bool> nms,
                                 const std::string& path);

}  // namespace yolo
