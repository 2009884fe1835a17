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

// set_property of a PropertyTable's row, for settings wherever they are kept: `update(f)` calls
// f(settings) under the settings' lock, and `check(settings)` lists a candidate's problems (the
// table's ranges, and whatever else the element refuses). An id the table does not have gets
// GLib's invalid-property warning.
//
// A value outside its range is kept before start, so that start() fails naming it
// (settings_in_range); while the element runs, the previous value is kept with a warning: one
// bad change must not stop a stream.
template <class S, class Update, class Check>
void set_table_property(GObject* object, const PropertyTable<S>& table, Update&& update,
                        Check&& check, guint id, const GValue* value, GParamSpec* pspec) {
  if (!may_change_now(object, pspec)) return;
  const bool running = GST_STATE(GST_ELEMENT(object)) > GST_STATE_READY;
  bool known = true;
  std::string refused;
  update([&](S& settings) {
    S next = settings;
    known = table.write(next, id, value);
    if (known && running) {
      const std::vector<std::string> problems = check(next);
      if (!problems.empty()) {
        refused = problems.front();
        return;
      }
    }
    settings = std::move(next);
  });
  if (!known) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  if (!refused.empty()) warn_value_ignored(object, refused);
}

// set_property and get_property of a PropertyTable's rows over `settings`, under the object
// lock (set_table_property's rules).
template <class S>
void set_locked_property(GObject* object, const PropertyTable<S>& table, S& settings, guint id,
                         const GValue* value, GParamSpec* pspec) {
  const auto under_object_lock = [&](const auto& change) {
    GST_OBJECT_LOCK(object);
    change(settings);
    GST_OBJECT_UNLOCK(object);
  };
  set_table_property(
      object, table, under_object_lock, [&](const S& s) { return table.problems(s); }, id, value,
      pspec);
}
template <class S>
void get_locked_property(GObject* object, const PropertyTable<S>& table, const S& settings,
                         guint id, GValue* value, GParamSpec* pspec) {
  GST_OBJECT_LOCK(object);
  const bool known = table.read(settings, id, value);
  GST_OBJECT_UNLOCK(object);
  if (!known) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

// The glue of an element whose instance struct holds `settings` (a PropertyTable's struct, under
// the object lock) and `impl` (its logic), both std::unique_ptr built in instance_init:
// set_property, get_property (with "stats" from impl->stats_structure() when the logic has one),
// finalize, the members' construction and the in-place setting. `Table` returns the element's
// table; its "stats" property, if any, takes the id after the rows.
//
//   using Glue = ElementGlue<GstYoloTracker, TrackerSettings, properties>;
//   class_init:     Glue::init_class(object_class, "Counters since start: ...");
//   instance_init:  Glue::init_instance(self);
//   any callback:   Glue::settings(trans).keep_untracked, Glue::impl(trans).process(...)
template <class Instance, class Settings, const PropertyTable<Settings>& (*Table)()>
struct ElementGlue {
  using Logic = typename decltype(std::declval<Instance>().impl)::element_type;

  static Instance* self(gpointer object) { return static_cast<Instance*>(object); }
  static Logic& impl(gpointer object) { return *self(object)->impl; }
  static Settings settings(gpointer object) { return locked_copy(object, *self(object)->settings); }
  // One setting, for a per-frame read: no copy of the others (their strings).
  template <class T>
  static T setting(gpointer object, T Settings::*field) {
    GST_OBJECT_LOCK(object);
    T value = self(object)->settings.get()->*field;
    GST_OBJECT_UNLOCK(object);
    return value;
  }

  // `stats_blurb`: nullptr for an element without the "stats" property.
  static void init_class(GObjectClass* klass, const char* stats_blurb) {
    klass->set_property = set_property;
    klass->get_property = get_property;
    klass->finalize = finalize;
    Table().install(klass);
    if (stats_blurb) install_stats_property(klass, Table().size() + 1, stats_blurb);
  }

  static void init_instance(Instance* instance) {
    construct_member(instance->settings);
    construct_member(instance->impl, GST_BASE_TRANSFORM(instance));
    gst_base_transform_set_in_place(GST_BASE_TRANSFORM(instance), TRUE);
  }

 private:
  static void set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
    set_locked_property(object, Table(), *self(object)->settings, id, value, pspec);
  }

  static void get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
    if constexpr (has_stats<Logic>(0)) {
      if (id == Table().size() + 1) {
        g_value_take_boxed(value, impl(object).stats_structure());  // takes its own locks
        return;
      }
    }
    get_locked_property(object, Table(), *self(object)->settings, id, value, pspec);
  }

  static void finalize(GObject* object) {
    destroy_member(self(object)->impl);
    destroy_member(self(object)->settings);
    G_OBJECT_CLASS(base_transform_class())->finalize(object);  // the direct parent of all five
  }

  template <class L>
  static constexpr auto has_stats(int)
      -> decltype(std::declval<const L&>().stats_structure(), true) {
    return true;
  }
  template <class L>
  static constexpr bool has_stats(...) {
    return false;
  }
};

}  // namespace yolo::gst
