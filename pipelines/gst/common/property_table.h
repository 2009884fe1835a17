// An element's properties as one table over a plain settings struct: each row names the property
// (name, nick, blurb), the struct field it reads and writes, its range and when it may change.
// The GParamSpecs, set_property/get_property and the range check are all made from the rows, so a
// property is written once, and its default is the struct's own default value.
//
//   struct Settings { std::string tracker = "botsort.yaml"; bool keep_untracked = false; };
//   const PropertyTable<Settings> table = PropertyTable<Settings>()
//       .text("tracker", "Tracker", "Tracker settings ...", &Settings::tracker, Change::kReady)
//       .flag("keep-untracked", "Keep untracked", "...", &Settings::keep_untracked,
//             Change::kPlaying);
//   table.install(object_class);          // property ids 1..table.size()
//   table.write(settings, id, value);     // in set_property, under the object lock
//
// Numbers: the GParamSpec carries the row's range, which gst-inspect-1.0 shows, but lets every
// value through (ranged_param_spec.h says why); problems() refuses one outside it, naming it.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "ranged_param_spec.h"
#include "yolo/runtime/inference_settings.h"

namespace yolo::gst {

// When a property may change: only in NULL or READY (what start() builds from it), or at any
// time (read for every frame). The GParamSpec carries it as GST_PARAM_MUTABLE_READY/_PLAYING, and
// element_glue.h's may_change_now() refuses a late change of a READY one.
enum class Change { kReady, kPlaying };

// get_property of a text property whose value is empty: "" or NULL.
enum class EmptyText { kEmptyString, kNull };

template <class S>
class PropertyTable {
 public:
  PropertyTable& text(const char* name, const char* nick, const char* blurb, std::string S::*field,
                      Change change, EmptyText empty = EmptyText::kEmptyString) {
    return add(name, nick, blurb, field, change, false, 0, 0, empty);
  }
  // A GstStructure value (a copy is kept; empty = none given).
  PropertyTable& structure(const char* name, const char* nick, const char* blurb,
                           std::shared_ptr<GstStructure> S::*field, Change change) {
    return add(name, nick, blurb, field, change, false, 0, 0);
  }
  PropertyTable& flag(const char* name, const char* nick, const char* blurb, bool S::*field,
                      Change change) {
    return add(name, nick, blurb, field, change, false, 0, 0);
  }
  PropertyTable& count(const char* name, const char* nick, const char* blurb, unsigned S::*field,
                       unsigned lo, unsigned hi, Change change) {
    return add(name, nick, blurb, field, change, true, lo, hi);
  }
  PropertyTable& integer(const char* name, const char* nick, const char* blurb, int S::*field,
                         int lo, int hi, Change change) {
    return add(name, nick, blurb, field, change, true, lo, hi);
  }
  PropertyTable& real(const char* name, const char* nick, const char* blurb, double S::*field,
                      double lo, double hi, Change change) {
    return add(name, nick, blurb, field, change, true, lo, hi);
  }

  // Property ids are 1..size(), in the order of the rows; the next id is free for the element's
  // own (install_stats_property).
  guint size() const { return static_cast<guint>(rows_.size()); }

  // Installs every row's GParamSpec, with a default-constructed S's values as defaults.
  void install(GObjectClass* klass) const {
    const S defaults{};
    guint id = 0;
    for (const Row& r : rows_)
      g_object_class_install_property(klass, ++id, r.ops->spec(r, defaults));
  }

  // Stores `value` in the row's field; false when `id` is not a row of this table.
  bool write(S& s, guint id, const GValue* value) const {
    const Row* r = row(id);
    if (r) r->ops->write(*r, s, value);
    return r != nullptr;
  }

  // Sets `value` from the row's field; false when `id` is not a row of this table.
  bool read(const S& s, guint id, GValue* value) const {
    const Row* r = row(id);
    if (r) r->ops->read(*r, s, value);
    return r != nullptr;
  }

  // One line per number outside its row's range (NaN too), naming the property, the value and
  // the range: "conf-threshold=2 is out of range: use 0 to 1".
  std::vector<std::string> problems(const S& s) const {
    std::vector<std::string> out;
    for (const Row& r : rows_) {
      if (!r.ranged) continue;
      std::string p = range_problem(r.name, r.ops->number(r, s), {r.lo, r.hi});
      if (!p.empty()) out.push_back(std::move(p));
    }
    return out;
  }

 private:
  using Field = std::variant<std::string S::*, bool S::*, unsigned S::*, int S::*, double S::*,
                             std::shared_ptr<GstStructure> S::*>;
  struct Row;
  // What a row does, made for its field's type only (so that no code is made for types a
  // settings struct does not have).
  struct Ops {
    void (*write)(const Row&, S&, const GValue*);
    void (*read)(const Row&, const S&, GValue*);
    GParamSpec* (*spec)(const Row&, const S&);
    double (*number)(const Row&, const S&);
  };
  struct Row {
    std::string name, nick, blurb;
    GParamFlags flags;
    Field field;
    const Ops* ops;
    bool ranged;    // a number row
    double lo, hi;  // its range
    EmptyText empty;
  };

  template <class T>
  PropertyTable& add(const char* name, const char* nick, const char* blurb, T S::*field,
                     Change change, bool ranged, double lo, double hi,
                     EmptyText empty = EmptyText::kEmptyString) {
    const auto flags = static_cast<GParamFlags>(
        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
        (change == Change::kReady ? GST_PARAM_MUTABLE_READY : GST_PARAM_MUTABLE_PLAYING));
    static const Ops ops{&write_as<T>, &read_as<T>, &spec_as<T>, &number_as<T>};
    rows_.push_back({name, nick, blurb, flags, field, &ops, ranged, lo, hi, empty});
    return *this;
  }

  template <class T>
  static void write_as(const Row& r, S& s, const GValue* value) {
    T& f = s.*std::get<T S::*>(r.field);
    if constexpr (std::is_same_v<T, std::string>) {
      const char* text = g_value_get_string(value);
      f = text ? text : "";
    } else if constexpr (std::is_same_v<T, std::shared_ptr<GstStructure>>) {
      auto* copy = static_cast<GstStructure*>(g_value_dup_boxed(value));
      f = copy ? std::shared_ptr<GstStructure>(copy, gst_structure_free) : nullptr;
    } else if constexpr (std::is_same_v<T, bool>) {
      f = g_value_get_boolean(value);
    } else if constexpr (std::is_same_v<T, unsigned>) {
      f = g_value_get_uint(value);
    } else if constexpr (std::is_same_v<T, int>) {
      f = g_value_get_int(value);
    } else {
      f = g_value_get_double(value);
    }
  }

  template <class T>
  static void read_as(const Row& r, const S& s, GValue* value) {
    const T& f = s.*std::get<T S::*>(r.field);
    if constexpr (std::is_same_v<T, std::string>) {
      g_value_set_string(value, f.empty() && r.empty == EmptyText::kNull ? nullptr : f.c_str());
    } else if constexpr (std::is_same_v<T, std::shared_ptr<GstStructure>>) {
      g_value_set_boxed(value, f.get());
    } else if constexpr (std::is_same_v<T, bool>) {
      g_value_set_boolean(value, f);
    } else if constexpr (std::is_same_v<T, unsigned>) {
      g_value_set_uint(value, f);
    } else if constexpr (std::is_same_v<T, int>) {
      g_value_set_int(value, f);
    } else {
      g_value_set_double(value, f);
    }
  }

  template <class T>
  static GParamSpec* spec_as(const Row& r, const S& defaults) {
    const T& d = defaults.*std::get<T S::*>(r.field);
    const char* n = r.name.c_str();
    const char* k = r.nick.c_str();
    const char* b = r.blurb.c_str();
    if constexpr (std::is_same_v<T, std::string>) {
      return g_param_spec_string(
          n, k, b, d.empty() && r.empty == EmptyText::kNull ? nullptr : d.c_str(), r.flags);
    } else if constexpr (std::is_same_v<T, std::shared_ptr<GstStructure>>) {
      return g_param_spec_boxed(n, k, b, GST_TYPE_STRUCTURE, r.flags);
    } else if constexpr (std::is_same_v<T, bool>) {
      return g_param_spec_boolean(n, k, b, d, r.flags);
    } else if constexpr (std::is_same_v<T, unsigned>) {
      return ranged_uint_spec(n, k, b, static_cast<guint>(r.lo), static_cast<guint>(r.hi), d,
                              r.flags);
    } else if constexpr (std::is_same_v<T, int>) {
      return ranged_int_spec(n, k, b, static_cast<gint>(r.lo), static_cast<gint>(r.hi), d, r.flags);
    } else {
      return ranged_double_spec(n, k, b, r.lo, r.hi, d, r.flags);
    }
  }

  template <class T>
  static double number_as(const Row& r, const S& s) {
    if constexpr (std::is_arithmetic_v<T>) {
      return static_cast<double>(s.*std::get<T S::*>(r.field));
    } else {
      return 0;  // not a number row; never asked
    }
  }

  const Row* row(guint id) const {
    return id >= 1 && id <= rows_.size() ? &rows_[id - 1] : nullptr;
  }

  // A deque: the specs keep pointers to the rows' strings (G_PARAM_STATIC_STRINGS), and rows are
  // only ever added at the back, before install().
  std::deque<Row> rows_;
};

}  // namespace yolo::gst
