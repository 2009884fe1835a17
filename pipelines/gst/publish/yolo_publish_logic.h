// Logic of the `yolopublish` element, plain C++; the GObject glue is in gst_yolo_publish.cpp.
//
// The element's state and streaming work (docs/gst-yolo.md describes the element).
//
// A pass-through sink-side step: per frame it publishes, through yolo::MqttOutput (bounded
// buffer, reconnects, at-least-once QoS 1; yolo/serving/mqtt_output.h), the events of the
// frame's YoloAnalyticsMeta (from yoloanalytics) and, when asked, the frame's detections
// (rate-limited). It never holds a frame: a broker that is away only fills the buffer, whose
// state the `stats` property shows. Threads: process() on the streaming thread; stats from any.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "yolo/serving/mqtt_output.h"

namespace yolo::gst {

// The element's properties (gst_yolo_publish.cpp's table), in the property types; the defaults
// are MqttOutputOptions' own.
struct PublishSettings {
  std::string url, topic = MqttOutputOptions().topic;
  int qos = MqttOutputOptions().qos;
  std::string device_id, stream_id, client_id, username, password_file, tls_ca, tls_cert, tls_key;
  unsigned detections_every = 0;
  bool detections_on_change = false;
  unsigned buffer_max_messages = static_cast<unsigned>(MqttOutputOptions().buffer_max_messages);

  MqttOutputOptions output_options() const;
};

class YoloPublishLogic {
 public:
  explicit YoloPublishLogic(GstBaseTransform* element) : element_(element) {}
  YoloPublishLogic(const YoloPublishLogic&) = delete;
  YoloPublishLogic& operator=(const YoloPublishLogic&) = delete;

  // READY -> PAUSED: connects (in the background). Bad settings post an element error naming the
  // property and return false. `stream_id` names detections when no analytics meta does.
  bool start(const MqttOutputOptions& options, const std::string& stream_id);
  // Gives the broker up to 2 s for what is buffered, then disconnects.
  void stop();
  bool set_caps(GstCaps* caps);
  GstFlowReturn process(GstBuffer* buffer);
  GstStructure* stats_structure() const;

 private:
  GstBaseTransform* element_;  // owns this object
  mutable std::mutex mutex_;   // output_, against stats from other threads
  std::unique_ptr<MqttOutput> output_;
  std::string stream_id_;
  GstVideoInfo info_{};
  bool have_caps_ = false;
  uint64_t results_ = 0;  // seq of the published results, from 1
  uint64_t frames_ = 0;   // frame numbers when upstream puts no inference marker
  // Detections are published (detections-every or detections-on-change); without, only the
  // events of a yoloanalytics upstream are.
  bool publishes_detections_ = false;
  bool warned_nothing_ = false;  // the "nothing to publish" warning, once per start
};

}  // namespace yolo::gst
