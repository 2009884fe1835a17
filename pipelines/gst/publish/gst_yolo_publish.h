// GObject glue for the `yolopublish` element; the logic is in yolo_publish_logic.h.
//
// A frame's analytics events and detections to an MQTT broker (gst_yolo_publish.cpp has the
// documentation gst-inspect-1.0 shows).
#pragma once

#include <gst/base/gstbasetransform.h>

#include <memory>

G_BEGIN_DECLS

#define GST_TYPE_YOLO_PUBLISH (gst_yolo_publish_get_type())
G_DECLARE_FINAL_TYPE(GstYoloPublish, gst_yolo_publish, GST, YOLO_PUBLISH, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(yolopublish);

G_END_DECLS

namespace yolo::gst {
struct PublishSettings;  // the element's properties (yolo_publish_logic.h)
class YoloPublishLogic;  // the element's C++ state (yolo_publish_logic.h)
}  // namespace yolo::gst

struct _GstYoloPublish {
  GstBaseTransform parent;
  // Built in instance_init and torn down in finalize (element_glue.h's construct_member).
  std::unique_ptr<yolo::gst::PublishSettings> settings;  // under the object lock
  std::unique_ptr<yolo::gst::YoloPublishLogic> impl;
};
