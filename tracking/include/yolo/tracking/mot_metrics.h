// Multi-object tracking metrics: tracker boxes with identities scored against ground truth, one
// sequence at a time, then combined over sequences. Boxes are matched by IoU (a match needs
// IoU >= 0.5 by default, as in both reference kits).
//   - CLEAR MOT (Bernardin & Stiefelhagen 2008): MOTA, MOTP, FP, FN, ID switches,
//     fragmentations, mostly tracked / partially tracked / mostly lost, recall, precision.
//   - Identity (Ristani et al. 2016): IDF1, IDP, IDR from one global gt-id <-> tracker-id matching.
//   - HOTA (Luiten et al. 2021): HOTA, DetA, AssA, LocA at 19 IoU thresholds 0.05..0.95.
// CLEAR and Identity follow py-motmetrics 1.4 (default) or TrackEval 1.3, which differ in small,
// documented ways (MotConvention); HOTA exists only in TrackEval and follows it. Notes on every
// convention and the checks against both kits: tracking/METRICS_NOTES.md.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "yolo/tracking/mot_format.h"

namespace yolo::tracking {

// One box of one frame: its identity and its top-left corner and size in pixels.
struct MotBox {
  int id = 0;
  double x = 0.0;
  double y = 0.0;
  double w = 0.0;
  double h = 0.0;
};

// The ground truth and the tracker output of one frame.
struct MotFrame {
  int frame = 0;  // its number, for error messages
  std::vector<MotBox> gt;
  std::vector<MotBox> tracks;
};

enum class MotConvention {
  // py-motmetrics: each frame first keeps every ground-truth object's last matched tracker id
  // (from any earlier frame) when it still overlaps enough, then matches the rest for the most
  // pairs at the least total distance; mostly tracked means >= 80% of its frames; a
  // fragmentation is a tracked -> missed -> tracked gap over the frames the object is present.
  kMotMetrics,
  // TrackEval (the MOTChallenge kit): the kept pairs are those of the previous frame only, and
  // one matching maximises 1000 x (kept pair) + IoU; mostly tracked means > 80%; a
  // fragmentation is every restart of tracking after the first.
  kTrackEval,
};

struct MotMetricsOptions {
  double iou_threshold = 0.5;  // CLEAR and Identity; HOTA sweeps its own 19 thresholds
  MotConvention convention = MotConvention::kMotMetrics;
};

// Ratios over nothing (no ground truth, no matches) are 0, as TrackEval reports them
// (py-motmetrics gives NaN there).
struct ClearMetrics {
  // Counts: sums over sequences.
  int64_t num_gt_dets = 0;       // ground-truth boxes (motmetrics: num_objects)
  int64_t num_tracker_dets = 0;  // tracker boxes (motmetrics: num_predictions)
  int64_t tp = 0;                // matched boxes, switches included (motmetrics: num_detections)
  int64_t fp = 0;
  int64_t fn = 0;
  int64_t idsw = 0;
  int64_t frag = 0;
  int64_t gt_ids = 0;  // distinct ground-truth ids (motmetrics: num_unique_objects)
  int64_t mt = 0;
  int64_t pt = 0;
  int64_t ml = 0;
  double iou_sum = 0.0;       // over the matches
  double distance_sum = 0.0;  // of 1 - IoU over the matches (py-motmetrics' MOTP numerator)
  // Derived from the counts (finalize()).
  double mota = 0.0;  // 1 - (FN + FP + IDSW) / GT
  double moda = 0.0;  // 1 - (FN + FP) / GT
  double motp_distance =
      0.0;                // mean 1 - IoU of the matches: py-motmetrics' "MOTP" (lower is better)
  double motp_iou = 0.0;  // mean IoU of the matches: TrackEval's "MOTP" (higher is better)
  double recall = 0.0;
  double precision = 0.0;

  void finalize();
};

struct IdentityMetrics {
  int64_t idtp = 0;
  int64_t idfp = 0;
  int64_t idfn = 0;
  double idf1 = 0.0;  // IDTP / (IDTP + (IDFP + IDFN) / 2)
  double idp = 0.0;   // IDTP / (IDTP + IDFP)
  double idr = 0.0;   // IDTP / (IDTP + IDFN)

  void finalize();
};

inline constexpr int kHotaAlphas = 19;
using HotaArray = std::array<double, kHotaAlphas>;

// The IoU thresholds of HOTA: 0.05, 0.10, ..., 0.95, computed as TrackEval's np.arange does.
HotaArray hota_alphas();

struct HotaMetrics {
  // Per threshold alpha (index a is alpha = hota_alphas()[a]).
  HotaArray tp{};  // counts, held as doubles as TrackEval does
  HotaArray fn{};
  HotaArray fp{};
  HotaArray hota_per_alpha{};   // sqrt(DetA * AssA)
  HotaArray det_a_per_alpha{};  // TP / (TP + FN + FP)
  HotaArray ass_a_per_alpha{};  // mean over TPs of the Jaccard index of their two ids' tracks
  HotaArray loc_a_per_alpha{};  // mean IoU of the TPs
  HotaArray det_re_per_alpha{};
  HotaArray det_pr_per_alpha{};
  HotaArray ass_re_per_alpha{};
  HotaArray ass_pr_per_alpha{};
  HotaArray owta_per_alpha{};  // sqrt(DetRe * AssA)
  // Means over the 19 thresholds: the numbers TrackEval reports as HOTA, DetA, AssA, LocA, ...
  double hota = 0.0;
  double det_a = 0.0;
  double ass_a = 0.0;
  double loc_a = 0.0;
  double det_re = 0.0;
  double det_pr = 0.0;
  double ass_re = 0.0;
  double ass_pr = 0.0;
  double owta = 0.0;
  double hota0 = 0.0;  // HOTA at alpha = 0.05 (TrackEval's HOTA(0))
  double loc_a0 = 0.0;

  // Det* and the means from the per-alpha counts and Ass*/LocA arrays.
  void finalize();
};

struct SequenceMetrics {
  int64_t num_frames = 0;  // frames with any box (motmetrics: num_frames)
  ClearMetrics clear;
  IdentityMetrics identity;
  HotaMetrics hota;
};

// Accumulates one sequence frame by frame; result() scores it. Frames go in time order; the
// boxes of one frame may come in any order, but an id may appear only once per side per frame.
// Keeps only ids and IoUs, not boxes.
class SequenceEvaluator {
 public:
  explicit SequenceEvaluator(MotMetricsOptions options = {});

  // Throws yolo::FailureError if an id repeats within `gt` or within `tracks`, or if `frame`
  // does not increase (frame numbers are only used for that check and in messages).
  void add_frame(int frame, const std::vector<MotBox>& gt, const std::vector<MotBox>& tracks);

  SequenceMetrics result() const;

  // The compact form of one frame: dense indices of its ids and their IoUs, row-major gt x tracks.
  struct Frame {
    std::vector<int> gt;
    std::vector<int> tracks;
    std::vector<double> iou;
    double at(size_t g, size_t t) const { return iou[g * tracks.size() + t]; }
  };

 private:
  MotMetricsOptions options_;
  std::vector<Frame> frames_;
  std::unordered_map<int, int> gt_index_;
  std::unordered_map<int, int> track_index_;
  bool any_frame_ = false;
  int last_frame_ = 0;
};

// Scores one sequence given as frames (a convenience over SequenceEvaluator).
SequenceMetrics evaluate_sequence(const std::vector<MotFrame>& frames,
                                  const MotMetricsOptions& options = {});

// Combines sequences: counts add up and the ratios are recomputed from the sums (py-motmetrics'
// "OVERALL" row and TrackEval's COMBINED_SEQ for CLEAR and Identity); HOTA combines as TrackEval
// does: TP/FN/FP add up, AssA/AssRe/AssPr and LocA are TP-weighted means per alpha.
SequenceMetrics combine_sequences(const std::vector<SequenceMetrics>& sequences);

// Which rows of MOTChallenge files take part. py-motmetrics' loadtxt keeps rows with
// conf >= -1 (its default, used by its own tests); its eval_motchallenge app reads ground truth
// with min_confidence=1, and TrackEval drops ground-truth rows whose conf is 0 ("zero marked").
// What a ground-truth file alone can say is wrong, checked before any tracking: no rows, every
// row zero-marked (column 7 = 0, which scoring leaves out), an id twice in one frame (both lines
// named). Throws yolo::FailureError naming the file.
void check_ground_truth(const MotTable& gt);

struct MotRowFilter {
  double min_gt_confidence = -1.0;
  double min_track_confidence = -1.0;
};

// Groups the rows of a ground-truth and a tracker file into frames, in increasing frame order,
// over every frame that appears in either. Throws yolo::FailureError naming the file and both
// lines when an id appears twice in one frame.
std::vector<MotFrame> frames_from_tables(const MotTable& gt, const MotTable& tracks,
                                         const MotRowFilter& filter = {});

// Reads both files and scores them as one sequence.
SequenceMetrics evaluate_mot_files(const std::filesystem::path& gt_path,
                                   const std::filesystem::path& tracks_path,
                                   const MotMetricsOptions& options = {},
                                   const MotRowFilter& filter = {});

// IoU of two top-left/size boxes; 0 when either is empty.
double box_iou(const MotBox& a, const MotBox& b);

}  // namespace yolo::tracking
