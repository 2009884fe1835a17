// An element that the monitor makes itself, with typed property values: the inference part of
// a stream's pipeline (the `yolo` element with the stream's resolved settings, a `yolotracker`;
// `identity` in tests).
//
// make_element() creates it with gst_element_factory_make() and sets each property on the
// instance as a GValue of the value's own type (g_object_set_property): a model path with quotes
// or spaces, a threshold, a stream id reach the element exactly as configured, with no
// gst-launch text to escape and parse back. to_launch_text() writes the same element as
// gst-launch words, for logs and for running a stream's pipeline by hand.
//
//   ElementSpec yolo{"yolo", "yolo", {{"model", std::string("best.pt")},
//                                     {"conf-threshold", 0.25}, {"batch-size", 4u}}};
//   media::GstElementPtr e = make_element(yolo, error);  // nullptr: `error` says why
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "yolo/media/gst_handles.h"

namespace yolo::monitor {

// A GstStructure property value (GST_TYPE_STRUCTURE), shared and never changed once made; two
// are equal when their structures are (gst_structure_is_equal).
class StructureValue {
 public:
  StructureValue() = default;                    // none
  explicit StructureValue(GstStructure* owned);  // takes ownership
  const GstStructure* get() const { return structure_.get(); }
  bool operator==(const StructureValue& other) const;

 private:
  std::shared_ptr<const GstStructure> structure_;
};

struct ElementSpec {
  // A property value, in the C++ type of the property's GType: bool (gboolean), int (gint),
  // unsigned (guint), double (gdouble), std::string (gchararray), StructureValue (GstStructure).
  // A number may be given for a property of another numeric type (int for guint, double for
  // gfloat: GValue's conversion); text and truth values must match. Write strings as
  // std::string: a bare "text" literal would pick bool.
  using Value = std::variant<bool, int, unsigned, double, std::string, StructureValue>;
  using Property = std::pair<std::string, Value>;

  std::string factory;               // the element factory, e.g. "yolo"
  std::string name;                  // the element's name in the pipeline; "" = GStreamer's
  std::vector<Property> properties;  // set in this order

  // The value given for `property`; nullptr when it is not set.
  const Value* find(const std::string& property) const;
  bool operator==(const ElementSpec& other) const;
  bool operator!=(const ElementSpec& other) const { return !(*this == other); }
};

// "yolo name=yolo model=\"best.pt\" conf-threshold=0.25 ...": strings quoted for gst-launch
// (media::quote_gst_value), numbers as the shortest text that reads back the same.
std::string to_launch_text(const ElementSpec& element);
// The elements' texts joined with " ! "; "" for none.
std::string to_launch_text(const std::vector<ElementSpec>& elements);

// A new element with its properties set, owned by the caller (not floating), or nullptr with
// `error` set: no such element, no such writable property, a value the property's type cannot
// take or that is outside the property's range.
media::GstElementPtr make_element(const ElementSpec& spec, std::string& error);

}  // namespace yolo::monitor
