// Scores tracker outputs against MOTChallenge ground truth with the project's MOT metrics
// (yolo/tracking/mot_metrics.h: CLEAR, identity, HOTA), one row per tracker and its ratio to the
// first: the evaluator of the tracking benchmark (docs/benchmarks.md) and of any run a user wants
// to score.
//
//   mot_eval --gt video/gt/gt.txt --tracks runs/detect/track/predictions.jsonl
//            --tracks ultralytics.txt --names ours,ultralytics [--json out.json]
//
// A tracks file is MOTChallenge text, or the JSON lines `yolo-trainer track` writes
// (predictions.jsonl: frame + 1 becomes the MOT frame, detections with a track_id the rows).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "yolo/core/atomic_file.h"
#include "yolo/core/error.h"
#include "yolo/core/main_guard.h"
#include "yolo/tracking/mot_format.h"
#include "yolo/tracking/mot_metrics.h"

namespace fs = std::filesystem;
using namespace yolo::tracking;

namespace {

MotTable read_prediction_lines(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw yolo::FailureError(fmt::format("{}: cannot be read", path.string()));
  MotTable table;
  table.source = path.string();
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("frame") || !j.contains("detections")) {
      throw yolo::FailureError(fmt::format(
          "{}:{}: not a detections JSON line (docs/detections-json.md)", path.string(), line_no));
    }
    for (const auto& d : j["detections"]) {
      if (!d.contains("track_id")) continue;  // untracked boxes have no identity to score
      MotRow r;
      r.frame = j["frame"].get<int>() + 1;
      r.id = d["track_id"].get<int>();
      r.x = d["x1"].get<double>();
      r.y = d["y1"].get<double>();
      r.w = d["x2"].get<double>() - r.x;
      r.h = d["y2"].get<double>() - r.y;
      r.conf = d["confidence"].get<double>();
      r.line = line_no;
      table.rows.push_back(r);
    }
  }
  return table;
}

MotTable read_tracks(const fs::path& path) {
  return path.extension() == ".jsonl" ? read_prediction_lines(path) : read_mot_file(path);
}

nlohmann::json as_json(const SequenceMetrics& m) {
  return {{"MOTA", m.clear.mota},    {"MOTP", m.clear.motp_iou}, {"IDF1", m.identity.idf1},
          {"HOTA", m.hota.hota},     {"DetA", m.hota.det_a},     {"AssA", m.hota.ass_a},
          {"LocA", m.hota.loc_a},    {"IDSW", m.clear.idsw},     {"Frag", m.clear.frag},
          {"FP", m.clear.fp},        {"FN", m.clear.fn},         {"MT", m.clear.mt},
          {"ML", m.clear.ml},        {"recall", m.clear.recall}, {"precision", m.clear.precision},
          {"gt_ids", m.clear.gt_ids}};
}

void print_table(const std::vector<std::string>& names, const std::vector<SequenceMetrics>& all) {
  fmt::print("{:<14} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6}\n", "tracker",
             "MOTA", "IDF1", "HOTA", "DetA", "AssA", "MOTP", "IDSW", "Frag", "FP", "FN");
  for (size_t i = 0; i < all.size(); ++i) {
    const SequenceMetrics& m = all[i];
    fmt::print(
        "{:<14} {:>7.4f} {:>7.4f} {:>7.4f} {:>7.4f} {:>7.4f} {:>7.4f} {:>6} {:>6} {:>6} {:>6}\n",
        names[i], m.clear.mota, m.identity.idf1, m.hota.hota, m.hota.det_a, m.hota.ass_a,
        m.clear.motp_iou, m.clear.idsw, m.clear.frag, m.clear.fp, m.clear.fn);
  }
  auto ratio = [](double a, double b) { return b != 0 ? fmt::format("{:.3f}x", a / b) : "-"; };
  for (size_t i = 1; i < all.size(); ++i) {
    fmt::print("{} / {}: MOTA {}, IDF1 {}, HOTA {}, IDSW {} vs {}\n", names[0], names[i],
               ratio(all[0].clear.mota, all[i].clear.mota),
               ratio(all[0].identity.idf1, all[i].identity.idf1),
               ratio(all[0].hota.hota, all[i].hota.hota), all[0].clear.idsw, all[i].clear.idsw);
  }
}

int run(int argc, char** argv) {
  CLI::App app("MOT metrics (CLEAR, identity, HOTA) of tracker outputs against ground truth");
  std::string gt, json_out, names_text, convention = "motmetrics";
  std::vector<std::string> tracks;
  app.add_option("--gt", gt, "ground truth, MOTChallenge text")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--tracks", tracks, "tracker output: MOTChallenge text or predictions.jsonl")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--names", names_text, "comma-separated names of the --tracks, in order");
  app.add_option("--convention", convention, "CLEAR's conventions: motmetrics or trackeval")
      ->check(CLI::IsMember({"motmetrics", "trackeval"}));
  app.add_option("--json", json_out, "also write the numbers as JSON");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> names;
  for (size_t start = 0; !names_text.empty() && start <= names_text.size();) {
    const size_t comma = names_text.find(',', start);
    names.push_back(names_text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (size_t i = names.size(); i < tracks.size(); ++i) names.push_back(fs::path(tracks[i]).stem());
  MotMetricsOptions options;
  options.convention =
      convention == "trackeval" ? MotConvention::kTrackEval : MotConvention::kMotMetrics;
  const MotTable truth = read_mot_file(gt);
  std::vector<SequenceMetrics> all;
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < tracks.size(); ++i) {
    all.push_back(evaluate_sequence(frames_from_tables(truth, read_tracks(tracks[i])), options));
    j[names[i]] = as_json(all.back());
  }
  print_table(names, all);
  if (!json_out.empty()) yolo::write_file_atomically(json_out, j.dump(2) + "\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
