#include "yolo/analytics/stream_analytics.h"

#include <algorithm>
#include <cmath>
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
  std::unordered_map<int64_t, TrackState> tracks;
  AnalyticsCounts counts;

  int64_t time_of(const AnalyticsFrame& f) {
    if (!pts_clock) pts_clock = f.pts_ns >= 0;
    if (*pts_clock && f.pts_ns >= 0) return f.pts_ns;
    return std::chrono::duration_cast<std::chrono::nanoseconds>(f.wall_time.time_since_epoch())
        .count();
  }

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

  // A lost or reset track's visits end when it was last seen, not now.
  void forget(int64_t id, const char* reason, const AnalyticsFrame& f,
              std::vector<AnalyticsEvent>& out) {
    auto it = tracks.find(id);
    if (it == tracks.end()) return;
    TrackState& t = it->second;
    for (size_t z = 0; z < t.visits.size(); ++z) {
      if (t.visits[z].inside) leave(z, id, t, t.last_seen_ns, reason, f, out);
    }
    tracks.erase(it);
  }

  void place_for(const AnalyticsFrame& f) {
    if (f.width == width && f.height == height) return;
    placed = for_frame(config, f.width, f.height, "stream '" + stream_id + "'");
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
  s.place_for(frame);  // throws before anything changes
  const int64_t now = s.time_of(frame);
  std::vector<AnalyticsEvent> out;
  for (const int64_t id : frame.ended_track_ids) s.forget(id, "lost", frame, out);
  for (const TrackedObject& o : frame.objects) {
    if (o.track_id <= 0 || !std::isfinite(o.x1) || !std::isfinite(o.y1) || !std::isfinite(o.x2) ||
        !std::isfinite(o.y2))
      continue;  // not a track, or a broken box: nothing to place
    s.see(o, now, frame, out);
  }
  const auto timeout_ns = static_cast<int64_t>(s.config.track_timeout_s * 1e9);
  std::vector<int64_t> lost;
  for (const auto& [id, t] : s.tracks) {
    if (now - t.last_seen_ns > timeout_ns) lost.push_back(id);
  }
  std::sort(lost.begin(), lost.end());  // events in a stable order
  for (const int64_t id : lost) s.forget(id, "lost", frame, out);
  return out;
}

std::vector<AnalyticsEvent> StreamAnalytics::reset(const AnalyticsFrame& at) {
  Impl& s = *impl_;
  std::vector<AnalyticsEvent> out;
  std::vector<int64_t> ids;
  for (const auto& kv : s.tracks) ids.push_back(kv.first);
  std::sort(ids.begin(), ids.end());
  for (const int64_t id : ids) s.forget(id, "reset", at, out);
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

const std::string& StreamAnalytics::stream_id() const {
  return impl_->stream_id;
}

}  // namespace yolo::analytics
