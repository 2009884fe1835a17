// Owning handles for the GStreamer and GLib objects the product holds, so that every exit path
// (errors, exceptions, early returns) releases them, and a pipeline is stopped before it is
// released. One set for predict, synth, the monitor and the tests.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <utility>

namespace yolo::media {

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
// A GSource attached to a context: destroyed (detached) and then released.
struct GSourceDestroy {
  void operator()(GSource* source) const {
    if (!source) return;
    g_source_destroy(source);
    g_source_unref(source);
  }
};
struct GMainContextUnref {
  void operator()(GMainContext* context) const {
    if (context) g_main_context_unref(context);
  }
};
struct GMainLoopUnref {
  void operator()(GMainLoop* loop) const {
    if (loop) g_main_loop_unref(loop);
  }
};

using GstElementPtr = std::unique_ptr<GstElement, GstObjectUnref>;
using GstBusPtr = std::unique_ptr<GstBus, GstObjectUnref>;
using GstPadPtr = std::unique_ptr<GstPad, GstObjectUnref>;
using GstSamplePtr = std::unique_ptr<GstSample, GstSampleUnref>;
using GstMessagePtr = std::unique_ptr<GstMessage, GstMessageUnref>;
using GstCapsPtr = std::unique_ptr<GstCaps, GstCapsUnref>;
using GErrorPtr = std::unique_ptr<GError, GErrorFree>;
using GCharPtr = std::unique_ptr<gchar, GFree>;
using GSourcePtr = std::unique_ptr<GSource, GSourceDestroy>;
using GMainContextPtr = std::unique_ptr<GMainContext, GMainContextUnref>;
using GMainLoopPtr = std::unique_ptr<GMainLoop, GMainLoopUnref>;

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
  explicit operator bool() const { return pipeline_ != nullptr; }
  void reset() {
    if (pipeline_) gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
    pipeline_.reset();
  }

 private:
  GstElementPtr pipeline_;
};

}  // namespace yolo::media
