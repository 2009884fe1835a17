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
class YoloAnalyticsLogic;  // the element's C++ state (yolo_analytics_logic.h)
}

struct _GstYoloAnalytics {
  GstBaseTransform parent;
  // Properties, under the object lock (config and stream-id only in NULL and READY).
  gchar* config;
  gchar* stream_id;
  gboolean post_messages;
  // Built in instance_init with placement new, torn down in finalize (GObject owns the memory).
  std::unique_ptr<yolo::gst::YoloAnalyticsLogic> impl;
};
