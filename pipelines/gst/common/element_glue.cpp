#include "element_glue.h"

#include "debug.h"
#include "video_frames.h"

namespace yolo::gst {
namespace {

GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));
GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));

// Upstream may send padded frames (GstVideoMeta), and the ROI metas are what the elements read.
gboolean propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* query) {
  return propose_with_frame_metas(base_transform_class(), trans, decide_query, query);
}

}  // namespace

bool may_change_now(GObject* object, GParamSpec* pspec) {
  if (!(pspec->flags & GST_PARAM_MUTABLE_READY)) return true;
  if (GST_STATE(GST_ELEMENT(object)) <= GST_STATE_READY) return true;
  GST_WARNING_OBJECT(object, "property '%s' can only be changed in the NULL or READY state",
                     pspec->name);
  return false;
}

bool settings_in_range(GstElement* element, const std::vector<std::string>& problems) {
  if (problems.empty()) return true;
  std::string text;
  for (const std::string& p : problems) text += (text.empty() ? "" : "; ") + p;
  GST_ELEMENT_ERROR(element, LIBRARY, SETTINGS, ("Invalid property value"), ("%s", text.c_str()));
  return false;
}

void warn_value_ignored(GObject* object, const std::string& problem) {
  GST_ELEMENT_WARNING(object, LIBRARY, SETTINGS, ("Invalid property value ignored"),
                      ("%s; keeping the previous value", problem.c_str()));
}

void install_stats_property(GObjectClass* klass, guint id, const char* blurb) {
  g_object_class_install_property(
      klass, id,
      g_param_spec_boxed("stats", "Statistics", blurb, GST_TYPE_STRUCTURE,
                         static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

void init_video_filter_class(GstElementClass* element_class, GstBaseTransformClass* trans_class) {
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  trans_class->propose_allocation = propose_allocation;
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
}

GstBaseTransformClass* base_transform_class() {
  return GST_BASE_TRANSFORM_CLASS(g_type_class_peek(GST_TYPE_BASE_TRANSFORM));
}

}  // namespace yolo::gst
