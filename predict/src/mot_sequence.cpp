#include "mot_sequence.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

#include "yolo/core/error.h"

namespace yolo::predict {

void MotSequence::add(const std::string& image_path, const std::vector<Detection>& tracked) {
  ++frames_;
  const std::string stem = std::filesystem::path(image_path).stem().string();
  int frame = frames_;
  if (!stem.empty() && stem.size() < 10 &&
      std::all_of(stem.begin(), stem.end(), [](unsigned char c) { return std::isdigit(c); })) {
    frame = std::stoi(stem);
    // MOTChallenge numbers frames from 1; frames saved by a counter that starts at 0 (000000.jpg)
    // are shifted by one, the whole sequence alike, and the log says so once.
    if (frames_ == 1 && frame == 0) {
      first_is_zero_ = true;
      spdlog::info(
          "{}: frames are numbered from 0; MOTChallenge rows number them from 1 (file "
          "number + 1)",
          std::filesystem::path(image_path).parent_path().string());
    }
    if (first_is_zero_) ++frame;
  }
  frame_numbers_.insert(frame);
  for (const Detection& d : tracked) {
    if (d.track_id <= 0) continue;
    tracking::MotRow r;
    r.frame = frame;
    r.id = static_cast<int>(d.track_id);
    r.x = d.x1;
    r.y = d.y1;
    r.w = d.x2 - d.x1;
    r.h = d.y2 - d.y1;
    r.conf = d.confidence;
    rows_.push_back(r);
  }
}

void MotSequence::write(const std::filesystem::path& path) const {
  std::filesystem::create_directories(path.parent_path());
  tracking::write_mot_file(path, rows_);
}

tracking::SequenceMetrics score_mot_sequence(tracking::MotTable gt,
                                             const tracking::MotTable& tracks) {
  gt.rows.erase(std::remove_if(gt.rows.begin(), gt.rows.end(),
                               [](const tracking::MotRow& r) { return r.conf == 0.0; }),
                gt.rows.end());
  tracking::MotMetricsOptions options;
  options.convention = tracking::MotConvention::kTrackEval;
  return tracking::evaluate_sequence(tracking::frames_from_tables(gt, tracks), options);
}

void require_ground_truth_on(const tracking::MotTable& gt, const std::set<int>& frames) {
  std::set<int> gt_frames;
  for (const tracking::MotRow& r : gt.rows) {
    if (r.conf != 0.0) gt_frames.insert(r.frame);
  }
  for (int f : gt_frames) {
    if (frames.count(f)) return;
  }
  const auto range = [](const std::set<int>& s) {
    return s.empty() ? std::string("none") : fmt::format("{}..{}", *s.begin(), *s.rbegin());
  };
  throw FailureError(fmt::format(
      "{} has no row on the sequence's frames (its frames: {}; the sequence's: {}): is it this "
      "sequence's ground truth? Nothing was scored; the tracks are written",
      gt.source, range(gt_frames), range(frames)));
}

std::string mot_metrics_json(const std::string& sequence, const std::filesystem::path& gt,
                             const tracking::SequenceMetrics& m) {
  const auto& c = m.clear;
  const auto& i = m.identity;
  const auto& h = m.hota;
  nlohmann::json j;
  j["sequence"] = sequence;
  j["gt"] = gt.string();
  j["conventions"] = "TrackEval (MOTChallenge): gt rows with conf 0 left out, IoU >= 0.5";
  j["frames"] = m.num_frames;
  j["HOTA"] = {{"HOTA", h.hota},    {"DetA", h.det_a},    {"AssA", h.ass_a},    {"LocA", h.loc_a},
               {"DetRe", h.det_re}, {"DetPr", h.det_pr},  {"AssRe", h.ass_re},  {"AssPr", h.ass_pr},
               {"OWTA", h.owta},    {"HOTA(0)", h.hota0}, {"LocA(0)", h.loc_a0}};
  j["CLEAR"] = {{"MOTA", c.mota},
                {"MOTP", c.motp_iou},
                {"MODA", c.moda},
                {"Recall", c.recall},
                {"Precision", c.precision},
                {"TP", c.tp},
                {"FP", c.fp},
                {"FN", c.fn},
                {"IDSW", c.idsw},
                {"Frag", c.frag},
                {"MT", c.mt},
                {"PT", c.pt},
                {"ML", c.ml},
                {"GT_IDs", c.gt_ids},
                {"GT_Dets", c.num_gt_dets},
                {"Tracker_Dets", c.num_tracker_dets}};
  j["Identity"] = {{"IDF1", i.idf1}, {"IDP", i.idp},   {"IDR", i.idr},
                   {"IDTP", i.idtp}, {"IDFP", i.idfp}, {"IDFN", i.idfn}};
  return j.dump(2) + "\n";
}

std::string mot_metrics_table(const std::string& sequence, const tracking::SequenceMetrics& m) {
  const auto& c = m.clear;
  const auto& i = m.identity;
  const auto& h = m.hota;
  const auto pct = [](double v) { return fmt::format("{:.3f}", 100.0 * v); };
  return fmt::format(
      "{:<20} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>7} {:>6}\n"
      "{:<20} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>7} {:>6}",
      "sequence", "HOTA", "DetA", "AssA", "MOTA", "MOTP", "IDF1", "Recall", "FP", "FN", "IDSW",
      "GT IDs", sequence, pct(h.hota), pct(h.det_a), pct(h.ass_a), pct(c.mota), pct(c.motp_iou),
      pct(i.idf1), pct(c.recall), c.fp, c.fn, c.idsw, c.gt_ids);
}

}  // namespace yolo::predict
