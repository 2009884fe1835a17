#include "yolo/tracking/tracker_config.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "builtin_tracker_yamls.h"
#include "yolo/core/error.h"
#include "yolo/core/strings.h"
#include "yolo/core/text_file.h"
#include "yolo/core/utf8.h"
#include "yolo/core/whole_number.h"

namespace yolo::tracking {
namespace {

// Every key of Ultralytics' two tracker files. ByteTrack reads the first seven; the BoT-SORT
// ones are accepted in a bytetrack file too (Ultralytics ignores them there), so one file can be
// switched between the two by its tracker_type alone.
const std::vector<std::string>& known_keys() {
  static const std::vector<std::string> keys = {
      "tracker_type",     "track_high_thresh", "track_low_thresh", "new_track_thresh",
      "track_buffer",     "match_thresh",      "fuse_score",       "gmc_method",
      "proximity_thresh", "appearance_thresh", "with_reid",        "model"};
  return keys;
}

// Ultralytics' other trackers, named so that a user who copies their file learns why it fails.
const std::vector<std::string>& other_ultralytics_trackers() {
  static const std::vector<std::string> names = {"ocsort", "deepocsort", "fasttrack", "tracktrack"};
  return names;
}

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw UsageError("tracker settings " + source + ": " + what);
}

std::string scalar_text(const YAML::Node& node) {
  return node.IsScalar() ? node.Scalar() : std::string("a ") + (node.IsMap() ? "mapping" : "list");
}

// The limits a YAML file and a structure given as a value are both held to.
constexpr int kMaxFrames = 1000000;

bool is_fraction(double value) {
  return std::isfinite(value) && value >= 0.0 && value <= 1.0;
}

double read_fraction(const YAML::Node& node, const std::string& key, const std::string& source) {
  double value = 0.0;
  try {
    value = node.as<double>();
  } catch (const YAML::Exception&) {
    fail(source, key + ": '" + scalar_text(node) + "' is not a number (a value from 0 to 1)");
  }
  if (!is_fraction(value)) fail(source, key + ": " + scalar_text(node) + " is outside 0..1");
  return value;
}

bool read_bool(const YAML::Node& node, const std::string& key, const std::string& source) {
  const std::string text = node.IsScalar() ? lower(node.Scalar()) : "";
  if (text == "true") return true;
  if (text == "false") return false;
  fail(source, key + ": '" + scalar_text(node) + "' is not True or False");
}

int read_frames(const YAML::Node& node, const std::string& key, const std::string& source) {
  if (!node.IsScalar()) fail(source, key + ": " + scalar_text(node) + " is not a number of frames");
  const WholeNumber n = read_whole_number(node.Scalar(), 0, kMaxFrames);
  if (!n.value)
    fail(source, key + ": " + n.problem + "; give a number of frames from 0 to " +
                     std::to_string(kMaxFrames));
  return static_cast<int>(*n.value);
}

TrackerType read_type(const YAML::Node& root, const std::string& source) {
  const YAML::Node node = root["tracker_type"];
  if (!node) fail(source, "tracker_type is missing (bytetrack or botsort)");
  const std::string name = lower(scalar_text(node));
  if (name == "bytetrack") return TrackerType::kByteTrack;
  if (name == "botsort") return TrackerType::kBotSort;
  for (const std::string& other : other_ultralytics_trackers()) {
    if (name == other) {
      fail(source, "tracker_type: " + name +
                       " is one of Ultralytics' trackers this product does not have yet; use "
                       "bytetrack or botsort (tracker=bytetrack.yaml or tracker=botsort.yaml)");
    }
  }
  fail(source, "tracker_type: '" + scalar_text(node) + "' is not bytetrack or botsort");
}

GmcMethod read_gmc(const YAML::Node& node, const std::string& source) {
  if (node.IsNull()) return GmcMethod::kNone;
  const std::string name = scalar_text(node);
  if (name == "sparseOptFlow") return GmcMethod::kSparseOptFlow;
  if (name == "orb") return GmcMethod::kOrb;
  if (name == "sift") return GmcMethod::kSift;
  if (name == "ecc") return GmcMethod::kEcc;
  if (name == "none" || name == "None") return GmcMethod::kNone;
  fail(source, "gmc_method: '" + name + "' is not one of sparseOptFlow, orb, sift, ecc, none");
}

void refuse_unknown_keys(const YAML::Node& root, const std::string& source) {
  for (const auto& entry : root) {
    if (!entry.first.IsScalar()) {
      fail(source, "a key is " + scalar_text(entry.first) + ", not a name (tracker_type, ...)");
    }
    const std::string key = entry.first.Scalar();
    bool known = false;
    for (const std::string& k : known_keys()) known = known || k == key;
    if (known) continue;
    const std::vector<std::string> near = closest_matches(key, known_keys(), 1);
    fail(source, "unknown key '" + key + "'" +
                     (near.empty() ? std::string() : " (did you mean '" + near.front() + "'?)") +
                     "; the keys are those of Ultralytics' bytetrack.yaml and botsort.yaml");
  }
}

void read_values(const YAML::Node& root, const std::string& source, TrackerConfig& c) {
  if (const YAML::Node n = root["track_high_thresh"]) {
    c.track_high_thresh = read_fraction(n, "track_high_thresh", source);
  }
  if (const YAML::Node n = root["track_low_thresh"]) {
    c.track_low_thresh = read_fraction(n, "track_low_thresh", source);
  }
  if (const YAML::Node n = root["new_track_thresh"]) {
    c.new_track_thresh = read_fraction(n, "new_track_thresh", source);
  }
  if (const YAML::Node n = root["track_buffer"]) {
    c.track_buffer = read_frames(n, "track_buffer", source);
  }
  if (const YAML::Node n = root["match_thresh"]) {
    c.match_thresh = read_fraction(n, "match_thresh", source);
  }
  if (const YAML::Node n = root["fuse_score"]) c.fuse_score = read_bool(n, "fuse_score", source);
  if (const YAML::Node n = root["gmc_method"]) c.gmc_method = read_gmc(n, source);
  if (const YAML::Node n = root["proximity_thresh"]) {
    c.proximity_thresh = read_fraction(n, "proximity_thresh", source);
  }
  if (const YAML::Node n = root["appearance_thresh"]) {
    c.appearance_thresh = read_fraction(n, "appearance_thresh", source);
  }
  if (const YAML::Node n = root["with_reid"]) c.with_reid = read_bool(n, "with_reid", source);
  if (const YAML::Node n = root["model"]) c.reid_model = scalar_text(n);
}

void check_consistency(const TrackerConfig& c, const std::string& source) {
  if (c.track_low_thresh > c.track_high_thresh) {
    std::ostringstream m;
    m << "track_low_thresh " << c.track_low_thresh << " is above track_high_thresh "
      << c.track_high_thresh << ": no detection could reach the second association";
    fail(source, m.str());
  }
  if (c.with_reid) {
    fail(source,
         "with_reid: True needs an appearance (ReID) model, which this product does not have "
         "yet; set with_reid: False (BoT-SORT then matches on motion and IoU, as Ultralytics "
         "does by default)");
  }
}

}  // namespace

void check_tracker_config(const TrackerConfig& c) {
  const std::pair<const char*, double> fractions[] = {
      {"track_high_thresh", c.track_high_thresh}, {"track_low_thresh", c.track_low_thresh},
      {"new_track_thresh", c.new_track_thresh},   {"match_thresh", c.match_thresh},
      {"proximity_thresh", c.proximity_thresh},   {"appearance_thresh", c.appearance_thresh}};
  for (const auto& [key, value] : fractions) {
    if (is_fraction(value)) continue;
    std::ostringstream m;
    m << key << ": " << value << " is outside 0..1";
    fail(c.source, m.str());
  }
  if (c.track_buffer < 0 || c.track_buffer > kMaxFrames)
    fail(c.source, "track_buffer: " + std::to_string(c.track_buffer) + " is outside 0.." +
                       std::to_string(kMaxFrames));
  check_consistency(c, c.source);
}

namespace {

const char* find_builtin(const std::string& name) {
  for (const BuiltinTrackerYaml& y : builtin_tracker_yamls()) {
    if (name == y.name) return y.text;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> builtin_tracker_names() {
  std::vector<std::string> names;
  for (const BuiltinTrackerYaml& y : builtin_tracker_yamls()) names.emplace_back(y.name);
  return names;
}

TrackerConfig parse_tracker_config(const std::string& yaml_text, const std::string& source) {
  // yaml-cpp passes other bytes through, and a message quoting them would echo them raw.
  if (const auto bad = find_invalid_utf8(yaml_text)) {
    fail(escape_invalid_utf8(source), "not UTF-8 text: " + describe(*bad) + "; save it as UTF-8");
  }
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    fail(source, std::string("not valid YAML (") + e.what() + ")");
  }
  if (!root.IsMap()) {
    fail(source, "expected a mapping of keys (tracker_type: botsort, track_buffer: 30, ...)");
  }
  TrackerConfig c;
  try {
    refuse_unknown_keys(root, source);
    c.type = read_type(root, source);
    c.source = source;
    read_values(root, source, c);
  } catch (const YAML::Exception& e) {
    // A shape the readers above did not foresee still gets the file's name, never a crash.
    fail(source, std::string("cannot be read (") + e.what() + ")");
  }
  check_consistency(c, source);
  return c;
}

TrackerConfig load_tracker_config(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  // A file the user has wins over a built-in of the same name, as Ultralytics' check_yaml does.
  std::error_code ec;
  if (fs::is_directory(name_or_path, ec))
    fail(name_or_path,
         "is a folder; give a tracker YAML file in it, or botsort.yaml or "
         "bytetrack.yaml for the built-in settings");
  if (fs::is_regular_file(name_or_path, ec)) {
    std::string bytes;
    try {
      bytes = read_file_bytes(name_or_path, "the file");
    } catch (const std::runtime_error& e) {
      fail(name_or_path, e.what());
    }
    // A byte-order mark and CRLF line ends, as editors write them (core/text_file.h).
    return parse_tracker_config(editor_text(bytes).text, name_or_path);
  }
  if (const char* text = find_builtin(name_or_path)) {
    return parse_tracker_config(text, name_or_path + " (built in)");
  }
  std::string known;
  for (const std::string& n : builtin_tracker_names()) known += (known.empty() ? "" : ", ") + n;
  const std::vector<std::string> near = closest_matches(name_or_path, builtin_tracker_names(), 1);
  fail(name_or_path, "no such file, and not a built-in tracker (" + known + ")" +
                         (near.empty() ? std::string() : "; did you mean " + near.front() + "?"));
}

const char* to_string(TrackerType type) {
  return type == TrackerType::kByteTrack ? "bytetrack" : "botsort";
}

const char* to_string(GmcMethod method) {
  switch (method) {
    case GmcMethod::kSparseOptFlow:
      return "sparseOptFlow";
    case GmcMethod::kOrb:
      return "orb";
    case GmcMethod::kSift:
      return "sift";
    case GmcMethod::kEcc:
      return "ecc";
    case GmcMethod::kNone:
      break;
  }
  return "none";
}

}  // namespace yolo::tracking
