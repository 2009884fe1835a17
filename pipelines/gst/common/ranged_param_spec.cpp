#include "ranged_param_spec.h"

namespace yolo::gst {
namespace {

// "Nothing to change" and "valid": the element checks the range.
gboolean accept_any_value(GParamSpec*, GValue*) {
  return FALSE;
}
#if GLIB_CHECK_VERSION(2, 74, 0)
gboolean any_value_is_valid(GParamSpec*, const GValue*) {
  return TRUE;
}
#endif

void lenient_class_init(gpointer klass, gpointer) {
  auto* c = static_cast<GParamSpecClass*>(klass);
  c->value_validate = accept_any_value;
#if GLIB_CHECK_VERSION(2, 74, 0)
  c->value_is_valid = any_value_is_valid;  // GLib >= 2.74 asks this before value_validate
#endif
}

// A subtype of GLib's `parent` spec type (G_TYPE_PARAM_UINT, _INT, _DOUBLE) that accepts any value.
// Registered once per type name: the type system is process-wide, and a plugin may be loaded
// by a process that already registered it.
GType lenient_type(GType parent, const char* name) {
  GType type = g_type_from_name(name);
  if (type) return type;
  GTypeQuery q;
  g_type_query(parent, &q);
  GTypeInfo info{};
  info.class_size = static_cast<guint16>(q.class_size);
  info.class_init = lenient_class_init;
  info.instance_size = static_cast<guint16>(q.instance_size);
  return g_type_register_static(parent, name, &info, GTypeFlags(0));
}

// A spec of `type` (a subtype of GLib's spec struct `Spec`) with GLib's own range fields set.
template <class Spec, class T>
GParamSpec* make(GType type, const char* name, const char* nick, const char* blurb, T lo, T hi,
                 T default_value, GParamFlags flags) {
  GParamSpec* spec =
      static_cast<GParamSpec*>(g_param_spec_internal(type, name, nick, blurb, flags));
  Spec* p = reinterpret_cast<Spec*>(spec);  // the subtype adds no fields to GLib's struct
  p->minimum = lo;
  p->maximum = hi;
  p->default_value = default_value;
  return spec;
}

}  // namespace

// Function-local statics: each type is registered once, by the first class_init that asks.
GParamSpec* ranged_uint_spec(const char* name, const char* nick, const char* blurb, guint lo,
                             guint hi, guint default_value, GParamFlags flags) {
  static const GType type = lenient_type(G_TYPE_PARAM_UINT, "YoloRangedParamUInt");
  return make<GParamSpecUInt>(type, name, nick, blurb, lo, hi, default_value, flags);
}

GParamSpec* ranged_int_spec(const char* name, const char* nick, const char* blurb, gint lo, gint hi,
                            gint default_value, GParamFlags flags) {
  static const GType type = lenient_type(G_TYPE_PARAM_INT, "YoloRangedParamInt");
  return make<GParamSpecInt>(type, name, nick, blurb, lo, hi, default_value, flags);
}

GParamSpec* ranged_double_spec(const char* name, const char* nick, const char* blurb, double lo,
                               double hi, double default_value, GParamFlags flags) {
  static const GType type = lenient_type(G_TYPE_PARAM_DOUBLE, "YoloRangedParamDouble");
  return make<GParamSpecDouble>(type, name, nick, blurb, lo, hi, default_value, flags);
}

}  // namespace yolo::gst
