#include "yolo/analytics/stream_analytics.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <utility>

namespace yolo::analytics {
namespace {

// The anchor point as Ultralytics computes a box's centre: the mean of the corners in float32.
Point anchor_of(const TrackedObject& o, Anchor anchor) {
  const float cx = (o.x1 + o.x2) / 2.0f;
  if (anchor == Anchor::kBottomCenter) return {cx, o.y2};
  return {cx, (o.y1 + o.y2) / 2.0f};
}

// Seconds as nanoseconds, capped far below int64's end (a caller may pass a huge timeout to mean
// "never").
int64_t nanoseconds(double seconds) {
  constexpr double kCap = 1e18;  // 31 years
  return static_cast<int64_t>(std::min(seconds * 1e9, kCap));
}

// +1 "in", -1 "out", 0 not counted (motion along the line, with an explicit direction).
int crossing_direction(const LineSpec& line, Point prev, Point cur) {
  if (!line.in_direction) {
    // Ultralytics' ObjectCounter: the line's orientation picks the axis; ties go "out".
    const bool vertical = std::abs(line.a.x - line.b.x) < std::abs(line.a.y - line.b.y);
    const bool in = vertical ? cur.x > prev.x : cur.y > prev.y;
    return in ? 1 : -1;
  }
  // The line's normal, turned to the "in" side; the motion's component along it decides.
  Point n{-(line.b.y - line.a.y), line.b.x - line.a.x};
  if (n.x * line.in_direction->x + n.y * line.in_direction->y < 0) n = {-n.x, -n.y};
  const double along = (cur.x - prev.x) * n.x + (cur.y - prev.y) * n.y;
  return (along > 0) - (along < 0);
}

struct ZoneVisit {
  bool inside = false;
  int64_t entered_ns = 0;
  bool dwell_reported = false;
};

// What is kept of a track that timed out, for when its id comes back (the tracker may hold a
// lost track longer than track_timeout, e.g. at a low frame rate): where it was and which lines
// counted it, so that it is not counted twice, as Ultralytics' counted ids are kept until the
// tracker removes the track.
struct RetiredTrack {
  Point last;
  std::vector<bool> counted;
  int64_t retired_ns = 0;
};

struct TrackState {
  Point last;  // anchor where it was last seen
  int64_t last_seen_ns = 0;
  int class_id = -1;
  std::string class_name;
  std::vector<bool> counted;      // per line
  std::vector<ZoneVisit> visits;  // per zone
};

}  // namespace

const char* to_string(EventType type) {
  switch (type) {
    case EventType::kLineCrossed:
      return "line_crossed";
    case EventType::kZoneEntered:
      return "zone_entered";
    case EventType::kZoneExited:
      return "zone_exited";
    case EventType::kDwellExceeded:
      return "dwell_exceeded";
  }
  return "unknown";
}

struct StreamAnalytics::Impl {
  std::string stream_id;
  AnalyticsConfig config;  // as given (maybe normalized)
  AnalyticsConfig placed;  // in pixels of the current frame size
  int width = 0, height = 0;
  std::optional<bool> pts_clock;  // the stream's clock: its PTS, or the wall clock without
  int64_t last_now = 0;
  std::unordered_map<int64_t, TrackState> tracks;
  std::unordered_map<int64_t, RetiredTrack> retired;
  AnalyticsCounts counts;

  int64_t time_of(const AnalyticsFrame& f) {
    if (!pts_clock) pts_clock = f.pts_ns >= 0;
    if (*pts_clock) {
      // A frame without PTS on a PTS clock keeps the last time: the wall clock is another scale.
      if (f.pts_ns >= 0) last_now = f.pts_ns;
      return last_now;
    }
    return last_now =
               std::chrono::duration_cast<std::chrono::nanoseconds>(f.wall_time.time_since_epoch())
                   .count();
  }

  // How long a timed-out track's line state is kept: far beyond any tracker's memory.
  int64_t retain_ns() const { return nanoseconds(std::max(60.0, 10 * config.track_timeout_s)); }

  AnalyticsEvent event(EventType type, const std::string& region, int64_t id, const TrackState& t,
                       const AnalyticsFrame& f) const {
    AnalyticsEvent e;
    e.type = type;
    e.stream_id = stream_id;
    e.region = region;
    e.track_id = id;
    e.class_id = t.class_id;
    e.class_name = t.class_name;
    e.position = t.last;
    e.frame = f.frame;
    e.pts_ns = f.pts_ns;
    e.wall_time = f.wall_time;
    return e;
  }

  static double seconds(int64_t from_ns, int64_t to_ns) {
    return std::max<int64_t>(0, to_ns - from_ns) / 1e9;
  }

  void enter(size_t z, int64_t id, TrackState& t, int64_t now, const AnalyticsFrame& f,
             std::vector<AnalyticsEvent>& out) {
    t.visits[z] = {true, now, false};
    ZoneCounts& c = counts.zones[z];
    ++c.entries;
    ++c.entries_per_class[t.class_name];
    ++c.occupancy;
    ++c.occupancy_per_class[t.class_name];
    out.push_back(event(EventType::kZoneEntered, c.name, id, t, f));
  }

  void leave(size_t z, int64_t id, TrackState& t, int64_t now, const char* reason,
             const AnalyticsFrame& f, std::vector<AnalyticsEvent>& out) {
    ZoneVisit& v = t.visits[z];
    v.inside = false;
    ZoneCounts& c = counts.zones[z];
    ++c.exits;
    if (c.occupancy > 0) --c.occupancy;
    // The class the track had when it entered may have changed: take one from whichever holds it.
    auto it = c.occupancy_per_class.find(t.class_name);
    if (it == c.occupancy_per_class.end() || it->second == 0) {
      it = std::find_if(c.occupancy_per_class.begin(), c.occupancy_per_class.end(),
                        [](const auto& kv) { return kv.second > 0; });
    }
    if (it != c.occupancy_per_class.end() && it->second > 0) --it->second;
    AnalyticsEvent e = event(EventType::kZoneExited, c.name, id, t, f);
    e.reason = reason;
    e.dwell_s = seconds(v.entered_ns, now);
    out.push_back(std::move(e));
  }

  // A lost or reset track's visits end when it was last seen, not now. A track that only timed
  // out (`retire`) keeps its line state for when its id comes back.
  void forget(int64_t id, const char* reason, const AnalyticsFrame& f,
              std::vector<AnalyticsEvent>& out, bool retire = false) {
    auto it = tracks.find(id);
    if (it == tracks.end()) return;
    TrackState& t = it->second;
    for (size_t z = 0; z < t.visits.size(); ++z) {
      if (t.visits[z].inside) leave(z, id, t, t.last_seen_ns, reason, f, out);
    }
    if (retire) retired[id] = {t.last, t.counted, t.last_seen_ns};
    tracks.erase(it);
  }

  void forget_all(const char* reason, const AnalyticsFrame& f, std::vector<AnalyticsEvent>& out) {
    std::vector<int64_t> ids;
    for (const auto& kv : tracks) ids.push_back(kv.first);
    std::sort(ids.begin(), ids.end());  // events in a stable order
    for (const int64_t id : ids) forget(id, reason, f, out);
    retired.clear();
  }

  // Places the config for this frame's size; a new size (the source changed resolution) starts
  // the tracks again, since their points are in the old pixels. Throws, changing nothing, when
  // the config does not fit.
  void place_for(const AnalyticsFrame& f, std::vector<AnalyticsEvent>& out) {
    if (f.width == width && f.height == height) return;
    AnalyticsConfig p = for_frame(config, f.width, f.height, "stream '" + stream_id + "'");
    if (width > 0) forget_all("reset", f, out);
    placed = std::move(p);
    width = f.width;
    height = f.height;
  }

  void see(const TrackedObject& o, int64_t now, const AnalyticsFrame& f,
           std::vector<AnalyticsEvent>& out) {
    const Point cur = anchor_of(o, placed.anchor);
    auto [it, is_new] = tracks.try_emplace(o.track_id);
    TrackState& t = it->second;
    if (is_new) {
      t.counted.assign(placed.lines.size(), false);
      t.visits.assign(placed.zones.size(), {});
      if (auto r = retired.find(o.track_id); r != retired.end()) {
        // Back after a time-out: its lines remember it, and it moves on from where it was.
        t.counted = std::move(r->second.counted);
        t.last = r->second.last;
        retired.erase(r);
        is_new = false;
      }
    }
    t.class_id = o.class_id;
    t.class_name = o.class_name;
    const Point prev = t.last;
    t.last = cur;
    t.last_seen_ns = now;
    if (!is_new) {
      for (size_t l = 0; l < placed.lines.size(); ++l) {
        const LineSpec& line = placed.lines[l];
        if (t.counted[l] || !segments_intersect(prev, cur, line.a, line.b)) continue;
        const int direction = crossing_direction(line, prev, cur);
        if (direction == 0) continue;
        t.counted[l] = true;
        LineCounts& c = counts.lines[l];
        DirectionCounts& per_class = c.per_class[t.class_name];
        ++(direction > 0 ? c.total.in : c.total.out);
        ++(direction > 0 ? per_class.in : per_class.out);
        AnalyticsEvent e = event(EventType::kLineCrossed, line.name, o.track_id, t, f);
        e.direction = direction > 0 ? "in" : "out";
        out.push_back(std::move(e));
      }
    }
    for (size_t z = 0; z < placed.zones.size(); ++z) {
      const ZoneSpec& zone = placed.zones[z];
      const bool inside = inside_or_on(zone.points, cur);
      ZoneVisit& v = t.visits[z];
      if (inside && !v.inside) {
        enter(z, o.track_id, t, now, f, out);
      } else if (!inside && v.inside) {
        leave(z, o.track_id, t, now, "left", f, out);
      }
      if (t.visits[z].inside && zone.dwell_seconds && !t.visits[z].dwell_reported &&
          seconds(t.visits[z].entered_ns, now) >= *zone.dwell_seconds) {
        t.visits[z].dwell_reported = true;
        AnalyticsEvent e = event(EventType::kDwellExceeded, zone.name, o.track_id, t, f);
        e.dwell_s = seconds(t.visits[z].entered_ns, now);
        out.push_back(std::move(e));
      }
    }
  }
};

StreamAnalytics::StreamAnalytics(std::string stream_id, AnalyticsConfig config)
    : impl_(std::make_unique<Impl>()) {
  impl_->stream_id = std::move(stream_id);
  impl_->config = std::move(config);
  for (const auto& l : impl_->config.lines) impl_->counts.lines.push_back({l.name, {}, {}});
  for (const auto& z : impl_->config.zones)
    impl_->counts.zones.push_back({z.name, 0, {}, 0, 0, {}});
}

StreamAnalytics::~StreamAnalytics() = default;
StreamAnalytics::StreamAnalytics(StreamAnalytics&&) noexcept = default;
StreamAnalytics& StreamAnalytics::operator=(StreamAnalytics&&) noexcept = default;

std::vector<AnalyticsEvent> StreamAnalytics::update(const AnalyticsFrame& frame) {
  Impl& s = *impl_;
  std::vector<AnalyticsEvent> out;
  s.place_for(frame, out);  // throws before anything changes
  const int64_t now = s.time_of(frame);
  for (const int64_t id : frame.ended_track_ids) {
    s.forget(id, "lost", frame, out);
    s.retired.erase(id);  // the tracker is done with it: its id will not come back
  }
  for (const TrackedObject& o : frame.objects) {
    if (o.track_id <= 0 || !std::isfinite(o.x1) || !std::isfinite(o.y1) || !std::isfinite(o.x2) ||
        !std::isfinite(o.y2))
      continue;  // not a track, or a broken box: nothing to place
    s.see(o, now, frame, out);
  }
  const int64_t timeout_ns = nanoseconds(s.config.track_timeout_s);
  std::vector<int64_t> lost;
  for (const auto& [id, t] : s.tracks) {
    if (now - t.last_seen_ns > timeout_ns) lost.push_back(id);
  }
  std::sort(lost.begin(), lost.end());  // events in a stable order
  for (const int64_t id : lost) s.forget(id, "lost", frame, out, /*retire=*/true);
  for (auto it = s.retired.begin(); it != s.retired.end();) {
    it = now - it->second.retired_ns > s.retain_ns() ? s.retired.erase(it) : std::next(it);
  }
  return out;
}

std::vector<AnalyticsEvent> StreamAnalytics::reset(const AnalyticsFrame& at) {
  Impl& s = *impl_;
  std::vector<AnalyticsEvent> out;
  s.forget_all("reset", at, out);
  s.pts_clock.reset();  // a new stream may come with or without PTS
  return out;
}

AnalyticsCounts StreamAnalytics::counts() const {
  return impl_->counts;
}

const AnalyticsConfig& StreamAnalytics::config() const {
  return impl_->config;
}

std::optional<AnalyticsConfig> StreamAnalytics::placed() const {
  if (impl_->width <= 0) return std::nullopt;
  return impl_->placed;
}

int StreamAnalytics::frame_width() const {
  return impl_->width;
}

int StreamAnalytics::frame_height() const {
  return impl_->height;
}

const std::string& StreamAnalytics::stream_id() const {
  return impl_->stream_id;
}

}  // namespace yolo::analytics
