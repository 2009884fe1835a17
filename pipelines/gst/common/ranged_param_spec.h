// Number GParamSpecs that show their real range to gst-inspect-1.0 and g_param_spec_get_*, yet
// let every value of their type through to the element, which refuses an out-of-range one itself
// naming the property and the range (property_table.h's problems()).
//
// Why: GLib checks a value against a plain spec's range before set_property runs. One outside it
// gets a g_warning and is dropped, and the element runs on its default: `yolo conf-threshold=2`
// would detect at 0.25 instead of failing to start. These specs are subtypes of GLib's own
// (G_IS_PARAM_SPEC_DOUBLE holds, minimum/maximum/default are GLib's fields) whose validation
// accepts every value.
#pragma once

#include <glib-object.h>

namespace yolo::gst {

GParamSpec* ranged_uint_spec(const char* name, const char* nick, const char* blurb, guint lo,
                             guint hi, guint default_value, GParamFlags flags);
GParamSpec* ranged_int_spec(const char* name, const char* nick, const char* blurb, gint lo, gint hi,
                            gint default_value, GParamFlags flags);
GParamSpec* ranged_double_spec(const char* name, const char* nick, const char* blurb, double lo,
                               double hi, double default_value, GParamFlags flags);

}  // namespace yolo::gst
