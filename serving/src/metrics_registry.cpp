#include "yolo/serving/metrics_registry.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace yolo {
namespace {

bool valid_name(const std::string& s, bool colon_allowed) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon_allowed && c == ':');
    const bool digit = c >= '0' && c <= '9';
    if (!(alpha || (i > 0 && digit))) return false;
  }
  return true;
}

const char* type_name(MetricType t) {
  switch (t) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

// Prometheus' float syntax: Go's ParseFloat plus +Inf, -Inf and NaN spelled that way.
std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

std::string escape(const std::string& s, bool quotes) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quotes && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

// {a="x",b="y"} plus an optional trailing le="..." pair; empty when there are no pairs.
std::string label_block(const std::vector<std::string>& names,
                        const std::vector<std::string>& values, const std::string& le = {}) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += out.empty() ? "{" : ",";
    out += fmt::format("{}=\"{}\"", names[i], escape(values[i], true));
  }
  if (!le.empty()) out += fmt::format("{}le=\"{}\"", out.empty() ? "{" : ",", le);
  if (!out.empty()) out += "}";
  return out;
}

}  // namespace

MetricsRegistry::CollectorHandle::CollectorHandle(CollectorHandle&& other) noexcept
    : registry_(other.registry_), id_(other.id_) {
  other.registry_ = nullptr;
}

MetricsRegistry::CollectorHandle& MetricsRegistry::CollectorHandle::operator=(
    CollectorHandle&& other) noexcept {
  if (this != &other) {
    reset();
    registry_ = other.registry_;
    id_ = other.id_;
    other.registry_ = nullptr;
  }
  return *this;
}

void MetricsRegistry::CollectorHandle::reset() {
  if (registry_) registry_->remove_collector(id_);
  registry_ = nullptr;
}

MetricsRegistry::MetricsRegistry(size_t max_series_per_family)
    : max_series_per_family_(std::max<size_t>(1, max_series_per_family)) {}

void MetricsRegistry::declare(const std::string& name, MetricType type, const std::string& help,
                              std::vector<std::string> label_names, std::vector<double> buckets) {
  if (!valid_name(name, true)) {
    throw std::invalid_argument(
        fmt::format("metrics: invalid metric name '{}' (use letters, digits, '_' and ':')", name));
  }
  for (const auto& l : label_names) {
    if (!valid_name(l, false) || l == "le" || l.rfind("__", 0) == 0) {
      throw std::invalid_argument(fmt::format(
          "metrics: invalid label name '{}' for '{}' (letters, digits, '_'; not 'le' or '__*')", l,
          name));
    }
  }
  if (type == MetricType::kHistogram) {
    const bool increasing = std::adjacent_find(buckets.begin(), buckets.end(),
                                               std::greater_equal<double>()) == buckets.end();
    const bool finite =
        std::all_of(buckets.begin(), buckets.end(), [](double b) { return std::isfinite(b); });
    if (buckets.empty() || !increasing || !finite) {
      throw std::invalid_argument(fmt::format(
          "metrics: histogram '{}' needs finite, strictly increasing bucket bounds", name));
    }
  } else if (!buckets.empty()) {
    throw std::invalid_argument(fmt::format("metrics: '{}' is not a histogram, no buckets", name));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = families_.find(name);
  if (it != families_.end()) {
    const Family& f = it->second;
    if (f.type != type || f.label_names != label_names || f.buckets != buckets) {
      throw std::invalid_argument(
          fmt::format("metrics: '{}' is already declared as a {} with other labels or buckets",
                      name, type_name(f.type)));
    }
    return;
  }
  families_.emplace(name, Family{type, help, std::move(label_names), std::move(buckets), {}});
}

MetricsRegistry::Series* MetricsRegistry::series_for(const std::string& name, MetricType wanted,
                                                     const std::vector<std::string>& label_values,
                                                     const char* operation) {
  auto it = families_.find(name);
  if (it == families_.end()) {
    throw std::invalid_argument(
        fmt::format("metrics: '{}' is not declared (declare it before {})", name, operation));
  }
  Family& f = it->second;
  const bool type_ok = f.type == wanted || (wanted == MetricType::kGauge &&
                                            f.type == MetricType::kCounter);  // add/set on counters
  if (!type_ok) {
    throw std::invalid_argument(
        fmt::format("metrics: {} on '{}', which is a {}", operation, name, type_name(f.type)));
  }
  if (label_values.size() != f.label_names.size()) {
    throw std::invalid_argument(fmt::format("metrics: '{}' has {} labels, {} values given", name,
                                            f.label_names.size(), label_values.size()));
  }
  auto s = f.series.find(label_values);
  if (s != f.series.end()) return &s->second;
  if (f.series.size() >= max_series_per_family_) {
    if (!f.warned_full) {
      spdlog::warn("metrics: '{}' already has {} series (the maximum); new label values dropped",
                   name, max_series_per_family_);
      f.warned_full = true;
    }
    return nullptr;
  }
  Series fresh;
  if (f.type == MetricType::kHistogram) fresh.bucket_count.assign(f.buckets.size() + 1, 0);
  return &f.series.emplace(label_values, std::move(fresh)).first->second;
}

void MetricsRegistry::add(const std::string& name, const std::vector<std::string>& label_values,
                          double delta) {
  std::lock_guard<std::mutex> lock(mutex_);
  Series* s = series_for(name, MetricType::kGauge, label_values, "add()");
  if (families_.at(name).type == MetricType::kCounter && delta < 0) {
    throw std::invalid_argument(fmt::format("metrics: counter '{}' cannot decrease", name));
  }
  if (s) s->value += delta;
}

void MetricsRegistry::set(const std::string& name, const std::vector<std::string>& label_values,
                          double value) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Series* s = series_for(name, MetricType::kGauge, label_values, "set()")) s->value = value;
}

void MetricsRegistry::observe(const std::string& name, const std::vector<std::string>& label_values,
                              double value) {
  std::lock_guard<std::mutex> lock(mutex_);
  Series* s = series_for(name, MetricType::kHistogram, label_values, "observe()");
  if (!s) return;
  const auto& bounds = families_.at(name).buckets;
  // Bucket i counts bounds[i-1] < value <= bounds[i]; the last one is +Inf (and NaN).
  const size_t bucket =
      std::isnan(value)
          ? bounds.size()
          : static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), value) -
                                bounds.begin());
  ++s->bucket_count[bucket];
  s->sum += value;
  ++s->count;
}

void MetricsRegistry::remove_series(const std::string& label_name, const std::string& label_value) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [name, f] : families_) {
    auto pos = std::find(f.label_names.begin(), f.label_names.end(), label_name);
    if (pos == f.label_names.end()) continue;
    const auto index = static_cast<size_t>(pos - f.label_names.begin());
    for (auto s = f.series.begin(); s != f.series.end();) {
      s = s->first[index] == label_value ? f.series.erase(s) : std::next(s);
    }
  }
}

MetricsRegistry::CollectorHandle MetricsRegistry::add_collector(Collector collector) {
  std::lock_guard<std::mutex> lock(collectors_mutex_);
  const uint64_t id = next_collector_id_++;
  collectors_.emplace(id, std::move(collector));
  return CollectorHandle(this, id);
}

void MetricsRegistry::remove_collector(uint64_t id) {
  std::lock_guard<std::mutex> lock(collectors_mutex_);
  collectors_.erase(id);
}

std::string MetricsRegistry::render() {
  {
    std::lock_guard<std::mutex> lock(collectors_mutex_);
    for (auto& [id, collect] : collectors_) {
      // One broken source must not take the whole scrape down; its values just go stale.
      try {
        collect(*this);
      } catch (const std::exception& e) {
        spdlog::warn("metrics: collector {} failed: {}", id, e.what());
      }
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (const auto& [name, f] : families_) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escape(f.help, false), name,
                       type_name(f.type));
    for (const auto& [values, s] : f.series) {
      if (f.type != MetricType::kHistogram) {
        out += fmt::format("{}{} {}\n", name, label_block(f.label_names, values),
                           format_value(s.value));
        continue;
      }
      uint64_t cumulative = 0;
      for (size_t b = 0; b < s.bucket_count.size(); ++b) {
        cumulative += s.bucket_count[b];
        const std::string le = b < f.buckets.size() ? format_value(f.buckets[b]) : "+Inf";
        out += fmt::format("{}_bucket{} {}\n", name, label_block(f.label_names, values, le),
                           cumulative);
      }
      const std::string labels = label_block(f.label_names, values);
      out += fmt::format("{}_sum{} {}\n{}_count{} {}\n", name, labels, format_value(s.sum), name,
                         labels, s.count);
    }
  }
  return out;
}

}  // namespace yolo
