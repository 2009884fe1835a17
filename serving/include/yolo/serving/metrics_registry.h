// A small thread-safe metrics registry: counters, gauges and histograms grouped in families with
// fixed label names, rendered in the Prometheus text exposition format (version 0.0.4).
//
// Two ways to feed it:
//   push  producers call add()/set()/observe() from any thread as things happen;
//   pull  a component that already keeps its own counters (the DynamicBatcher) registers a
//         collector, which copies its values in with set() just before every render().
// Memory is bounded: a family keeps at most max_series_per_family label combinations; updates
// that would create more are dropped (one warning per family).
//
// Error policy: misuse (undeclared name, wrong type, wrong number of label values, invalid names)
// is a programming error and throws std::invalid_argument naming the metric.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace yolo {

enum class MetricType { kCounter, kGauge, kHistogram };

class MetricsRegistry {
 public:
  // Called by render() with the registry; sets values with set()/add(). Must not add or remove
  // collectors itself.
  using Collector = std::function<void(MetricsRegistry&)>;

  // Owns one registered collector: destroying (or reset()ting) it unregisters the collector,
  // waiting for a render() that is running it. Destroy it before whatever the collector reads,
  // and before the registry.
  class CollectorHandle {
   public:
    CollectorHandle() = default;
    CollectorHandle(MetricsRegistry* registry, uint64_t id) : registry_(registry), id_(id) {}
    ~CollectorHandle() { reset(); }
    CollectorHandle(CollectorHandle&& other) noexcept;
    CollectorHandle& operator=(CollectorHandle&& other) noexcept;
    CollectorHandle(const CollectorHandle&) = delete;
    CollectorHandle& operator=(const CollectorHandle&) = delete;
    void reset();

   private:
    MetricsRegistry* registry_ = nullptr;
    uint64_t id_ = 0;
  };

  // The Content-Type of render()'s output.
  static constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

  // max_series_per_family >= 1: label combinations kept per family.
  explicit MetricsRegistry(size_t max_series_per_family = 10000);
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Declares a family. name: [a-zA-Z_:][a-zA-Z0-9_:]*; label names: [a-zA-Z_][a-zA-Z0-9_]*, not
  // "le" and not starting with "__"; buckets (histograms only, required): finite, strictly
  // increasing upper bounds (+Inf is implied). Declaring the same family again identically is a
  // no-op, so independent producers can each declare what they feed; a different declaration of
  // an existing name throws.
  void declare(const std::string& name, MetricType type, const std::string& help,
               std::vector<std::string> label_names = {}, std::vector<double> buckets = {});

  // label_values: one per declared label name, in declaration order.
  // add: counter (delta >= 0) or gauge. set: gauge, or a counter mirrored from a cumulative count
  // kept elsewhere (collectors). observe: histogram.
  void add(const std::string& name, const std::vector<std::string>& label_values, double delta = 1);
  void set(const std::string& name, const std::vector<std::string>& label_values, double value);
  void observe(const std::string& name, const std::vector<std::string>& label_values, double value);

  // Drops every series, of every family, whose label `label_name` equals `label_value` (a stream
  // or model that went away).
  void remove_series(const std::string& label_name, const std::string& label_value);

  [[nodiscard]] CollectorHandle add_collector(Collector collector);

  // Runs the collectors, then renders all families (sorted by name; series sorted by labels).
  std::string render();

 private:
  struct Series {
    double value = 0;                    // counter, gauge
    std::vector<uint64_t> bucket_count;  // histogram: per bucket (not cumulative), last is +Inf
    double sum = 0;
    uint64_t count = 0;
  };
  struct Family {
    MetricType type;
    std::string help;
    std::vector<std::string> label_names;
    std::vector<double> buckets;
    std::map<std::vector<std::string>, Series> series;
    bool warned_full = false;
  };
  // The series to update, or nullptr when the family is full. Caller holds mutex_.
  Series* series_for(const std::string& name, MetricType wanted,
                     const std::vector<std::string>& label_values, const char* operation);
  void remove_collector(uint64_t id);

  const size_t max_series_per_family_;
  std::mutex mutex_;  // families_
  std::map<std::string, Family> families_;
  // Held while collectors run, so that unregistering waits for a render using the collector.
  std::mutex collectors_mutex_;
  std::map<uint64_t, Collector> collectors_;
  uint64_t next_collector_id_ = 1;
};

}  // namespace yolo
