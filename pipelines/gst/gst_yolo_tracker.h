// GObject glue for the `yolotracker` element; the logic is in yolo_tracker_logic.h.
//
// Gives the `yolo` element's detections identities over time (gst_yolo_tracker.cpp has the
// element documentation that gst-inspect-1.0 shows).
#pragma once

#include <gst/base/gstbasetransform.h>

#include <memory>

G_BEGIN_DECLS

#define GST_TYPE_YOLO_TRACKER (gst_yolo_tracker_get_type())
G_DECLARE_FINAL_TYPE(GstYoloTracker, gst_yolo_tracker, GST, YOLO_TRACKER, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(yolotracker);

G_END_DECLS

namespace yolo::gst {
class YoloTrackerLogic;  // the element's C++ state (yolo_tracker_logic.h)
}

struct _GstYoloTracker {
  GstBaseTransform parent;
  // Properties, read and written under the object lock (keep-untracked may change while frames
  // flow; tracker only in NULL and READY).
  gchar* tracker;
  gboolean keep_untracked;
  // Constructed in instance_init with placement new, destroyed in finalize: GObject allocates
  // the instance, so its C++ member must be built and torn down by hand.
  std::unique_ptr<yolo::gst::YoloTrackerLogic> impl;
};
