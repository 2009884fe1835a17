// Same initialisation as Ultralytics (label `parity`; needs the ultralytics package in the test
// Python: tools/install-deps.sh --oracle; skipped without). Training from scratch starts from the
// freshly built model, and the gradient parity test loads *our* weights into Ultralytics, so it
// cannot see an initialisation that differs. Here every parameter and buffer of our yolov8n,
// yolo11n and yolo26n is compared with Ultralytics' freshly built model of the same name
// (tools/parity/ultralytics_init_stats.py): constants (BatchNorm, head biases) exactly, random
// tensors by their range and spread (different generators, same distribution).
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <string>

#include "oracle.h"
#include "yolo/models/detection_model.h"

namespace {

struct Stats {
  int64_t numel = 0;
  double mean = 0, std = 0, min = 0, max = 0;
};

std::map<std::string, Stats> ultralytics_stats(const std::string& yaml, int nc) {
  const nlohmann::json j = yolo::parity::oracle_json("ultralytics_init_stats.py " + yaml + " " +
                                                     std::to_string(nc) + " 0");
  std::map<std::string, Stats> m;
  if (!j.is_object()) return m;
  for (const auto& [name, v] : j.items())
    m[name] = {v[0].get<int64_t>(), v[1].get<double>(), v[2].get<double>(), v[3].get<double>(),
               v[4].get<double>()};
  return m;
}

Stats stats_of(const torch::Tensor& t) {
  const torch::Tensor f = t.detach().to(torch::kFloat64).flatten();
  return {f.numel(), f.mean().item<double>(), f.numel() > 1 ? f.std().item<double>() : 0.0,
          f.min().item<double>(), f.max().item<double>()};
}

class InitParity : public ::testing::TestWithParam<std::string> {};

TEST_P(InitParity, EveryTensorStartsAsInUltralytics) {
  YOLO_REQUIRE_ORACLE();
  const std::string yaml = GetParam();
  const int nc = 3;
  const std::map<std::string, Stats> theirs = ultralytics_stats(yaml, nc);
  ASSERT_FALSE(theirs.empty()) << "Ultralytics did not build " << yaml;
  torch::manual_seed(0);
  auto model = yolo::build_model(yaml, nc);
  std::map<std::string, Stats> ours;
  for (const auto& p : model->named_parameters()) ours[p.key()] = stats_of(p.value());
  for (const auto& b : model->named_buffers())
    if (b.value().numel() > 0) ours[b.key()] = stats_of(b.value());

  int compared = 0;
  for (const auto& [name, u] : theirs) {
    const auto it = ours.find(name);
    if (it == ours.end()) {
      ADD_FAILURE() << name << " is in Ultralytics' model but not in ours";
      continue;
    }
    const Stats& o = it->second;
    ASSERT_EQ(o.numel, u.numel) << name;
    ++compared;
    if (u.std == 0) {  // a constant: BatchNorm weight/bias/statistics, head biases, DFL weights
      EXPECT_NEAR(o.min, u.min, 1e-6 * std::max(1.0, std::abs(u.min))) << name << " (constant)";
      EXPECT_NEAR(o.max, u.max, 1e-6 * std::max(1.0, std::abs(u.max))) << name << " (constant)";
      continue;
    }
    if (u.numel < 16) continue;  // too few draws to say much about a distribution
    // Uniform(-b, b) (PyTorch's default for convolutions): the range is b, the spread b/sqrt(3).
    const double spread_tol = 0.1 + 3.0 / std::sqrt(static_cast<double>(u.numel));
    EXPECT_NEAR(o.std / u.std, 1.0, spread_tol)
        << name << " spread ours " << o.std << " vs " << u.std;
    const double range_o = std::max(-o.min, o.max), range_u = std::max(-u.min, u.max);
    EXPECT_NEAR(range_o / range_u, 1.0, spread_tol)
        << name << " range ours " << range_o << " vs " << range_u;
    EXPECT_NEAR(o.mean, u.mean,
                5 * std::sqrt(2.0) * u.std / std::sqrt(static_cast<double>(u.numel)) + 1e-6)
        << name << " mean";
  }
  for (const auto& [name, o] : ours)
    if (!theirs.count(name) && name.find("num_batches_tracked") == std::string::npos)
      ADD_FAILURE() << name << " is in our model but not in Ultralytics'";
  EXPECT_GT(compared, 100);
}

INSTANTIATE_TEST_SUITE_P(Families, InitParity,
                         ::testing::Values("yolov8n.yaml", "yolo11n.yaml", "yolo26n.yaml"),
                         [](const auto& test_param) {
                           return test_param.param.substr(0, test_param.param.find('.'));
                         });

}  // namespace
