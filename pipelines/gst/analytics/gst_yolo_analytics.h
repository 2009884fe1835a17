// GObject glue for the `yoloanalytics` element; the logic is in yolo_analytics_logic.h.
//
// Lines, zones and their events on the tracked detections (gst_yolo_analytics.cpp has the
// documentation gst-inspect-1.0 shows).
#pragma once

#include <gst/base/gstbasetransform.h>

#include <memory>

G_BEGIN_DECLS

#define GST_TYPE_YOLO_ANALYTICS (gst_yolo_analytics_get_type())
G_DECLARE_FINAL_TYPE(GstYoloAnalytics, gst_yolo_analytics, GST, YOLO_ANALYTICS, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(yoloanalytics);

G_END_DECLS

namespace yolo::gst {
struct AnalyticsSettings;  // the element's properties (yolo_analytics_logic.h)
class YoloAnalyticsLogic;  // the element's C++ state (yolo_analytics_logic.h)
}  // namespace yolo::gst

struct _GstYoloAnalytics {
  GstBaseTransform parent;
  // Built in instance_init and torn down in finalize (element_glue.h's construct_member).
  std::unique_ptr<yolo::gst::AnalyticsSettings> settings;  // under the object lock
  std::unique_ptr<yolo::gst::YoloAnalyticsLogic> impl;
};
