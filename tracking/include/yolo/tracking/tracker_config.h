// A tracker's settings: Ultralytics' tracker YAML keys, defaults and meanings
// (ultralytics/cfg/trackers/{bytetrack,botsort}.yaml, 8.4.190). `tracker=botsort.yaml` and
// `tracker=bytetrack.yaml` name the built-in files (config/trackers/, compiled in); any other
// value is a path to a user's YAML with the same keys.
#pragma once

#include <string>
#include <vector>

namespace yolo::tracking {

enum class TrackerType { kByteTrack, kBotSort };

// Global (camera) motion compensation of BoT-SORT, as Ultralytics' `gmc_method`.
enum class GmcMethod { kNone, kSparseOptFlow, kOrb, kSift, kEcc };

struct TrackerConfig {
  TrackerType type = TrackerType::kBotSort;
  // Detections at or above this score take part in the first association...
  double track_high_thresh = 0.25;
  // ...those above this one (and below the high one) in the second.
  double track_low_thresh = 0.1;
  // An unmatched high detection needs this score to start a track.
  double new_track_thresh = 0.25;
  // Frames a lost track is kept (Ultralytics passes frame_rate 30, so this is in frames).
  int track_buffer = 30;
  // Cost limit of the first association (1 - IoU, or 1 - IoU * score with fuse_score).
  double match_thresh = 0.8;
  bool fuse_score = true;
  // BoT-SORT only.
  GmcMethod gmc_method = GmcMethod::kSparseOptFlow;
  double proximity_thresh = 0.5;
  double appearance_thresh = 0.8;
  bool with_reid = false;  // refused when true: no appearance model yet
  std::string reid_model = "auto";
  // Where the settings came from ("botsort.yaml (built in)" or a path), for messages.
  std::string source;
};

// The built-in file names (bytetrack.yaml, botsort.yaml).
std::vector<std::string> builtin_tracker_names();

// Reads a built-in name or a YAML file. Every problem is a yolo::UsageError naming the file and
// the key: a missing file, YAML that does not parse, an unknown key (with the nearest valid one),
// a value of the wrong type or out of range, an unsupported tracker_type or gmc_method, and
// with_reid: True. Keys the file leaves out take the built-in default of its tracker_type.
TrackerConfig load_tracker_config(const std::string& name_or_path);

// The same from YAML text; `source` names it in messages.
TrackerConfig parse_tracker_config(const std::string& yaml_text, const std::string& source);

// The checks parse_tracker_config makes on values, for settings that arrive already as values
// (a yolotracker element's `settings` structure): fractions in 0..1, track_buffer 0..1000000,
// track_low_thresh not above track_high_thresh, no with_reid. Throws yolo::UsageError naming
// config.source.
void check_tracker_config(const TrackerConfig& config);

const char* to_string(TrackerType type);
const char* to_string(GmcMethod method);

}  // namespace yolo::tracking
