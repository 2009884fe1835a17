// `track` of an image sequence in MOTChallenge terms: each frame's tracks as rows of the format
// (frame, id, x, y, w, h, conf, -1, -1, -1), written as one file per sequence, and scored against
// a ground-truth file with TrackEval's conventions (the MOTChallenge kit's).
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "yolo/runtime/detection.h"
#include "yolo/tracking/mot_format.h"
#include "yolo/tracking/mot_metrics.h"

namespace yolo::predict {

class MotSequence {
 public:
  // Adds the tracked detections (track_id > 0) of the next frame of the sequence. The frame's
  // number is its file name's when that is a number (img1/000042.jpg is frame 42, as the MOT
  // benchmarks number them; when the first frame is 0, every number + 1, since MOTChallenge
  // starts at 1), else its place in the sequence (1, 2, ...).
  void add(const std::string& image_path, const std::vector<Detection>& tracked);

  const std::vector<tracking::MotRow>& rows() const { return rows_; }
  // The frame numbers of every frame added, with tracks or without.
  const std::set<int>& frame_numbers() const { return frame_numbers_; }

  // Writes the rows atomically to `path` (folders made).
  void write(const std::filesystem::path& path) const;

 private:
  std::vector<tracking::MotRow> rows_;
  int frames_ = 0;
  bool first_is_zero_ = false;  // the sequence's numbers start at 0: each is written + 1
  std::set<int> frame_numbers_;
};

// Scores `tracks` against `gt` as TrackEval scores a MOTChallenge sequence: ground-truth rows whose
// 7th column is 0 are left out ("zero marked"), a match needs IoU >= 0.5, CLEAR and Identity by
// TrackEval's conventions, HOTA over its 19 thresholds. The class and visibility columns are not
// read (TrackEval's MOT17 preprocessing, which also removes tracks on distractor classes, is not
// applied). Throws yolo::FailureError naming the table's source when an id repeats within a frame.
tracking::SequenceMetrics score_mot_sequence(tracking::MotTable gt,
                                             const tracking::MotTable& tracks);

// Throws yolo::FailureError when no scored row of `gt` (column 7 not 0) is on one of the
// sequence's `frames`: a ground truth of another sequence, or numbered otherwise, would score as
// if every object were missed.
void require_ground_truth_on(const tracking::MotTable& gt, const std::set<int>& frames);

// Every metric and its parts as JSON: {"HOTA": {"HOTA", "DetA", "AssA", "LocA", "DetRe", ...},
// "CLEAR": {"MOTA", "MOTP", "TP", "FP", "FN", "IDSW", "Frag", "MT", "PT", "ML", ...},
// "Identity": {"IDF1", "IDP", "IDR", "IDTP", "IDFP", "IDFN"}}; ratios as fractions, not %.
std::string mot_metrics_json(const std::string& sequence, const std::filesystem::path& gt,
                             const tracking::SequenceMetrics& m);

// The metrics as a table for the console: one header line and one value line.
std::string mot_metrics_table(const std::string& sequence, const tracking::SequenceMetrics& m);

}  // namespace yolo::predict
