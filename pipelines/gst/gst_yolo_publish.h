// GObject glue for the `yolopublish` element; the logic is in yolo_publish_logic.h.
//
// A frame's analytics events and detections to an MQTT broker (gst_yolo_publish.cpp has the
// documentation gst-inspect-1.0 shows).
#pragma once

#include <gst/base/gstbasetransform.h>

#include <memory>

#include "yolo/serving/mqtt_output.h"

G_BEGIN_DECLS

#define GST_TYPE_YOLO_PUBLISH (gst_yolo_publish_get_type())
G_DECLARE_FINAL_TYPE(GstYoloPublish, gst_yolo_publish, GST, YOLO_PUBLISH, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(yolopublish);

G_END_DECLS

namespace yolo::gst {
class YoloPublishLogic;  // the element's C++ state (yolo_publish_logic.h)
}

struct _GstYoloPublish {
  GstBaseTransform parent;
  // Properties, under the object lock; read when the element starts (READY -> PAUSED).
  // Built in instance_init with placement new, torn down in finalize (GObject owns the memory).
  yolo::MqttOutputOptions options;
  std::string stream_id;
  std::unique_ptr<yolo::gst::YoloPublishLogic> impl;
};
