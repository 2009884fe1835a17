// The synthetic video: shapes gliding and spinning over a static background, leaving through
// the side edges and coming back, with the ground truth of every frame.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "backgrounds.h"
#include "class_look.h"
#include "scene.h"
#include "shapes.h"
#include "synth_random.h"
#include "yolo/core/atomic_file.h"
#include "yolo/media/h264_writer.h"
#include "yolo/synth/synthetic_data.h"

namespace yolo::synth {
namespace {

// Random stream id of the video, after the train (0) and val (1) image streams.
constexpr uint64_t kVideoStream = 2;
// Shape diameters as a fraction of the frame height, and speeds in frame heights per second:
// big enough to detect at a glance, slow enough to track.
constexpr double kMinSpeed = 0.15, kMaxSpeed = 0.45;
constexpr double kMaxSpinDegPerSecond = 90;
// How long a shape that left stays out of view: from a blink to well past a tracker's default
// 30-frame memory, so trackers meet both a short absence and a forgotten object coming back.
constexpr double kMinAwaySeconds = 0.3, kMaxAwaySeconds = 3.0;
constexpr double kPi = 3.14159265358979323846;

// Where a shape is with respect to the side edges.
enum class SidePhase {
  kInside,   // whole in the frame: bounces off the top and bottom, meets a side edge
  kLeaving,  // crossing a side edge outwards
  kAway,     // out of view, waiting to come back
  kEntering  // crossing the same edge inwards
};

struct MovingShape {
  int class_id = 0;      // the label (see SceneShape::class_id)
  ShapeSpec spec;        // current position and angle
  cv::Point2d velocity;  // pixels per frame
  double spin = 0;       // degrees per frame
  cv::Mat texture;       // CV_8UC3 square patch larger than the shape at any angle
  SidePhase phase = SidePhase::kInside;
  bool leaves_at_next_side = false;  // side edges alternate: bounce, leave, bounce, ...
  int away_frames = 0;               // frames left out of view while kAway
};

cv::Size video_frame_size(int imgsz) {
  const int width = imgsz / 2 * 2;
  const int height = static_cast<int>(std::lround(imgsz * 9.0 / 16.0 / 2.0)) * 2;
  return {width, height};
}

// Advances one frame. The top and bottom edges bounce a shape back; the side edges alternately
// bounce it back and let it leave, whole, for a random while before it comes back through the
// same edge. The ground truth keeps its identity, as a person walking out and back in is still
// the same person: a tracker that gives it a new id is charged a switch.
void step(MovingShape& m, cv::Size frame, double fps, Random& rng) {
  const double r = m.spec.diameter / 2;
  cv::Point2d& p = m.spec.centre;
  m.spec.angle_deg = std::fmod(m.spec.angle_deg + m.spin + 360.0, 360.0);
  if (m.phase == SidePhase::kAway) {
    if (--m.away_frames > 0) return;
    m.velocity.x = -m.velocity.x;
    m.phase = SidePhase::kEntering;
  }
  p += m.velocity;
  if (p.y < r) p.y = 2 * r - p.y, m.velocity.y = std::abs(m.velocity.y);
  if (p.y > frame.height - r)
    p.y = 2 * (frame.height - r) - p.y, m.velocity.y = -std::abs(m.velocity.y);
  const bool past_left = p.x<r, past_right = p.x> frame.width - r;
  switch (m.phase) {
    case SidePhase::kInside:
      if (!past_left && !past_right) break;
      if (m.leaves_at_next_side) {
        m.phase = SidePhase::kLeaving;
      } else if (past_left) {
        p.x = 2 * r - p.x, m.velocity.x = std::abs(m.velocity.x);
      } else {
        p.x = 2 * (frame.width - r) - p.x, m.velocity.x = -std::abs(m.velocity.x);
      }
      m.leaves_at_next_side = !m.leaves_at_next_side;
      break;
    case SidePhase::kLeaving:
      if (p.x < -r || p.x > frame.width + r) {
        m.phase = SidePhase::kAway;
        m.away_frames = std::max(
            1, static_cast<int>(std::lround(rng.uniform(kMinAwaySeconds, kMaxAwaySeconds) * fps)));
      }
      break;
    case SidePhase::kEntering:
      if (!past_left && !past_right) m.phase = SidePhase::kInside;
      break;
    case SidePhase::kAway:
      break;
  }
}

std::vector<MovingShape> make_moving_shapes(const SynthOptions& o, cv::Size frame,
                                            const cv::Mat& background, double noise_sigma,
                                            Random& rng) {
  std::vector<MovingShape> shapes;
  std::vector<cv::Scalar> colours;
  // Consecutive classes from a random start, so every class appears when there are enough shapes.
  const int first_class = rng.uniform_int(0, o.num_classes - 1);
  for (int i = 0; i < o.video_objects; ++i) {
    MovingShape m;
    const double diameter =
        rng.uniform(o.video_min_object_size, o.video_max_object_size) * frame.height;
    const double r = diameter / 2;
    const cv::Point2d centre(rng.uniform(r, frame.width - r), rng.uniform(r, frame.height - r));
    m.class_id = (first_class + i) % o.num_classes;
    const ClassLook look = look_for_class(o, m.class_id, rng);
    m.spec = sample_shape_spec(look.shape, centre, diameter, rng);
    const double speed = rng.uniform(kMinSpeed, kMaxSpeed) * frame.height / o.video_fps;
    const double heading = rng.uniform(0.0, 2 * kPi);
    m.velocity = {speed * std::cos(heading), speed * std::sin(heading)};
    m.spin = rng.uniform(-kMaxSpinDegPerSecond, kMaxSpinDegPerSecond) / o.video_fps;
    m.leaves_at_next_side = i % 2 == 1;  // half the shapes leave at their first side edge
    const cv::Scalar colour =
        look.colour ? *look.colour : pick_contrasting_colour(cv::mean(background), colours, rng);
    colours.push_back(colour);
    const int patch = static_cast<int>(std::ceil(diameter)) + 8;
    m.texture = make_shape_fill({patch, patch}, colour, noise_sigma, rng, o.clutter);
    shapes.push_back(std::move(m));
  }
  return shapes;
}

// The shape's texture for this frame: the centre of its patch, so it moves with the shape.
cv::Mat texture_for(const MovingShape& m, cv::Size raster_size) {
  const cv::Rect crop((m.texture.cols - raster_size.width) / 2,
                      (m.texture.rows - raster_size.height) / 2, raster_size.width,
                      raster_size.height);
  return m.texture(crop & cv::Rect(0, 0, m.texture.cols, m.texture.rows));
}

double round_to(double v, double step) {
  return std::round(v / step) * step;
}

}  // namespace

std::string synthetic_video_unavailable_reason() {
  return media::h264_writer_unavailable_reason("mp4");
}

void generate_synthetic_video(const SynthOptions& options, const std::filesystem::path& video,
                              const std::filesystem::path& jsonl,
                              const std::filesystem::path& mot) {
  validate_synth_options(options);
  Random rng(stream_seed(options.seed, kVideoStream, 0));
  const cv::Size frame_size = video_frame_size(options.imgsz);
  const Background bg = make_background(frame_size, rng, options.clutter);
  std::vector<MovingShape> moving =
      make_moving_shapes(options, frame_size, bg.image, bg.noise_sigma, rng);

  spdlog::info("synth: writing {} frames of {}x{} at {} fps to {}", options.video_frames,
               frame_size.width, frame_size.height, options.video_fps, video.string());
  const std::vector<std::string> names = synth_class_names(options);
  std::string ground_truth, mot_ground_truth;
  write_atomically(video, [&](const std::filesystem::path& tmp) {
    // zero_latency: the video is served again as a live camera (RTSP) in the monitor's tests.
    media::H264Writer writer(tmp, frame_size,
                             media::H264WriterOptions{double(options.video_fps), true, "mp4"});
    cv::Mat frame;
    const std::vector<bool> all_active(moving.size(), true);
    for (int f = 0; f < options.video_frames; ++f) {
      std::vector<SceneShape> scene(moving.size());
      for (size_t i = 0; i < moving.size(); ++i) {
        scene[i].class_id = moving[i].class_id;
        scene[i].spec = moving[i].spec;
        scene[i].raster = rasterize_shape(moving[i].spec);
        scene[i].fill = texture_for(moving[i], scene[i].raster.mask.size());
      }
      const std::vector<VisiblePart> parts = resolve_visibility(frame_size, scene, all_active);
      bg.image.copyTo(frame);
      composite(frame, scene, parts);
      writer.write(frame);

      // ordered_json keeps the documented field order, which makes the file easy to read.
      nlohmann::ordered_json objects = nlohmann::ordered_json::array();
      for (const auto& p : parts) {
        if (p.visible_area == 0) continue;  // fully hidden: nothing on screen to detect
        const int class_id = scene[p.shape].class_id;
        objects.push_back({{"track_id", p.shape},
                           {"class_id", class_id},
                           {"class_name", names[class_id]},
                           {"x1", p.box.x},
                           {"y1", p.box.y},
                           {"x2", p.box.x + p.box.width},
                           {"y2", p.box.y + p.box.height},
                           {"visibility", round_to(p.visibility, 1e-4)}});
        mot_ground_truth += fmt::format("{},{},{},{},{},{},1,-1,-1,-1\n", f + 1, p.shape + 1,
                                        p.box.x, p.box.y, p.box.width, p.box.height);
      }
      const nlohmann::ordered_json line = {
          {"frame", f},
          {"pts_ms", round_to(f * 1000.0 / options.video_fps, 1e-3)},
          {"width", frame_size.width},
          {"height", frame_size.height},
          {"objects", std::move(objects)}};
      ground_truth += line.dump();
      ground_truth += '\n';

      for (auto& m : moving) step(m, frame_size, options.video_fps, rng);
      const int n = f + 1, total = options.video_frames;
      if (total >= 100 && n < total && n * 4 / total != (n - 1) * 4 / total) {
        spdlog::info("synth: video {}/{} frames ({}%)", n, total, n * 100 / total);
      }
    }
    writer.finish();
  });
  write_file_atomically(jsonl, ground_truth);
  if (!mot.empty()) {
    std::filesystem::create_directories(mot.parent_path());
    write_file_atomically(mot, mot_ground_truth);
  }
  spdlog::info("synth: video done: {} and {}", video.string(), jsonl.string());
}

}  // namespace yolo::synth
