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
struct TrackerSettings;  // the element's properties (yolo_tracker_logic.h)
class YoloTrackerLogic;  // the element's C++ state (yolo_tracker_logic.h)
}  // namespace yolo::gst

struct _GstYoloTracker {
  GstBaseTransform parent;
  // Built in instance_init and torn down in finalize (element_glue.h's construct_member).
  std::unique_ptr<yolo::gst::TrackerSettings> settings;  // under the object lock
  std::unique_ptr<yolo::gst::YoloTrackerLogic> impl;
};
