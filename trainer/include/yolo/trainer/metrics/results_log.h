// results.csv and results.png of a training run: one row per epoch with Ultralytics' columns
// (epoch, time, train losses, P, R, mAP50, mAP50-95, val losses, lr per parameter group). The
// third loss is Ultralytics' `dfl_loss`, or `l1_loss` for heads without DFL (reg_max 1: YOLO26).
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace yolo {

struct ResultsRow {
  int epoch = 0;    // 1-based
  double time = 0;  // seconds since training started
  std::array<double, 3> train_loss{};
  double precision = 0, recall = 0, map50 = 0, map50_95 = 0;
  std::array<double, 3> val_loss{};
  std::vector<double> lr;  // per parameter group
};

class ResultsLog {
 public:
  // reg_max of the model's head: 1 names the third loss l1_loss, as Ultralytics does.
  explicit ResultsLog(int reg_max = 16) : third_loss_(third_loss_name(reg_max)) {}
  // "dfl_loss", or "l1_loss" when reg_max is 1 (no distribution focal loss).
  static std::string third_loss_name(int reg_max);

  void append(const ResultsRow& row) { rows_.push_back(row); }
  const std::vector<ResultsRow>& rows() const { return rows_; }

  // The CSV text: header, then one row per epoch, values as "%.6g".
  std::string csv() const;
  // Writes results.csv atomically.
  void write_csv(const std::filesystem::path& path) const;
  // Reads the rows of epochs < keep_epochs back from an earlier run's results.csv (resume);
  // a missing or unreadable file leaves the log empty with a warning.
  void load(const std::filesystem::path& path, int keep_epochs);
  // results.png: ten panels (train and val losses, P, R, mAP50, mAP50-95) over the epochs, each
  // with the values and a smoothed line.
  void plot(const std::filesystem::path& path) const;

  // Column names for `groups` learning rates.
  std::vector<std::string> columns(size_t groups) const;

 private:
  std::string third_loss_;
  std::vector<ResultsRow> rows_;
};

}  // namespace yolo
