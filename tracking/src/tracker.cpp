#include "yolo/tracking/tracker.h"

#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>
#include <unordered_map>
#include <unordered_set>

#include "track_state.h"
#include "yolo/tracking/motion_compensation.h"

namespace yolo::tracking {
namespace {

// Fixed in Ultralytics' code rather than its YAML: the cost limits of the second association
// (plain IoU against the low detections) and of the unconfirmed tracks, the IoU distance under
// which a tracked and a lost track are the same object, and how many removed ids are remembered.
constexpr double kSecondMatchThresh = 0.5;
constexpr double kUnconfirmedMatchThresh = 0.7;
constexpr float kDuplicateThresh = 0.15f;
constexpr size_t kRemovedMemory = 1000;

using Serials = std::vector<int64_t>;

// Ultralytics' joint_stracks: a then the members of b that a lacks.
Serials joint(const Serials& a, const Serials& b) {
  Serials out = a;
  const std::unordered_set<int64_t> in_a(a.begin(), a.end());
  for (int64_t s : b) {
    if (!in_a.count(s)) out.push_back(s);
  }
  return out;
}

// Ultralytics' sub_stracks: the members of a that b lacks.
Serials subtract(const Serials& a, const Serials& b) {
  const std::unordered_set<int64_t> in_b(b.begin(), b.end());
  Serials out;
  for (int64_t s : a) {
    if (!in_b.count(s)) out.push_back(s);
  }
  return out;
}

}  // namespace

class Tracker::Impl {
 public:
  explicit Impl(const TrackerConfig& config)
      : config_(config),
        kalman_(config.type == TrackerType::kByteTrack ? BoxEncoding::kXYAH : BoxEncoding::kXYWH),
        gmc_(config.type == TrackerType::kBotSort ? config.gmc_method : GmcMethod::kNone) {}

  std::vector<Track> update(const std::vector<TrackerDetection>& detections, const cv::Mat* frame);
  void reset();

  TrackerConfig config_;
  KalmanFilter kalman_;
  MotionCompensation gmc_;
  int64_t frame_id_ = 0;
  int64_t next_serial_ = 0;
  int64_t next_public_id_ = 0;
  int64_t skipped_ = 0;
  std::unordered_map<int64_t, TrackState> store_;  // every track in tracked_ or lost_
  Serials tracked_, lost_, removed_;
  std::unordered_set<int64_t> confirmed_;  // public ids in tracked_ or lost_ after the last frame
  std::vector<int64_t> ended_ids_;

 private:
  // One frame's bookkeeping lists, as in Ultralytics' update().
  struct FrameLists {
    Serials activated, refind, lost, removed;
  };

  void split_detections(const std::vector<TrackerDetection>& detections,
                        std::vector<TrackState>& high, std::vector<TrackState>& low);
  std::vector<TrackState*> tracks_of(const Serials& serials);
  void predict(const std::vector<TrackState*>& tracks);
  void compensate_motion(const cv::Matx23d& warp, const std::vector<TrackState*>& tracks);
  CostMatrix distances(const std::vector<TrackState*>& tracks, const std::vector<TrackState>& dets,
                       bool fuse) const;
  void apply_match(TrackState& track, const TrackState& det, FrameLists& lists);
  void update_track(TrackState& track, const TrackState& det);
  void reactivate_track(TrackState& track, const TrackState& det);
  void start_track(const TrackState& det, FrameLists& lists);
  std::vector<int> associate_unconfirmed(const std::vector<TrackState*>& unconfirmed,
                                         const std::vector<TrackState>& remaining,
                                         FrameLists& lists);
  void merge(const FrameLists& lists);
  void remove_duplicates();
  std::vector<Track> confirmed_tracks();
  std::unordered_set<int64_t> confirmed_ids() const;
};

void Tracker::Impl::split_detections(const std::vector<TrackerDetection>& detections,
                                     std::vector<TrackState>& high, std::vector<TrackState>& low) {
  const float high_thresh = static_cast<float>(config_.track_high_thresh);
  const float low_thresh = static_cast<float>(config_.track_low_thresh);
  for (size_t i = 0; i < detections.size(); ++i) {
    const TrackerDetection& d = detections[i];
    // Ultralytics' Boxes.xywh, then xywh2ltwh, all in float32.
    const float cx = (d.x1 + d.x2) / 2, cy = (d.y1 + d.y2) / 2;
    const float w = d.x2 - d.x1, h = d.y2 - d.y1;
    const bool finite = std::isfinite(cx) && std::isfinite(cy) && std::isfinite(w) &&
                        std::isfinite(h) && std::isfinite(d.score);
    // A zero height would make the aspect (and the Kalman mean) infinite.
    if (!finite || !(w > 0) || !(h > 0)) {
      ++skipped_;
      continue;
    }
    TrackState t;
    t.tlwh = {cx - w / 2, cy - h / 2, w, h};
    t.score = d.score;
    t.class_id = d.class_id;
    t.detection_index = static_cast<int>(i);
    if (d.score >= high_thresh) {
      high.push_back(t);
    } else if (d.score > low_thresh && d.score < high_thresh) {
      low.push_back(t);
    }
  }
}

std::vector<TrackState*> Tracker::Impl::tracks_of(const Serials& serials) {
  std::vector<TrackState*> out;
  out.reserve(serials.size());
  for (int64_t s : serials) out.push_back(&store_.at(s));
  return out;
}

void Tracker::Impl::predict(const std::vector<TrackState*>& tracks) {
  for (TrackState* t : tracks) {
    // A track that was not matched last frame keeps its position velocity but not its growth.
    if (t->phase != TrackPhase::kTracked) {
      t->mean[7] = 0;
      if (kalman_.encoding() == BoxEncoding::kXYWH) t->mean[6] = 0;
    }
    kalman_.predict(t->mean, t->cov);
  }
}

void Tracker::Impl::compensate_motion(const cv::Matx23d& warp,
                                      const std::vector<TrackState*>& tracks) {
  // Centres and velocities rotate with the camera; sizes follow |R| (the box enclosing the
  // rotated box); the translation moves the centre only.
  StateCovariance r8 = StateCovariance::Zero();
  for (int block = 0; block < 4; ++block) {
    const bool size_block = block == 1 || block == 3;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        const double v = warp(i, j);
        r8(2 * block + i, 2 * block + j) = size_block ? std::abs(v) : v;
      }
    }
  }
  for (TrackState* t : tracks) {
    t->mean = r8 * t->mean;
    t->mean[0] += warp(0, 2);
    t->mean[1] += warp(1, 2);
    t->cov = r8 * t->cov * r8.transpose();
  }
}

CostMatrix Tracker::Impl::distances(const std::vector<TrackState*>& tracks,
                                    const std::vector<TrackState>& dets, bool fuse) const {
  std::vector<std::array<float, 4>> a, b;
  std::vector<float> scores;
  for (const TrackState* t : tracks) a.push_back(track_xyxy(*t, kalman_.encoding()));
  for (const TrackState& d : dets) {
    b.push_back(track_xyxy(d, kalman_.encoding()));
    scores.push_back(d.score);
  }
  std::vector<float> cost = iou_distance(a, b);
  if (fuse) fuse_score(cost, static_cast<int>(a.size()), scores);
  return to_cost_matrix(cost, static_cast<int>(a.size()), static_cast<int>(b.size()));
}

void Tracker::Impl::update_track(TrackState& track, const TrackState& det) {
  track.frame_id = frame_id_;
  ++track.tracklet_len;
  kalman_.update(track.mean, track.cov, measure(det.tlwh, kalman_.encoding()));
  track.phase = TrackPhase::kTracked;
  track.activated = true;
  track.score = det.score;
  track.class_id = det.class_id;
  track.detection_index = det.detection_index;
}

void Tracker::Impl::reactivate_track(TrackState& track, const TrackState& det) {
  kalman_.update(track.mean, track.cov, measure(det.tlwh, kalman_.encoding()));
  track.tracklet_len = 0;
  track.phase = TrackPhase::kTracked;
  track.activated = true;
  track.frame_id = frame_id_;
  track.score = det.score;
  track.class_id = det.class_id;
  track.detection_index = det.detection_index;
}

void Tracker::Impl::apply_match(TrackState& track, const TrackState& det, FrameLists& lists) {
  if (track.phase == TrackPhase::kTracked) {
    update_track(track, det);
    lists.activated.push_back(track.serial);
  } else {
    reactivate_track(track, det);
    lists.refind.push_back(track.serial);
  }
}

void Tracker::Impl::start_track(const TrackState& det, FrameLists& lists) {
  TrackState t = det;
  t.serial = ++next_serial_;
  kalman_.initiate(measure(det.tlwh, kalman_.encoding()), t.mean, t.cov);
  t.has_state = true;
  t.tracklet_len = 0;
  t.phase = TrackPhase::kTracked;
  t.activated = frame_id_ == 1;  // a stream's first frame confirms at once
  t.frame_id = frame_id_;
  t.start_frame = frame_id_;
  store_.emplace(t.serial, t);
  lists.activated.push_back(t.serial);
}

std::vector<int> Tracker::Impl::associate_unconfirmed(const std::vector<TrackState*>& unconfirmed,
                                                      const std::vector<TrackState>& remaining,
                                                      FrameLists& lists) {
  std::vector<int> unmatched;
  if (unconfirmed.empty()) {
    for (size_t i = 0; i < remaining.size(); ++i) unmatched.push_back(static_cast<int>(i));
    return unmatched;
  }
  const Assignment a =
      solve_gated(distances(unconfirmed, remaining, config_.fuse_score), kUnconfirmedMatchThresh);
  for (const auto& [r, c] : a.matches) {
    update_track(*unconfirmed[r], remaining[c]);
    lists.activated.push_back(unconfirmed[r]->serial);
  }
  // A tentative track missed on its second frame is dropped at once.
  for (int r : a.unmatched_rows) {
    unconfirmed[r]->phase = TrackPhase::kRemoved;
    lists.removed.push_back(unconfirmed[r]->serial);
  }
  return a.unmatched_cols;
}

std::vector<Track> Tracker::Impl::update(const std::vector<TrackerDetection>& detections,
                                         const cv::Mat* frame) {
  ++frame_id_;
  FrameLists lists;
  std::vector<TrackState> high, low;
  split_detections(detections, high, low);

  Serials unconfirmed_serials, confirmed_serials;
  for (int64_t s : tracked_) {
    (store_.at(s).activated ? confirmed_serials : unconfirmed_serials).push_back(s);
  }
  const std::vector<TrackState*> unconfirmed = tracks_of(unconfirmed_serials);
  const std::vector<TrackState*> pool = tracks_of(joint(confirmed_serials, lost_));
  predict(pool);
  if (gmc_.method() != GmcMethod::kNone && frame != nullptr && !frame->empty()) {
    std::vector<std::array<float, 4>> boxes;
    for (const TrackState& d : high) boxes.push_back(track_xyxy(d, kalman_.encoding()));
    const cv::Matx23d warp = gmc_.apply(*frame, boxes);
    compensate_motion(warp, pool);
    compensate_motion(warp, unconfirmed);
  }

  // First association: confirmed and lost tracks against the high detections.
  const Assignment first =
      solve_gated(distances(pool, high, config_.fuse_score), config_.match_thresh);
  for (const auto& [r, c] : first.matches) apply_match(*pool[r], high[c], lists);

  // Second: the tracks still unmatched that were tracked last frame, against the low ones.
  std::vector<TrackState*> retry;
  for (int r : first.unmatched_rows) {
    if (pool[r]->phase == TrackPhase::kTracked) retry.push_back(pool[r]);
  }
  std::vector<int> still_unmatched;
  if (!retry.empty() && !low.empty()) {
    const Assignment second = solve_gated(distances(retry, low, false), kSecondMatchThresh);
    for (const auto& [r, c] : second.matches) apply_match(*retry[r], low[c], lists);
    still_unmatched = second.unmatched_rows;
  } else {
    for (size_t i = 0; i < retry.size(); ++i) still_unmatched.push_back(static_cast<int>(i));
  }
  for (int r : still_unmatched) {
    retry[r]->phase = TrackPhase::kLost;
    lists.lost.push_back(retry[r]->serial);
  }

  // Tentative tracks against the high detections left, then new tracks from what is left.
  std::vector<TrackState> remaining;
  for (int c : first.unmatched_cols) remaining.push_back(high[c]);
  const float new_thresh = static_cast<float>(config_.new_track_thresh);
  for (int i : associate_unconfirmed(unconfirmed, remaining, lists)) {
    if (remaining[i].score < new_thresh) continue;
    start_track(remaining[i], lists);
  }
  for (int64_t s : lost_) {
    TrackState& t = store_.at(s);
    if (frame_id_ - t.frame_id > config_.track_buffer) {
      t.phase = TrackPhase::kRemoved;
      lists.removed.push_back(s);
    }
  }

  merge(lists);
  std::vector<Track> out = confirmed_tracks();
  std::unordered_set<int64_t> confirmed_now = confirmed_ids();
  ended_ids_.clear();
  for (int64_t id : confirmed_) {
    if (!confirmed_now.count(id)) ended_ids_.push_back(id);
  }
  std::sort(ended_ids_.begin(), ended_ids_.end());
  confirmed_ = std::move(confirmed_now);
  return out;
}

void Tracker::Impl::merge(const FrameLists& lists) {
  Serials still_tracked;
  for (int64_t s : tracked_) {
    if (store_.at(s).phase == TrackPhase::kTracked) still_tracked.push_back(s);
  }
  tracked_ = joint(joint(still_tracked, lists.activated), lists.refind);
  lost_ = subtract(lost_, tracked_);
  lost_.insert(lost_.end(), lists.lost.begin(), lists.lost.end());
  // Against the removed tracks of earlier frames only, as Ultralytics does: a lost track removed
  // this frame stays in the lost list (and can be found again) for one more frame.
  lost_ = subtract(lost_, removed_);
  remove_duplicates();
  removed_.insert(removed_.end(), lists.removed.begin(), lists.removed.end());
  if (removed_.size() > kRemovedMemory) {
    removed_.erase(removed_.begin(), removed_.end() - static_cast<std::ptrdiff_t>(kRemovedMemory));
  }
  // Forget what no list holds any more.
  const std::unordered_set<int64_t> live = [&] {
    std::unordered_set<int64_t> s(tracked_.begin(), tracked_.end());
    s.insert(lost_.begin(), lost_.end());
    return s;
  }();
  for (auto it = store_.begin(); it != store_.end();) {
    it = live.count(it->first) ? std::next(it) : store_.erase(it);
  }
}

void Tracker::Impl::remove_duplicates() {
  const std::vector<TrackState*> a = tracks_of(tracked_);
  const std::vector<TrackState*> b = tracks_of(lost_);
  std::vector<std::array<float, 4>> boxes_a, boxes_b;
  for (const TrackState* t : a) boxes_a.push_back(track_xyxy(*t, kalman_.encoding()));
  for (const TrackState* t : b) boxes_b.push_back(track_xyxy(*t, kalman_.encoding()));
  const std::vector<float> d = iou_distance(boxes_a, boxes_b);
  std::unordered_set<size_t> drop_a, drop_b;
  for (size_t p = 0; p < a.size(); ++p) {
    for (size_t q = 0; q < b.size(); ++q) {
      if (!(d[p * b.size() + q] < kDuplicateThresh)) continue;
      // The same object twice: keep the one tracked for longer.
      const int64_t time_p = a[p]->frame_id - a[p]->start_frame;
      const int64_t time_q = b[q]->frame_id - b[q]->start_frame;
      (time_p > time_q ? drop_b : drop_a).insert(time_p > time_q ? q : p);
    }
  }
  Serials kept_a, kept_b;
  for (size_t p = 0; p < a.size(); ++p) {
    if (!drop_a.count(p)) kept_a.push_back(tracked_[p]);
  }
  for (size_t q = 0; q < b.size(); ++q) {
    if (!drop_b.count(q)) kept_b.push_back(lost_[q]);
  }
  tracked_ = std::move(kept_a);
  lost_ = std::move(kept_b);
}

std::vector<Track> Tracker::Impl::confirmed_tracks() {
  std::vector<Track> out;
  for (int64_t s : tracked_) {
    TrackState& t = store_.at(s);
    if (!t.activated) continue;
    if (t.public_id == 0) t.public_id = ++next_public_id_;
    const std::array<float, 4> box = track_xyxy(t, kalman_.encoding());
    Track r;
    r.id = t.public_id;
    r.x1 = box[0];
    r.y1 = box[1];
    r.x2 = box[2];
    r.y2 = box[3];
    r.score = t.score;
    r.class_id = t.class_id;
    r.detection_index = t.detection_index;
    r.first_frame = t.start_frame;
    r.frames_since_found = t.tracklet_len;
    out.push_back(r);
  }
  return out;
}

std::unordered_set<int64_t> Tracker::Impl::confirmed_ids() const {
  std::unordered_set<int64_t> ids;
  for (const Serials* list : {&tracked_, &lost_}) {
    for (int64_t s : *list) {
      const int64_t id = store_.at(s).public_id;
      if (id > 0) ids.insert(id);
    }
  }
  return ids;
}

void Tracker::Impl::reset() {
  frame_id_ = 0;
  next_serial_ = 0;
  next_public_id_ = 0;
  store_.clear();
  tracked_.clear();
  lost_.clear();
  removed_.clear();
  confirmed_.clear();
  ended_ids_.clear();
  gmc_.reset();
}

Tracker::Tracker(const TrackerConfig& config) : impl_(std::make_unique<Impl>(config)) {}
Tracker::~Tracker() = default;
Tracker::Tracker(Tracker&&) noexcept = default;
Tracker& Tracker::operator=(Tracker&&) noexcept = default;

std::vector<Track> Tracker::update(const std::vector<TrackerDetection>& detections,
                                   const cv::Mat* frame) {
  return impl_->update(detections, frame);
}

const std::vector<int64_t>& Tracker::ended_ids() const {
  return impl_->ended_ids_;
}
void Tracker::reset() {
  impl_->reset();
}
const TrackerConfig& Tracker::config() const {
  return impl_->config_;
}
int64_t Tracker::frame_count() const {
  return impl_->frame_id_;
}
int64_t Tracker::skipped_detections() const {
  return impl_->skipped_;
}

}  // namespace yolo::tracking
