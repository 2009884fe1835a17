#include "yolo/tracking/mot_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <unordered_set>
#include <utility>

#include "yolo/core/error.h"
#include "yolo/tracking/assignment.h"

namespace yolo::tracking {
namespace {

using Frame = SequenceEvaluator::Frame;

constexpr double kInf = std::numeric_limits<double>::infinity();
// TrackEval compares against thresholds with numpy's float64 epsilon of slack.
constexpr double kEps = std::numeric_limits<double>::epsilon();
// TrackEval's CLEAR matching weighs keeping the previous frame's pair above any IoU.
constexpr double kKeepPairBonus = 1000.0;
// Mostly tracked / mostly lost limits of the tracked fraction of an object's frames.
constexpr double kMostlyTracked = 0.8;
constexpr double kMostlyLost = 0.2;

// The frames of a sequence as add_frame stored them, and how many distinct ids each side has.
struct SequenceData {
  const std::vector<Frame>& frames;
  size_t num_gt_ids;
  size_t num_track_ids;
};

using PairKey = uint64_t;
PairKey pair_key(int gt, int track) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(gt)) << 32) | static_cast<uint32_t>(track);
}
int key_gt(PairKey k) {
  return static_cast<int>(k >> 32);
}
int key_track(PairKey k) {
  return static_cast<int>(k & 0xffffffffu);
}

double ratio(double num, double den) {
  return num / std::max(1.0, den);
}

// py-motmetrics turns IoU into the distance 1 - IoU and forbids pairs farther than
// 1 - threshold; TrackEval compares the IoU itself (CLEAR with an epsilon of slack).
bool motmetrics_pair(double iou, double threshold) {
  return 1.0 - iou <= 1.0 - threshold;
}
bool trackeval_clear_pair(double iou, double threshold) {
  return iou >= threshold - kEps;
}
bool trackeval_identity_pair(double iou, double threshold) {
  return iou >= threshold;
}

void add_match(ClearMetrics& m, double iou) {
  ++m.tp;
  m.iou_sum += iou;
  m.distance_sum += 1.0 - iou;
}

// Per ground-truth id: frames present and frames matched, for MT/PT/ML.
struct Coverage {
  std::vector<int64_t> present;
  std::vector<int64_t> matched;
  explicit Coverage(size_t n) : present(n, 0), matched(n, 0) {}
};

// Mostly tracked: motmetrics counts a fraction of exactly 80% in, TrackEval out.
void count_coverage(const Coverage& c, bool mt_inclusive, ClearMetrics& m) {
  for (size_t g = 0; g < c.present.size(); ++g) {
    if (c.present[g] == 0) continue;
    const double tracked = static_cast<double>(c.matched[g]) / static_cast<double>(c.present[g]);
    const bool mostly = mt_inclusive ? tracked >= kMostlyTracked : tracked > kMostlyTracked;
    if (mostly) {
      ++m.mt;
    } else if (tracked >= kMostlyLost) {
      ++m.pt;
    } else {
      ++m.ml;
    }
  }
}

// ---- CLEAR as py-motmetrics (MOTAccumulator.update, metrics.num_fragmentations) ----

struct MotMetricsState {
  std::vector<int> last_track;     // tracker id index last matched to each gt id; -1: never
  std::vector<char> ever_tracked;  // for fragmentations: matched at least once
  std::vector<char> missed_since;  // missed since its last match
  Coverage coverage;
  explicit MotMetricsState(size_t n)
      : last_track(n, -1), ever_tracked(n, 0), missed_since(n, 0), coverage(n) {}
};

// One frame: keep every object's last pair where it still qualifies (in the frame's object
// order), then the most remaining pairs at the least total distance. A match to a tracker id
// other than the object's last one is a switch.
void motmetrics_frame(const Frame& f, double threshold, MotMetricsState& s, ClearMetrics& m) {
  const size_t G = f.gt.size(), T = f.tracks.size();
  std::vector<int> match(G, -1);
  std::vector<char> used(T, 0);
  for (size_t g = 0; g < G; ++g) {
    const int prev = s.last_track[f.gt[g]];
    if (prev < 0) continue;
    for (size_t t = 0; t < T; ++t) {
      if (f.tracks[t] != prev) continue;
      if (!used[t] && motmetrics_pair(f.at(g, t), threshold)) {
        match[g] = static_cast<int>(t);
        used[t] = 1;
      }
      break;  // ids are unique within a frame
    }
  }
  CostMatrix cost(static_cast<int>(G), static_cast<int>(T), kInf);
  for (size_t g = 0; g < G; ++g) {
    for (size_t t = 0; t < T; ++t) {
      const double iou = f.at(g, t);
      if (match[g] < 0 && !used[t] && motmetrics_pair(iou, threshold)) {
        cost.at(static_cast<int>(g), static_cast<int>(t)) = 1.0 - iou;
      }
    }
  }
  for (const auto& [g, t] : solve_min_cost(cost).matches) {
    const int prev = s.last_track[f.gt[g]];
    if (prev >= 0 && prev != f.tracks[t]) ++m.idsw;
    match[g] = t;
    used[t] = 1;
  }
  for (size_t g = 0; g < G; ++g) {
    const int id = f.gt[g];
    ++s.coverage.present[id];
    if (match[g] < 0) {
      ++m.fn;
      if (s.ever_tracked[id]) s.missed_since[id] = 1;
      continue;
    }
    add_match(m, f.at(g, match[g]));
    ++s.coverage.matched[id];
    // A gap of misses between two matches is one fragmentation.
    if (s.ever_tracked[id] && s.missed_since[id]) ++m.frag;
    s.ever_tracked[id] = 1;
    s.missed_since[id] = 0;
    s.last_track[id] = f.tracks[match[g]];
  }
  m.fp += static_cast<int64_t>(std::count(used.begin(), used.end(), 0));
}

ClearMetrics clear_motmetrics(const SequenceData& d, double threshold) {
  ClearMetrics m;
  MotMetricsState s(d.num_gt_ids);
  for (const Frame& f : d.frames) motmetrics_frame(f, threshold, s, m);
  count_coverage(s.coverage, /*mt_inclusive=*/true, m);
  return m;
}

// ---- CLEAR as TrackEval (metrics/clear.py) ----

struct TrackEvalState {
  std::vector<int> last_track;  // last matched tracker id index, any frame back; -1: never
  // The pairs of the previous *evaluated* frame (one with boxes on both sides): a frame
  // without tracker boxes neither breaks nor continues them, as in TrackEval.
  std::vector<int> step_track;
  std::vector<int64_t> step_stamp;  // 1 + index of the evaluated frame of step_track; 0: none
  std::vector<int64_t> starts;      // times tracking (re)started, for fragmentations
  int64_t evaluated = 0;            // evaluated frames so far
  Coverage coverage;
  explicit TrackEvalState(size_t n)
      : last_track(n, -1), step_track(n, -1), step_stamp(n, 0), starts(n, 0), coverage(n) {}
  bool paired_in_previous(int gt) const {
    return step_stamp[gt] > 0 && step_stamp[gt] == evaluated;
  }
};

void trackeval_frame(const Frame& f, double threshold, TrackEvalState& s, ClearMetrics& m) {
  const size_t G = f.gt.size(), T = f.tracks.size();
  if (G == 0) {
    m.fp += static_cast<int64_t>(T);
    return;
  }
  for (int id : f.gt) ++s.coverage.present[id];
  if (T == 0) {
    m.fn += static_cast<int64_t>(G);
    return;
  }
  // Maximise 1000 x (pair of the previous frame) + IoU over the pairs above the threshold.
  CostMatrix cost(static_cast<int>(G), static_cast<int>(T), kInf);
  for (size_t g = 0; g < G; ++g) {
    const int gt = f.gt[g];
    for (size_t t = 0; t < T; ++t) {
      const double iou = f.at(g, t);
      if (!trackeval_clear_pair(iou, threshold)) continue;
      const bool kept = s.paired_in_previous(gt) && s.step_track[gt] == f.tracks[t];
      cost.at(static_cast<int>(g), static_cast<int>(t)) = -((kept ? kKeepPairBonus : 0.0) + iou);
    }
  }
  const Assignment a = solve_gated(cost, 0.0);
  for (const auto& [g, t] : a.matches) {
    const int gt = f.gt[g];
    const int track = f.tracks[t];
    if (s.last_track[gt] >= 0 && s.last_track[gt] != track) ++m.idsw;
    if (!s.paired_in_previous(gt)) ++s.starts[gt];
    s.last_track[gt] = track;
    s.step_track[gt] = track;
    s.step_stamp[gt] = s.evaluated + 1;
    ++s.coverage.matched[gt];
    add_match(m, f.at(g, t));
  }
  ++s.evaluated;
  m.fn += static_cast<int64_t>(G - a.matches.size());
  m.fp += static_cast<int64_t>(T - a.matches.size());
}

ClearMetrics clear_trackeval(const SequenceData& d, double threshold) {
  ClearMetrics m;
  TrackEvalState s(d.num_gt_ids);
  for (const Frame& f : d.frames) trackeval_frame(f, threshold, s, m);
  for (int64_t starts : s.starts) m.frag += std::max<int64_t>(0, starts - 1);
  count_coverage(s.coverage, /*mt_inclusive=*/false, m);
  return m;
}

// The dense index of an id, given on first sight.
int index_of(std::unordered_map<int, int>& index, int id) {
  return index.emplace(id, static_cast<int>(index.size())).first->second;
}

// ---- Identity (py-motmetrics id_global_assignment, TrackEval metrics/identity.py) ----

// Both kits solve a square (gt ids + tracker ids) problem that minimises IDFN + IDFP. Its total
// is (all gt boxes) + (all tracker boxes) - 2 x (the frames the matched id pairs overlap), so the
// same optimum is the gt-id <-> tracker-id matching with the most overlapping frames, solved
// here on the smaller gt x tracker matrix.
IdentityMetrics identity_metrics(const SequenceData& d, const MotMetricsOptions& options) {
  std::unordered_map<PairKey, int64_t> overlaps;
  int64_t gt_boxes = 0, track_boxes = 0;
  for (const Frame& f : d.frames) {
    gt_boxes += static_cast<int64_t>(f.gt.size());
    track_boxes += static_cast<int64_t>(f.tracks.size());
    for (size_t g = 0; g < f.gt.size(); ++g) {
      for (size_t t = 0; t < f.tracks.size(); ++t) {
        const double iou = f.at(g, t);
        const bool ok = options.convention == MotConvention::kMotMetrics
                            ? motmetrics_pair(iou, options.iou_threshold)
                            : trackeval_identity_pair(iou, options.iou_threshold);
        if (ok) ++overlaps[pair_key(f.gt[g], f.tracks[t])];
      }
    }
  }
  // Only ids that overlap something can be matched: the matrix has a row or column for those
  // alone (a long sequence has thousands of short-lived tracker ids).
  std::unordered_map<int, int> rows, cols;
  for (const auto& [key, n] : overlaps) {
    index_of(rows, key_gt(key));
    index_of(cols, key_track(key));
  }
  CostMatrix cost(static_cast<int>(rows.size()), static_cast<int>(cols.size()), kInf);
  for (const auto& [key, n] : overlaps) {
    cost.at(rows.at(key_gt(key)), cols.at(key_track(key))) = -static_cast<double>(n);
  }
  IdentityMetrics m;
  for (const auto& [r, c] : solve_gated(cost, 0.0).matches) {
    m.idtp += static_cast<int64_t>(-cost.at(r, c));
  }
  m.idfn = gt_boxes - m.idtp;
  m.idfp = track_boxes - m.idtp;
  m.finalize();
  return m;
}

// ---- HOTA (TrackEval metrics/hota.py) ----

struct IdBoxCounts {
  std::vector<double> gt;
  std::vector<double> tracks;
};

IdBoxCounts count_id_boxes(const SequenceData& d) {
  IdBoxCounts c{std::vector<double>(d.num_gt_ids, 0.0), std::vector<double>(d.num_track_ids, 0.0)};
  for (const Frame& f : d.frames) {
    for (int g : f.gt) c.gt[g] += 1.0;
    for (int t : f.tracks) c.tracks[t] += 1.0;
  }
  return c;
}

// TrackEval's global alignment score of each gt-id/tracker-id pair that ever overlaps: a soft
// Jaccard index of the two tracks, where each frame contributes the pair's IoU normalised by
// how much both boxes overlap everything else in that frame. Matching on it x IoU makes a frame
// prefer the pairs that belong together over the whole sequence.
std::unordered_map<PairKey, double> alignment_scores(const SequenceData& d,
                                                     const IdBoxCounts& counts) {
  std::unordered_map<PairKey, double> score;
  std::vector<double> row_sum, col_sum;
  for (const Frame& f : d.frames) {
    const size_t G = f.gt.size(), T = f.tracks.size();
    row_sum.assign(G, 0.0);
    col_sum.assign(T, 0.0);
    for (size_t g = 0; g < G; ++g) {
      for (size_t t = 0; t < T; ++t) {
        row_sum[g] += f.at(g, t);
        col_sum[t] += f.at(g, t);
      }
    }
    for (size_t g = 0; g < G; ++g) {
      for (size_t t = 0; t < T; ++t) {
        const double s = f.at(g, t);
        const double denom = col_sum[t] + row_sum[g] - s;
        if (s > 0.0 && denom > kEps) score[pair_key(f.gt[g], f.tracks[t])] += s / denom;
      }
    }
  }
  for (auto& [key, potential] : score) {
    potential /= counts.gt[key_gt(key)] + counts.tracks[key_track(key)] - potential;
  }
  return score;
}

// Per-alpha detection counts, IoU sums and, per id pair, the frames matched at each alpha.
struct HotaTally {
  HotaMetrics m;
  HotaArray loc_sum{};
  std::unordered_map<PairKey, std::array<int64_t, kHotaAlphas>> pair_matches;
};

void hota_frame(const Frame& f, const std::unordered_map<PairKey, double>& alignment,
                const HotaArray& alphas, HotaTally& tally) {
  const size_t G = f.gt.size(), T = f.tracks.size();
  std::vector<std::pair<int, int>> matches;
  if (G > 0 && T > 0) {
    CostMatrix cost(static_cast<int>(G), static_cast<int>(T), kInf);
    for (size_t g = 0; g < G; ++g) {
      for (size_t t = 0; t < T; ++t) {
        const auto it = alignment.find(pair_key(f.gt[g], f.tracks[t]));
        const double score = it == alignment.end() ? 0.0 : it->second * f.at(g, t);
        if (score > 0.0) cost.at(static_cast<int>(g), static_cast<int>(t)) = -score;
      }
    }
    matches = solve_gated(cost, 0.0).matches;  // the most total score
  }
  for (int a = 0; a < kHotaAlphas; ++a) {
    int64_t n = 0;
    for (const auto& [g, t] : matches) {
      const double iou = f.at(g, t);
      if (iou < alphas[a] - kEps) continue;
      ++n;
      tally.loc_sum[a] += iou;
      ++tally.pair_matches[pair_key(f.gt[g], f.tracks[t])][a];  // new pairs start at zeros
    }
    tally.m.tp[a] += static_cast<double>(n);
    tally.m.fn[a] += static_cast<double>(static_cast<int64_t>(G) - n);
    tally.m.fp[a] += static_cast<double>(static_cast<int64_t>(T) - n);
  }
}

HotaMetrics hota_metrics(const SequenceData& d) {
  const IdBoxCounts counts = count_id_boxes(d);
  const auto alignment = alignment_scores(d, counts);
  const HotaArray alphas = hota_alphas();
  HotaTally tally;
  for (const Frame& f : d.frames) hota_frame(f, alignment, alphas, tally);
  HotaMetrics& m = tally.m;
  // AssA: each TP scores the Jaccard index of its gt track and its tracker track at this alpha,
  // averaged over the TPs (so a pair weighs by the frames it is matched in).
  for (const auto& [key, matched] : tally.pair_matches) {
    const double gt_n = counts.gt[key_gt(key)], track_n = counts.tracks[key_track(key)];
    for (int a = 0; a < kHotaAlphas; ++a) {
      const double n = static_cast<double>(matched[a]);
      m.ass_a_per_alpha[a] += n * (n / std::max(1.0, gt_n + track_n - n));
      m.ass_re_per_alpha[a] += n * (n / std::max(1.0, gt_n));
      m.ass_pr_per_alpha[a] += n * (n / std::max(1.0, track_n));
    }
  }
  for (int a = 0; a < kHotaAlphas; ++a) {
    m.ass_a_per_alpha[a] = ratio(m.ass_a_per_alpha[a], m.tp[a]);
    m.ass_re_per_alpha[a] = ratio(m.ass_re_per_alpha[a], m.tp[a]);
    m.ass_pr_per_alpha[a] = ratio(m.ass_pr_per_alpha[a], m.tp[a]);
    m.loc_a_per_alpha[a] = std::max(1e-10, tally.loc_sum[a]) / std::max(1e-10, m.tp[a]);
  }
  m.finalize();
  return m;
}

double mean(const HotaArray& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

void require_unique_ids(const std::vector<MotBox>& boxes, const char* side, int frame) {
  std::unordered_set<int> seen;
  for (const MotBox& b : boxes) {
    if (!seen.insert(b.id).second) {
      throw FailureError("MOT metrics: " + std::string(side) + " id " + std::to_string(b.id) +
                         " appears twice in frame " + std::to_string(frame) +
                         " (an id names one object per frame)");
    }
  }
}

}  // namespace

// ---- Result structs ----

void ClearMetrics::finalize() {
  const double tp_d = static_cast<double>(tp), fn_d = static_cast<double>(fn);
  const double fp_d = static_cast<double>(fp), sw_d = static_cast<double>(idsw);
  mota = ratio(tp_d - fp_d - sw_d, tp_d + fn_d);
  moda = ratio(tp_d - fp_d, tp_d + fn_d);
  motp_distance = ratio(distance_sum, tp_d);
  motp_iou = ratio(iou_sum, tp_d);
  recall = ratio(tp_d, tp_d + fn_d);
  precision = ratio(tp_d, tp_d + fp_d);
}

void IdentityMetrics::finalize() {
  const double tp = static_cast<double>(idtp), fp = static_cast<double>(idfp);
  const double fn = static_cast<double>(idfn);
  idr = ratio(tp, tp + fn);
  idp = ratio(tp, tp + fp);
  idf1 = ratio(tp, tp + 0.5 * fp + 0.5 * fn);
}

HotaArray hota_alphas() {
  // np.arange(0.05, 0.99, 0.05) computes start + i * step.
  HotaArray alphas{};
  for (int a = 0; a < kHotaAlphas; ++a) alphas[a] = 0.05 + a * 0.05;
  return alphas;
}

void HotaMetrics::finalize() {
  for (int a = 0; a < kHotaAlphas; ++a) {
    det_re_per_alpha[a] = ratio(tp[a], tp[a] + fn[a]);
    det_pr_per_alpha[a] = ratio(tp[a], tp[a] + fp[a]);
    det_a_per_alpha[a] = ratio(tp[a], tp[a] + fn[a] + fp[a]);
    hota_per_alpha[a] = std::sqrt(det_a_per_alpha[a] * ass_a_per_alpha[a]);
    owta_per_alpha[a] = std::sqrt(det_re_per_alpha[a] * ass_a_per_alpha[a]);
  }
  hota = mean(hota_per_alpha);
  det_a = mean(det_a_per_alpha);
  ass_a = mean(ass_a_per_alpha);
  loc_a = mean(loc_a_per_alpha);
  det_re = mean(det_re_per_alpha);
  det_pr = mean(det_pr_per_alpha);
  ass_re = mean(ass_re_per_alpha);
  ass_pr = mean(ass_pr_per_alpha);
  owta = mean(owta_per_alpha);
  hota0 = hota_per_alpha[0];
  loc_a0 = loc_a_per_alpha[0];
}

// ---- One sequence ----

// Not core/box_math.h's float32 IoU with eps: the scorers compare against TrackEval and
// py-motmetrics, which compute IoU in float64 on x, y, w, h and without an eps.
double box_iou(const MotBox& a, const MotBox& b) {
  const double iw = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
  const double ih = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
  if (!(iw > 0.0) || !(ih > 0.0)) return 0.0;
  const double inter = iw * ih;
  const double uni = a.w * a.h + b.w * b.h - inter;
  return uni > 0.0 ? inter / uni : 0.0;
}

SequenceEvaluator::SequenceEvaluator(MotMetricsOptions options) : options_(options) {}

void SequenceEvaluator::add_frame(int frame, const std::vector<MotBox>& gt,
                                  const std::vector<MotBox>& tracks) {
  if (any_frame_ && frame <= last_frame_) {
    throw FailureError("MOT metrics: frame " + std::to_string(frame) + " added after frame " +
                       std::to_string(last_frame_) + "; add frames in increasing order");
  }
  require_unique_ids(gt, "ground-truth", frame);
  require_unique_ids(tracks, "tracker", frame);
  Frame f;
  f.gt.reserve(gt.size());
  f.tracks.reserve(tracks.size());
  for (const MotBox& b : gt) f.gt.push_back(index_of(gt_index_, b.id));
  for (const MotBox& b : tracks) f.tracks.push_back(index_of(track_index_, b.id));
  f.iou.resize(gt.size() * tracks.size());
  for (size_t g = 0; g < gt.size(); ++g) {
    for (size_t t = 0; t < tracks.size(); ++t) {
      f.iou[g * tracks.size() + t] = box_iou(gt[g], tracks[t]);
    }
  }
  frames_.push_back(std::move(f));
  any_frame_ = true;
  last_frame_ = frame;
}

SequenceMetrics SequenceEvaluator::result() const {
  const SequenceData d{frames_, gt_index_.size(), track_index_.size()};
  SequenceMetrics m;
  for (const Frame& f : frames_) {
    if (!f.gt.empty() || !f.tracks.empty()) ++m.num_frames;
  }
  m.clear = options_.convention == MotConvention::kMotMetrics
                ? clear_motmetrics(d, options_.iou_threshold)
                : clear_trackeval(d, options_.iou_threshold);
  m.clear.num_gt_dets = m.clear.tp + m.clear.fn;
  m.clear.num_tracker_dets = m.clear.tp + m.clear.fp;
  m.clear.gt_ids = static_cast<int64_t>(gt_index_.size());
  m.clear.finalize();
  m.identity = identity_metrics(d, options_);
  m.hota = hota_metrics(d);
  return m;
}

SequenceMetrics evaluate_sequence(const std::vector<MotFrame>& frames,
                                  const MotMetricsOptions& options) {
  SequenceEvaluator evaluator(options);
  for (const MotFrame& f : frames) evaluator.add_frame(f.frame, f.gt, f.tracks);
  return evaluator.result();
}

// ---- Several sequences ----

namespace {

void add_clear_counts(const ClearMetrics& s, ClearMetrics& sum) {
  sum.num_gt_dets += s.num_gt_dets;
  sum.num_tracker_dets += s.num_tracker_dets;
  sum.tp += s.tp;
  sum.fp += s.fp;
  sum.fn += s.fn;
  sum.idsw += s.idsw;
  sum.frag += s.frag;
  sum.gt_ids += s.gt_ids;
  sum.mt += s.mt;
  sum.pt += s.pt;
  sum.ml += s.ml;
  sum.iou_sum += s.iou_sum;
  sum.distance_sum += s.distance_sum;
}

// TrackEval's HOTA.combine_sequences: counts add up, association scores and LocA are means
// weighted by each sequence's TPs at that alpha.
HotaMetrics combine_hota(const std::vector<SequenceMetrics>& sequences) {
  HotaMetrics m;
  HotaArray loc_weighted{};
  for (const SequenceMetrics& s : sequences) {
    const HotaMetrics& h = s.hota;
    for (int a = 0; a < kHotaAlphas; ++a) {
      m.tp[a] += h.tp[a];
      m.fn[a] += h.fn[a];
      m.fp[a] += h.fp[a];
      m.ass_a_per_alpha[a] += h.ass_a_per_alpha[a] * h.tp[a];
      m.ass_re_per_alpha[a] += h.ass_re_per_alpha[a] * h.tp[a];
      m.ass_pr_per_alpha[a] += h.ass_pr_per_alpha[a] * h.tp[a];
      loc_weighted[a] += h.loc_a_per_alpha[a] * h.tp[a];
    }
  }
  for (int a = 0; a < kHotaAlphas; ++a) {
    m.ass_a_per_alpha[a] = ratio(m.ass_a_per_alpha[a], m.tp[a]);
    m.ass_re_per_alpha[a] = ratio(m.ass_re_per_alpha[a], m.tp[a]);
    m.ass_pr_per_alpha[a] = ratio(m.ass_pr_per_alpha[a], m.tp[a]);
    m.loc_a_per_alpha[a] = std::max(1e-10, loc_weighted[a]) / std::max(1e-10, m.tp[a]);
  }
  m.finalize();
  return m;
}

}  // namespace

SequenceMetrics combine_sequences(const std::vector<SequenceMetrics>& sequences) {
  SequenceMetrics out;
  for (const SequenceMetrics& s : sequences) {
    out.num_frames += s.num_frames;
    add_clear_counts(s.clear, out.clear);
    out.identity.idtp += s.identity.idtp;
    out.identity.idfp += s.identity.idfp;
    out.identity.idfn += s.identity.idfn;
  }
  out.clear.finalize();
  out.identity.finalize();
  out.hota = combine_hota(sequences);
  return out;
}

// ---- MOTChallenge files ----

namespace {

// Ids repeated within one frame of one file, reported with both lines.
void require_unique_rows(const MotTable& table, const std::vector<const MotRow*>& rows) {
  std::vector<const MotRow*> sorted = rows;
  std::stable_sort(sorted.begin(), sorted.end(), [](const MotRow* a, const MotRow* b) {
    return std::make_pair(a->frame, a->id) < std::make_pair(b->frame, b->id);
  });
  for (size_t i = 1; i < sorted.size(); ++i) {
    const MotRow& a = *sorted[i - 1];
    const MotRow& b = *sorted[i];
    if (a.frame == b.frame && a.id == b.id) {
      throw FailureError(table.source + ":" + std::to_string(b.line) + ": id " +
                         std::to_string(b.id) + " appears twice in frame " +
                         std::to_string(b.frame) + " (also on line " + std::to_string(a.line) +
                         "); an id names one object per frame");
    }
  }
}

}  // namespace

void check_ground_truth(const MotTable& gt) {
  if (gt.rows.empty()) {
    throw FailureError(gt.source +
                       " has no rows: a ground truth scores nothing (MOTChallenge's "
                       "gt.txt has one line per object and frame)");
  }
  // Scoring leaves the zero-marked rows out (TrackEval's "zero marked"), and so does this.
  std::vector<const MotRow*> kept;
  for (const MotRow& r : gt.rows) {
    if (r.conf != 0.0) kept.push_back(&r);
  }
  if (kept.empty()) {
    throw FailureError(gt.source + ": all " + std::to_string(gt.rows.size()) +
                       " rows are marked 0 in column 7 (\"ignore\"), so nothing would be scored");
  }
  require_unique_rows(gt, kept);
}

namespace {

std::vector<const MotRow*> kept_rows(const MotTable& table, double min_confidence) {
  std::vector<const MotRow*> rows;
  rows.reserve(table.rows.size());
  for (const MotRow& r : table.rows) {
    if (r.conf >= min_confidence) rows.push_back(&r);
  }
  return rows;
}

MotBox to_box(const MotRow& r) {
  return MotBox{r.id, r.x, r.y, r.w, r.h};
}

}  // namespace

std::vector<MotFrame> frames_from_tables(const MotTable& gt, const MotTable& tracks,
                                         const MotRowFilter& filter) {
  const std::vector<const MotRow*> gt_rows = kept_rows(gt, filter.min_gt_confidence);
  const std::vector<const MotRow*> track_rows = kept_rows(tracks, filter.min_track_confidence);
  require_unique_rows(gt, gt_rows);
  require_unique_rows(tracks, track_rows);
  // Boxes keep their file order within a frame (py-motmetrics keeps previous pairs in that order).
  std::map<int, MotFrame> by_frame;
  for (const MotRow* r : gt_rows) by_frame[r->frame].gt.push_back(to_box(*r));
  for (const MotRow* r : track_rows) by_frame[r->frame].tracks.push_back(to_box(*r));
  std::vector<MotFrame> frames;
  frames.reserve(by_frame.size());
  for (auto& [number, frame] : by_frame) {
    frame.frame = number;
    frames.push_back(std::move(frame));
  }
  return frames;
}

SequenceMetrics evaluate_mot_files(const std::filesystem::path& gt_path,
                                   const std::filesystem::path& tracks_path,
                                   const MotMetricsOptions& options, const MotRowFilter& filter) {
  return evaluate_sequence(
      frames_from_tables(read_mot_file(gt_path), read_mot_file(tracks_path), filter), options);
}

}  // namespace yolo::tracking
