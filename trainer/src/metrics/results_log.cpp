#include "yolo/trainer/metrics/results_log.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

#include "yolo/core/atomic_file.h"

namespace yolo {

std::string ResultsLog::third_loss_name(int reg_max) {
  return reg_max > 1 ? "dfl_loss" : "l1_loss";
}

std::vector<std::string> ResultsLog::columns(size_t groups) const {
  std::vector<std::string> c{"epoch",
                             "time",
                             "train/box_loss",
                             "train/cls_loss",
                             "train/" + third_loss_,
                             "metrics/precision(B)",
                             "metrics/recall(B)",
                             "metrics/mAP50(B)",
                             "metrics/mAP50-95(B)",
                             "val/box_loss",
                             "val/cls_loss",
                             "val/" + third_loss_};
  for (size_t i = 0; i < groups; ++i) c.push_back(fmt::format("lr/pg{}", i));
  return c;
}

std::string ResultsLog::csv() const {
  const size_t groups = rows_.empty() ? 3 : rows_.back().lr.size();
  std::string out = fmt::format("{}\n", fmt::join(columns(groups), ","));
  for (const auto& r : rows_) {
    std::vector<std::string> v{std::to_string(r.epoch), fmt::format("{:.6g}", r.time)};
    for (double x : r.train_loss) v.push_back(fmt::format("{:.6g}", x));
    for (double x : {r.precision, r.recall, r.map50, r.map50_95})
      v.push_back(fmt::format("{:.6g}", x));
    for (double x : r.val_loss) v.push_back(fmt::format("{:.6g}", x));
    for (size_t i = 0; i < groups; ++i)
      v.push_back(fmt::format("{:.6g}", i < r.lr.size() ? r.lr[i] : 0.0));
    out += fmt::format("{}\n", fmt::join(v, ","));
  }
  return out;
}

void ResultsLog::write_csv(const std::filesystem::path& path) const {
  write_file_atomically(path, csv());
}

void ResultsLog::load(const std::filesystem::path& path, int keep_epochs) {
  rows_.clear();
  std::ifstream in(path);
  if (!in) {
    spdlog::warn("resume: {} not found; results.csv restarts at this epoch", path.string());
    return;
  }
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
      try {
        v.push_back(std::stod(cell));
      } catch (const std::exception&) {
        v.clear();
        break;
      }
    }
    if (v.size() < 12) continue;
    ResultsRow r;
    r.epoch = static_cast<int>(v[0]);
    if (r.epoch > keep_epochs) break;
    r.time = v[1];
    for (int k = 0; k < 3; ++k) r.train_loss[k] = v[2 + k], r.val_loss[k] = v[9 + k];
    r.precision = v[5], r.recall = v[6], r.map50 = v[7], r.map50_95 = v[8];
    r.lr.assign(v.begin() + 12, v.end());
    rows_.push_back(r);
  }
}

}  // namespace yolo
