// GObject glue for the `yolo` element; the logic is in yolo_logic.h.
//
// YOLO object detection on raw video, in place (gst_yolo.cpp has the element documentation that
// gst-inspect-1.0 shows; docs/gst-yolo.md).
#pragma once

#include <gst/base/gstbasetransform.h>

#include <memory>

G_BEGIN_DECLS

#define GST_TYPE_YOLO (gst_yolo_get_type())
G_DECLARE_FINAL_TYPE(GstYolo, gst_yolo, GST, YOLO, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(yolo);

G_END_DECLS

namespace yolo::gst {
class YoloLogic;  // the element's C++ state (yolo_logic.h)
}

struct _GstYolo {
  GstBaseTransform parent;
  // Constructed in instance_init with placement new, destroyed in finalize: GObject allocates
  // the instance, so its C++ member must be built and torn down by hand.
  std::unique_ptr<yolo::gst::YoloLogic> impl;
};
