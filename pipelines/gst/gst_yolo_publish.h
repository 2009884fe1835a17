// The `yolopublish` element: a frame's analytics events and detections to an MQTT broker (see
// gst_yolo_publish.cpp for the documentation gst-inspect-1.0 shows, and publish_element.h for the
// logic).
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
class PublishElement;  // the element's C++ state (publish_element.h)
}

struct _GstYoloPublish {
  GstBaseTransform parent;
  // Properties, under the object lock; read when the element starts (READY -> PAUSED).
  // Built in instance_init with placement new, torn down in finalize (GObject owns the memory).
  yolo::MqttOutputOptions options;
  std::string stream_id;
  std::unique_ptr<yolo::gst::PublishElement> impl;
};
