#include "yolo/monitor/element_spec.h"

#include <fmt/format.h>

#include <type_traits>

#include "yolo/media/media_source.h"

namespace yolo::monitor {

StructureValue::StructureValue(GstStructure* owned)
    : structure_(owned,
                 [](const GstStructure* s) { gst_structure_free(const_cast<GstStructure*>(s)); }) {}

bool StructureValue::operator==(const StructureValue& other) const {
  if (!structure_ || !other.structure_) return structure_ == other.structure_;
  return gst_structure_is_equal(structure_.get(), other.structure_.get());
}

namespace {

// `value` as a GValue of its own type.
void to_gvalue(const ElementSpec::Value& value, GValue* out) {
  std::visit(
      [out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          g_value_init(out, G_TYPE_BOOLEAN);
          g_value_set_boolean(out, v ? TRUE : FALSE);
        } else if constexpr (std::is_same_v<T, int>) {
          g_value_init(out, G_TYPE_INT);
          g_value_set_int(out, v);
        } else if constexpr (std::is_same_v<T, unsigned>) {
          g_value_init(out, G_TYPE_UINT);
          g_value_set_uint(out, v);
        } else if constexpr (std::is_same_v<T, double>) {
          g_value_init(out, G_TYPE_DOUBLE);
          g_value_set_double(out, v);
        } else if constexpr (std::is_same_v<T, StructureValue>) {
          g_value_init(out, GST_TYPE_STRUCTURE);
          g_value_set_boxed(out, v.get());  // copies
        } else {
          g_value_init(out, G_TYPE_STRING);
          g_value_set_string(out, v.c_str());
        }
      },
      value);
}

std::string value_text(const ElementSpec::Value& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return media::quote_gst_value(v);
        } else if constexpr (std::is_same_v<T, StructureValue>) {
          // gst-launch deserialises a structure property from this text.
          gchar* text = gst_structure_to_string(v.get());
          std::string quoted = media::quote_gst_value(text);
          g_free(text);
          return quoted;
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

// Whether a value of type `from` may be set on a property of type `to`: the same type, or one
// number as another (int to guint, double to gfloat, ...). Never a number as text or a truth
// value, which GValue would also convert.
bool convertible(GType from, GType to) {
  if (from == to) return true;
  const auto plain = [](GType t) { return t != G_TYPE_STRING && t != G_TYPE_BOOLEAN; };
  return plain(from) && plain(to) && g_value_type_transformable(from, to);
}

// Sets one property on `element`; the problem, or "" when it is set.
std::string set_property(GstElement* element, const std::string& factory,
                         const ElementSpec::Property& property) {
  const auto& [name, value] = property;
  GParamSpec* pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), name.c_str());
  if (!pspec || !(pspec->flags & G_PARAM_WRITABLE))
    return fmt::format("no property \"{}\" in element \"{}\"", name, factory);
  GValue given = G_VALUE_INIT;
  GValue typed = G_VALUE_INIT;
  to_gvalue(value, &given);
  g_value_init(&typed, G_PARAM_SPEC_VALUE_TYPE(pspec));
  std::string problem;
  if (!convertible(G_VALUE_TYPE(&given), G_VALUE_TYPE(&typed)) ||
      !g_value_transform(&given, &typed)) {
    problem = fmt::format("property \"{}\" of element \"{}\" takes a {}, not a {}", name, factory,
                          g_type_name(G_VALUE_TYPE(&typed)), g_type_name(G_VALUE_TYPE(&given)));
  } else if (g_param_value_validate(pspec, &typed)) {  // true: it had to change the value
    problem = fmt::format("{}={} is outside the range of property \"{}\" of element \"{}\"", name,
                          value_text(value), name, factory);
  } else {
    g_object_set_property(G_OBJECT(element), name.c_str(), &typed);
  }
  g_value_unset(&given);
  g_value_unset(&typed);
  return problem;
}

}  // namespace

const ElementSpec::Value* ElementSpec::find(const std::string& property) const {
  for (const auto& [key, value] : properties) {
    if (key == property) return &value;
  }
  return nullptr;
}

bool ElementSpec::operator==(const ElementSpec& other) const {
  return factory == other.factory && name == other.name && properties == other.properties;
}

std::string to_launch_text(const ElementSpec& element) {
  std::string text = element.factory;
  if (!element.name.empty()) text += " name=" + media::quote_gst_value(element.name);
  for (const auto& [name, value] : element.properties) text += " " + name + "=" + value_text(value);
  return text;
}

std::string to_launch_text(const std::vector<ElementSpec>& elements) {
  std::string text;
  for (const ElementSpec& e : elements) text += (text.empty() ? "" : " ! ") + to_launch_text(e);
  return text;
}

media::GstElementPtr make_element(const ElementSpec& spec, std::string& error) {
  GstElement* made = gst_element_factory_make(spec.factory.c_str(),
                                              spec.name.empty() ? nullptr : spec.name.c_str());
  if (!made) {
    error = fmt::format("no element \"{}\"", spec.factory);
    return nullptr;
  }
  media::GstElementPtr element(GST_ELEMENT(gst_object_ref_sink(made)));
  for (const ElementSpec::Property& property : spec.properties) {
    error = set_property(element.get(), spec.factory, property);
    if (!error.empty()) return nullptr;
  }
  return element;
}

}  // namespace yolo::monitor
