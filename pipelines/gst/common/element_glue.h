// The GObject glue the plugin's five elements share, so that each element file holds only what
// is its own (its properties' rows, its callbacks into its logic):
//  - settings_in_range(): the element error for values outside their rows' ranges;
//  - may_change_now(): the refusal of a late change to a property that only start() reads;
//  - install_stats_property(): the read-only "stats" structure of counters;
//  - init_video_filter_class(): both video pads and the in-place BaseTransform settings;
//  - construct_member()/destroy_member(): the C++ member of a C instance struct;
//  - set_locked_property()/get_locked_property()/locked_copy(): a PropertyTable's settings kept
//    in the instance under the object lock.
#pragma once

#include <gst/base/gstbasetransform.h>

#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "property_table.h"

namespace yolo::gst {

// False, with a warning naming the property, for a GST_PARAM_MUTABLE_READY property of an element
// past READY: start() has already read it, and a change now would silently do nothing.
bool may_change_now(GObject* object, GParamSpec* pspec);

// True when `problems` (PropertyTable::problems) is empty; otherwise false after an element error
// naming each value and its range, for start() to fail with.
bool settings_in_range(GstElement* element, const std::vector<std::string>& problems);

// The element warning for a running element's out-of-range change: "...; keeping the previous
// value".
void warn_value_ignored(GObject* object, const std::string& problem);

// The read-only "stats" property (a GstStructure of counters since start) under `id`.
void install_stats_property(GObjectClass* klass, guint id, const char* blurb);

// Sink and src pads of an in-place video filter (YOLO_VIDEO_CAPS, video_frames.h) and the
// BaseTransform settings the elements share: propose_allocation offers GstVideoMeta and the ROI
// metas upstream, and transform_ip runs on every buffer (never passthrough on equal caps).
void init_video_filter_class(GstElementClass* element_class, GstBaseTransformClass* trans_class);

// GstBaseTransform's own class, for chaining up from a callback of any of the elements (all
// derive from it directly).
GstBaseTransformClass* base_transform_class();

// GObject allocates the instance struct, so a C++ member of it is built in instance_init and torn
// down in finalize by hand.
template <class T, class... Args>
void construct_member(std::unique_ptr<T>& slot, Args&&... args) {
  new (&slot) std::unique_ptr<T>(std::make_unique<T>(std::forward<Args>(args)...));
}
template <class T>
void destroy_member(std::unique_ptr<T>& slot) {
  slot.~unique_ptr();
}

// A copy of settings that set_property writes under the object lock.
template <class S>
S locked_copy(gpointer object, const S& settings) {
  GST_OBJECT_LOCK(object);
  S copy = settings;
  GST_OBJECT_UNLOCK(object);
  return copy;
}

// set_property and get_property of a PropertyTable's rows over `settings`, under the object
// lock. An id the table does not have gets GLib's invalid-property warning.
//
// A value outside its row's range is kept before start, so that start() fails naming it
// (settings_in_range); while the element runs, the previous value is kept with a warning: one
// bad change must not stop a stream.
template <class S>
void set_locked_property(GObject* object, const PropertyTable<S>& table, S& settings, guint id,
                         const GValue* value, GParamSpec* pspec) {
  if (!may_change_now(object, pspec)) return;
  const bool running = GST_STATE(GST_ELEMENT(object)) > GST_STATE_READY;
  GST_OBJECT_LOCK(object);
  S next = settings;
  const bool known = table.write(next, id, value);
  std::vector<std::string> problems = running ? table.problems(next) : std::vector<std::string>{};
  if (problems.empty()) settings = std::move(next);
  GST_OBJECT_UNLOCK(object);
  if (!known) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  if (!problems.empty()) warn_value_ignored(object, problems.front());
}
template <class S>
void get_locked_property(GObject* object, const PropertyTable<S>& table, const S& settings,
                         guint id, GValue* value, GParamSpec* pspec) {
  GST_OBJECT_LOCK(object);
  const bool known = table.read(settings, id, value);
  GST_OBJECT_UNLOCK(object);
  if (!known) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

}  // namespace yolo::gst
