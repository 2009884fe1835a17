// The `yolotracker` element: gives the `yolo` element's detections identities over time (see
// gst_yolo_tracker.cpp for the element documentation that gst-inspect-1.0 shows, and
// tracker_element.h for the logic).
#pragma once

#include <gst/base/gstbasetransform.h>

#include <memory>

G_BEGIN_DECLS

#define GST_TYPE_YOLO_TRACKER (gst_yolo_tracker_get_type())
G_DECLARE_FINAL_TYPE(GstYoloTracker, gst_yolo_tracker, GST, YOLO_TRACKER, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(yolotracker);

G_END_DECLS

namespace yolo::gst {
class TrackerElement;  // the element's C++ state (tracker_element.h)
}

struct _GstYoloTracker {
  GstBaseTransform parent;
  // Properties, read and written under the object lock (keep-untracked may change while frames
  // flow; tracker only in NULL and READY).
  gchar* tracker;
  gboolean keep_untracked;
  // Constructed in instance_init with placement new, destroyed in finalize: GObject allocates
  // the instance, so its C++ member must be built and torn down by hand.
  std::unique_ptr<yolo::gst::TrackerElement> impl;
};
