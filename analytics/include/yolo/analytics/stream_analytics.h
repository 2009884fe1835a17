// Lines, zones and their events for one stream, from its confirmed tracks frame by frame.
//
// Each track is reduced to one point of its box (the config's anchor). Lines count a track when
// the segment from its previous point (where it was last seen) to its current one touches the
// line, once per track and line, per class and direction: Ultralytics' ObjectCounter with a
// two-point region, checked against it (tests/analytics). Zones know which tracks are inside
// (a point on the edge is inside), count entries and exits, and time each visit; a visit that
// lasts the zone's dwell emits one dwell_exceeded.
//
// A track leaves the analytics (its zones with reason "lost") when the caller says the tracker
// ended it, or when it has not been seen for track_timeout seconds of stream time, so a track
// hidden for a moment keeps its place and its count. A timed-out track's lines remember it (for
// max(60 s, 10 x track_timeout)): if the tracker brings the same id back, it is not counted
// twice. A change of frame size starts the tracks again (reason "reset"): their points were in
// the old pixels. Times are the frames' PTS (stream time:
// the same video gives the same dwell however fast it is processed); frames without a PTS use
// the wall clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "yolo/analytics/analytics_config.h"
#include "yolo/analytics/geometry.h"

namespace yolo::analytics {

struct TrackedObject {
  int64_t track_id = 0;  // > 0
  int class_id = -1;
  std::string class_name;
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // frame pixels
};

struct AnalyticsFrame {
  int64_t frame = 0;    // the stream's frame number
  int64_t pts_ns = -1;  // stream time; < 0 unknown
  std::chrono::system_clock::time_point wall_time;
  int width = 0, height = 0;
  std::vector<TrackedObject> objects;    // the confirmed tracks seen on this frame
  std::vector<int64_t> ended_track_ids;  // tracks the tracker removed for good, when it says so
};

enum class EventType { kLineCrossed, kZoneEntered, kZoneExited, kDwellExceeded };
const char* to_string(EventType type);

struct AnalyticsEvent {
  EventType type = EventType::kLineCrossed;
  std::string stream_id;
  std::string region;  // the line's or the zone's name
  int64_t track_id = 0;
  int class_id = -1;
  std::string class_name;
  std::string direction;  // line_crossed: "in" or "out"
  std::string reason;     // zone_exited: "left", "lost" or "reset" (the stream started again)
  double dwell_s = 0;     // zone_exited and dwell_exceeded: seconds inside so far
  Point position;         // the track's anchor point on this frame (its last one when lost)
  int64_t frame = 0;
  int64_t pts_ns = -1;
  std::chrono::system_clock::time_point wall_time;
};

struct DirectionCounts {
  uint64_t in = 0, out = 0;
};

struct LineCounts {
  std::string name;
  DirectionCounts total;
  std::map<std::string, DirectionCounts> per_class;  // by class name
};

struct ZoneCounts {
  std::string name;
  uint64_t occupancy = 0;  // tracks inside now (seen, or unseen for less than track_timeout)
  std::map<std::string, uint64_t> occupancy_per_class;
  uint64_t entries = 0, exits = 0;  // since the analytics started
  std::map<std::string, uint64_t> entries_per_class;
};

struct AnalyticsCounts {
  std::vector<LineCounts> lines;  // in the config's order
  std::vector<ZoneCounts> zones;
};

class StreamAnalytics {
 public:
  StreamAnalytics(std::string stream_id, AnalyticsConfig config);
  ~StreamAnalytics();
  StreamAnalytics(StreamAnalytics&&) noexcept;
  StreamAnalytics& operator=(StreamAnalytics&&) noexcept;

  // One frame; the events it caused, in order. Throws std::invalid_argument, naming the line or
  // zone, when the config does not fit the frame (checked on the first frame and whenever the
  // size changes); the state is then unchanged.
  std::vector<AnalyticsEvent> update(const AnalyticsFrame& frame);
  // The stream starts again and its track ids with it: every track leaves its zones (reason
  // "reset", events returned, stamped with `at`'s frame and times) and is forgotten. Totals stay.
  std::vector<AnalyticsEvent> reset(const AnalyticsFrame& at);

  AnalyticsCounts counts() const;
  const AnalyticsConfig& config() const;
  // The config in pixels of the last frame's size; nullopt before the first frame.
  std::optional<AnalyticsConfig> placed() const;
  int frame_width() const;  // of the last frame; 0 before the first
  int frame_height() const;
  const std::string& stream_id() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace yolo::analytics
