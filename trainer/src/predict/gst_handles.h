// Owning handles for the GStreamer objects predict uses, so that every exit path (errors,
// exceptions, early returns) releases them, and a pipeline is stopped before it is released.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <string>

namespace yolo::predict {

struct GstObjectUnref {
  void operator()(gpointer object) const {
    if (object) gst_object_unref(object);
  }
};
struct GstSampleUnref {
  void operator()(GstSample* sample) const {
    if (sample) gst_sample_unref(sample);
  }
};
struct GstMessageUnref {
  void operator()(GstMessage* message) const {
    if (message) gst_message_unref(message);
  }
};
struct GstCapsUnref {
  void operator()(GstCaps* caps) const {
    if (caps) gst_caps_unref(caps);
  }
};
struct GErrorFree {
  void operator()(GError* error) const {
    if (error) g_error_free(error);
  }
};
struct GFree {
  void operator()(gchar* text) const { g_free(text); }
};

using GstElementPtr = std::unique_ptr<GstElement, GstObjectUnref>;
using GstBusPtr = std::unique_ptr<GstBus, GstObjectUnref>;
using GstSamplePtr = std::unique_ptr<GstSample, GstSampleUnref>;
using GstMessagePtr = std::unique_ptr<GstMessage, GstMessageUnref>;
using GstCapsPtr = std::unique_ptr<GstCaps, GstCapsUnref>;
using GErrorPtr = std::unique_ptr<GError, GErrorFree>;
using GCharPtr = std::unique_ptr<gchar, GFree>;

// A top-level pipeline: set to NULL (stopping its threads) before its last reference goes.
class OwnedPipeline {
 public:
  OwnedPipeline() = default;
  explicit OwnedPipeline(GstElement* pipeline) : pipeline_(pipeline) {}
  ~OwnedPipeline() { reset(); }
  OwnedPipeline(OwnedPipeline&&) = default;
  OwnedPipeline& operator=(OwnedPipeline&& other) noexcept {
    if (this != &other) {
      reset();  // stop the pipeline this one held
      pipeline_ = std::move(other.pipeline_);
    }
    return *this;
  }

  GstElement* get() const { return pipeline_.get(); }
  void reset() {
    if (pipeline_) gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
    pipeline_.reset();
  }

 private:
  GstElementPtr pipeline_;
};

// Empty when GStreamer is initialised (idempotent), otherwise why it cannot start.
std::string gst_init_error();

// The text of an ERROR or WARNING message: "message (element: debug detail)".
std::string describe_gst_message(GstMessage* message);

// Whether an element factory is installed.
bool gst_element_available(const char* factory);

}  // namespace yolo::predict
