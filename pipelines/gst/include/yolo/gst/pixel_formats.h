// The raw video formats the yolo elements take, as the runtime's PixelFormat: one mapping for
// the elements (their caps) and yolo-monitor (its sink's frames, which the elements pass on).
#pragma once

#include <gst/video/video.h>

#include <optional>

#include "yolo/runtime/frame_view.h"

namespace yolo::gst {

// nullopt for formats the elements do not take.
std::optional<PixelFormat> pixel_format_of(GstVideoFormat format);

}  // namespace yolo::gst
