// The `yoloanalytics` element: lines, zones and their events on the tracked detections (see
// gst_yolo_analytics.cpp for the documentation gst-inspect-1.0 shows, and analytics_element.h
// for the logic).
#pragma once

#include <gst/base/gstbasetransform.h>

#include <memory>

G_BEGIN_DECLS

#define GST_TYPE_YOLO_ANALYTICS (gst_yolo_analytics_get_type())
G_DECLARE_FINAL_TYPE(GstYoloAnalytics, gst_yolo_analytics, GST, YOLO_ANALYTICS, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(yoloanalytics);

G_END_DECLS

namespace yolo::gst {
class AnalyticsElement;  // the element's C++ state (analytics_element.h)
}

struct _GstYoloAnalytics {
  GstBaseTransform parent;
  // Properties, under the object lock (config and stream-id only in NULL and READY).
  gchar* config;
  gchar* stream_id;
  gboolean post_messages;
  // Built in instance_init with placement new, torn down in finalize (GObject owns the memory).
  std::unique_ptr<yolo::gst::AnalyticsElement> impl;
};
