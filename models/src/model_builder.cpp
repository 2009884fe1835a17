// The YAML-to-network builder, as Ultralytics' parse_model: one YAML row, one module, built by
// the function that the table kinds() (at the bottom) names for the row's module.
//
// Adding a kind of module (a new layer, or one a new YOLO version's YAML uses):
//   1. write `int64_t build_<kind>(Row& row)` next to its kin below. It reads the row's arguments
//      from row.args in the YAML's order, with Ultralytics' defaults; sets row.make to a function
//      that constructs one instance and row.summary to the resolved arguments the model summary
//      shows; and returns the module's output channels. A kind whose one input goes through and
//      whose first argument is its output channels (Conv, C2f, ...) gets them, scaled by the
//      model's width, from base_out_channels(row); a kind that repeats its blocks itself (C2f, ...)
//      takes the depth-scaled repeat count with take_repeats(row); otherwise a row with repeats
//      > 1 becomes that many copies in a Sequential (`model.<i>.0`, `model.<i>.1`, ...).
//   2. add {"<module name in the YAML>", build_<kind>} to kinds().
// Names of submodules are state-dict keys that Ultralytics' weights are loaded by: the module's
// children must carry the names Ultralytics gives them.
#include "model_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "yolo/models/nn/block.h"
#include "yolo/models/nn/containers.h"

namespace yolo {
namespace {

using nn::Layer;

// Python's round(): half to even.
int64_t round_half_even(double v) {
  return static_cast<int64_t>(std::nearbyint(v));
}

int64_t make_divisible(double x, int64_t divisor) {
  return static_cast<int64_t>(std::ceil(x / divisor)) * divisor;
}

// Reads one YAML layer argument: numbers, True/False, None, and `nc`.
class Args {
 public:
  Args(const YAML::Node& node, int nc, std::string where)
      : node_(node), nc_(nc), where_(std::move(where)) {}

  size_t size() const { return node_.size(); }
  bool has(size_t i) const { return i < node_.size() && !is_none(i); }

  int64_t integer(size_t i, int64_t fallback) const {
    if (!has(i)) return fallback;
    const std::string s = node_[i].Scalar();
    if (s == "nc") return nc_;
    try {
      return node_[i].as<int64_t>();
    } catch (const YAML::Exception&) {
      throw ModelError(fmt::format("{}: argument {} must be an integer, got '{}'", where_, i, s));
    }
  }
  double real(size_t i, double fallback) const {
    if (!has(i)) return fallback;
    try {
      return node_[i].as<double>();
    } catch (const YAML::Exception&) {
      throw ModelError(
          fmt::format("{}: argument {} must be a number, got '{}'", where_, i, node_[i].Scalar()));
    }
  }
  bool boolean(size_t i, bool fallback) const {
    if (!has(i)) return fallback;
    const std::string s = node_[i].Scalar();
    if (s == "True" || s == "true") return true;
    if (s == "False" || s == "false") return false;
    throw ModelError(fmt::format("{}: argument {} must be True or False, got '{}'", where_, i, s));
  }

 private:
  bool is_none(size_t i) const {
    const auto& n = node_[i];
    return n.IsNull() || (n.IsScalar() && (n.Scalar() == "None" || n.Scalar() == "null"));
  }
  YAML::Node node_;
  int nc_;
  std::string where_;
};

std::string join_ints(const std::vector<int64_t>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));
}

// One YAML row as its kind's function sees it, and what that function fills in.
struct Row {
  const ModelConfig& config;
  const Args& args;          // the row's arguments, as written
  const std::string& where;  // "<source>: layer <i> (<module>)", to start error messages
  std::vector<int64_t> in;   // input channels, one per `from` entry
  int64_t n;                 // repeats after depth scaling: copies of the module (see take_repeats)
  bool& legacy;              // no C3k2 in the rows so far: Detect keeps YOLOv8's class branch
  // Filled in by the kind's function:
  std::function<std::shared_ptr<Layer>()> make;  // constructs one instance
  std::vector<int64_t> summary;                  // resolved arguments, for the model summary
};

// Output channels of a kind with one input whose first argument is its output channels: scaled
// by the model's width (after capping at max_channels), unless they are the class count.
int64_t base_out_channels(const Row& row) {
  if (row.in.size() != 1) throw ModelError(row.where + ": takes exactly one input");
  int64_t c2 = row.args.integer(0, -1);
  if (c2 < 1)
    throw ModelError(fmt::format("{}: first argument (output channels) must be >= 1", row.where));
  if (c2 != row.config.nc) {
    c2 = make_divisible(std::min<double>(c2, row.config.max_channels) * row.config.width, 8);
  }
  return c2;
}

// For kinds that repeat their blocks themselves: the repeat count, which the row then no longer
// makes copies of.
int64_t take_repeats(Row& row) {
  const int64_t n = row.n;
  row.n = 1;
  return n;
}

// ---- Kinds: [c2, args...] with one input ----

int64_t build_conv(Row& row) {  // Conv [c2, k, s, p, g, d, act]
  const int64_t c2 = base_out_channels(row), c1 = row.in[0];
  const Args& a = row.args;
  const int64_t k = a.integer(1, 1), s = a.integer(2, 1), p = a.integer(3, -1), g = a.integer(4, 1),
                d = a.integer(5, 1);
  const bool act = a.boolean(6, true);
  row.summary = {c1, c2, k, s};
  row.make = [=] { return std::make_shared<nn::ConvImpl>(c1, c2, k, s, p, g, d, act); };
  return c2;
}

int64_t build_dwconv(Row& row) {  // DWConv [c2, k, s, d, act]
  const int64_t c2 = base_out_channels(row), c1 = row.in[0];
  const Args& a = row.args;
  const int64_t k = a.integer(1, 1), s = a.integer(2, 1), d = a.integer(3, 1);
  const bool act = a.boolean(4, true);
  row.summary = {c1, c2, k, s};
  row.make = [=] { return nn::make_dwconv(c1, c2, k, s, d, act); };
  return c2;
}

int64_t build_bottleneck(Row& row) {  // Bottleneck [c2, shortcut, g, e]
  const int64_t c2 = base_out_channels(row), c1 = row.in[0];
  const bool sc = row.args.boolean(1, true);
  const int64_t g = row.args.integer(2, 1);
  const double e = row.args.real(3, 0.5);
  row.summary = {c1, c2};
  row.make = [=] { return std::make_shared<nn::BottleneckImpl>(c1, c2, sc, g, 3, 3, e); };
  return c2;
}

int64_t build_c2f(Row& row) {  // C2f [c2, shortcut, g, e]
  const int64_t c2 = base_out_channels(row), c1 = row.in[0], n = take_repeats(row);
  const bool sc = row.args.boolean(1, false);
  const int64_t g = row.args.integer(2, 1);
  const double e = row.args.real(3, 0.5);
  row.summary = {c1, c2, n, sc};
  row.make = [=] { return std::make_shared<nn::C2fImpl>(c1, c2, n, sc, g, e); };
  return c2;
}

// C3 [c2, shortcut, g, e] and C3k [c2, shortcut, g, e, k] (C3 without k: its 1x3/3x1 blocks).
int64_t build_c3_or_c3k(Row& row, bool is_c3k) {
  const int64_t c2 = base_out_channels(row), c1 = row.in[0], n = take_repeats(row);
  const bool sc = row.args.boolean(1, true);
  const int64_t g = row.args.integer(2, 1);
  const double e = row.args.real(3, 0.5);
  const int64_t k = is_c3k ? row.args.integer(4, 3) : -1;
  row.summary = {c1, c2, n, sc};
  row.make = [=] { return std::make_shared<nn::C3Impl>(c1, c2, n, sc, g, e, k); };
  return c2;
}
int64_t build_c3(Row& row) {
  return build_c3_or_c3k(row, false);
}
int64_t build_c3k(Row& row) {
  return build_c3_or_c3k(row, true);
}

int64_t build_c3k2(Row& row) {  // C3k2 [c2, c3k, e, attn, g, shortcut]
  const int64_t c2 = base_out_channels(row), c1 = row.in[0], n = take_repeats(row);
  const Args& a = row.args;
  row.legacy = false;
  // Ultralytics forces c3k blocks at the m/l/x scales.
  const std::string& scale = row.config.scale;
  const bool c3k = a.boolean(1, false) || scale == "m" || scale == "l" || scale == "x";
  const double e = a.real(2, 0.5);
  const bool attn = a.boolean(3, false);
  const int64_t g = a.integer(4, 1);
  const bool sc = a.boolean(5, true);
  row.summary = {c1, c2, n, c3k, static_cast<int64_t>(e * 100), attn};
  row.make = [=] { return std::make_shared<nn::C3k2Impl>(c1, c2, n, c3k, e, attn, g, sc); };
  return c2;
}

int64_t build_sppf(Row& row) {  // SPPF [c2, k, n, shortcut, cv1_act]
  const int64_t c2 = base_out_channels(row), c1 = row.in[0];
  const Args& a = row.args;
  const int64_t k = a.integer(1, 5), pools = a.integer(2, 3);
  const bool sc = a.boolean(3, false);
  // Two-argument SPPF lines are the pre-8.4 signature whose released weights use SiLU
  // before the pools; the 8.4 form (with n/shortcut) is linear. A 5th arg sets it.
  const bool cv1_act = a.boolean(4, a.size() <= 2);
  row.summary = {c1, c2, k, pools, sc};
  row.make = [=] { return std::make_shared<nn::SPPFImpl>(c1, c2, k, pools, sc, cv1_act); };
  return c2;
}

int64_t build_c2psa(Row& row) {  // C2PSA [c2, e]
  const int64_t c2 = base_out_channels(row), c1 = row.in[0], n = take_repeats(row);
  const double e = row.args.real(1, 0.5);
  if (c1 != c2) {
    throw ModelError(fmt::format("{}: C2PSA needs output channels equal to its input ({}), got {}",
                                 row.where, c1, c2));
  }
  row.summary = {c1, c2, n};
  row.make = [=] { return std::make_shared<nn::C2PSAImpl>(c1, c2, n, e); };
  return c2;
}

// ---- Kinds without weights, and the head ----

int64_t build_concat(Row& row) {  // Concat [dim]: channels of all inputs
  const int64_t dim = row.args.integer(0, 1);
  int64_t c2 = 0;
  for (int64_t c : row.in) c2 += c;
  row.summary = {dim};
  row.make = [=] { return std::make_shared<nn::ConcatImpl>(dim); };
  return c2;
}

int64_t build_upsample(Row& row) {  // nn.Upsample [size (None), scale, mode ("nearest")]
  const double scale = row.args.real(1, 2.0);
  row.summary = {static_cast<int64_t>(scale)};
  row.make = [=] { return std::make_shared<nn::UpsampleImpl>(scale); };
  return row.in[0];
}

int64_t build_detect(Row& row) {  // Detect [nc]: one input per level; one copy whatever repeats
  const std::vector<int64_t> chs = row.in;
  const int64_t nc = row.args.integer(0, row.config.nc), reg_max = row.config.reg_max;
  const bool end2end = row.config.end2end, legacy = row.legacy;
  row.summary = {nc, reg_max, end2end};
  row.summary.insert(row.summary.end(), chs.begin(), chs.end());
  const int64_t cls_hidden = row.config.cls_hidden;
  row.make = [=] {
    return std::make_shared<nn::DetectImpl>(nc, reg_max, end2end, chs, legacy, cls_hidden);
  };
  row.n = 1;
  return row.in[0];
}

// ---- The table ----

using BuildKind = int64_t (*)(Row&);

// Module name as the YAML writes it -> the function that builds it. (A std::map: an unknown
// module's error lists the names in its order.)
const std::map<std::string, BuildKind>& kinds() {
  static const std::map<std::string, BuildKind> table = {
      {"Conv", build_conv},
      {"DWConv", build_dwconv},
      {"Bottleneck", build_bottleneck},
      {"C2f", build_c2f},
      {"C3", build_c3},
      {"C3k", build_c3k},
      {"C3k2", build_c3k2},
      {"SPPF", build_sppf},
      {"C2PSA", build_c2psa},
      {"Concat", build_concat},
      {"nn.Upsample", build_upsample},
      {"Upsample", build_upsample},
      {"Detect", build_detect},
  };
  return table;
}

// ---- One row ----

BuildKind find_kind(const std::string& module, const std::string& where) {
  const auto& table = kinds();
  const auto it = table.find(module);
  if (it != table.end()) return it->second;
  std::vector<std::string> names;
  for (const auto& kind : table) names.push_back(kind.first);
  throw ModelError(
      fmt::format("{}: unknown module '{}'; supported: {}", where, module, fmt::join(names, ", ")));
}

// Row i's `from` as absolute layer indices (-1 = the previous layer or, for layer 0, the input).
std::vector<int> resolve_from(const std::vector<int>& from_as_written, int i,
                              const std::string& where) {
  std::vector<int> from;
  for (int f : from_as_written) {
    const int abs = f < 0 ? i + f : f;
    if (abs < -1 || abs >= i) {
      throw ModelError(fmt::format("{}: 'from' index {} does not name an earlier layer", where, f));
    }
    from.push_back(f == -1 ? -1 : abs);
  }
  return from;
}

// Detect is the last row, and only the last.
void check_head_position(const std::string& module, bool last, const std::string& where) {
  if (module == "Detect" && !last) {
    throw ModelError(fmt::format("{}: Detect must be the last layer", where));
  }
  if (last && module != "Detect") {
    throw ModelError(fmt::format("{}: the last layer must be Detect", where));
  }
}

// The row's module (n > 1: n copies in a Sequential); failures other than ModelError (a torch
// error from a constructor) are reported as "cannot build" for the row.
std::shared_ptr<Layer> build_row(BuildKind build, Row& row, int64_t& out_channels) {
  try {
    out_channels = build(row);
    if (row.n <= 1) return row.make();
    auto seq = std::make_shared<nn::SequentialImpl>();
    for (int64_t r = 0; r < row.n; ++r) seq->push_back(row.make());
    return seq;
  } catch (const ModelError&) {
    throw;
  } catch (const std::exception& e) {
    throw ModelError(fmt::format("{}: cannot build: {}", row.where, e.what()));
  }
}

}  // namespace

BuiltLayers parse_model(const ModelConfig& config) {
  if (config.layers.empty()) throw ModelError(config.source + ": no backbone/head layers");
  BuiltLayers out;
  std::vector<int64_t> ch{config.channels};  // ch[i + 1] = output channels of layer i
  bool legacy = true;
  const int n_layers = static_cast<int>(config.layers.size());
  for (int i = 0; i < n_layers; ++i) {
    const LayerSpec& spec = config.layers[i];
    const std::string where = fmt::format("{}: layer {} ({})", config.source, i, spec.module);
    const BuildKind build = find_kind(spec.module, where);
    std::vector<int> from = resolve_from(spec.from, i, where);
    check_head_position(spec.module, i == n_layers - 1, where);

    const int64_t n = spec.repeats > 1
                          ? std::max<int64_t>(round_half_even(spec.repeats * config.depth), 1)
                          : spec.repeats;
    const Args args(spec.args, config.nc, where);
    Row row{config, args, where, {}, n, legacy, {}, {}};
    for (int f : from) row.in.push_back(ch.at(static_cast<size_t>(f == -1 ? i : f + 1)));
    int64_t c2 = 0;
    out.layers.push_back(build_row(build, row, c2));

    ch.push_back(c2);
    out.from.push_back(std::move(from));
    out.infos.push_back(
        {i, spec.from,
         static_cast<int>(spec.repeats > 1 ? round_half_even(spec.repeats * config.depth) : 1),
         spec.module == "Upsample" ? "nn.Upsample" : spec.module, join_ints(row.summary), c2});
  }
  return out;
}

}  // namespace yolo
