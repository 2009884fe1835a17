// Scenes for the tracker parity tests: objects that move, cross, stop being seen, leave and come
// back, seen through a detector's typical faults (box jitter, scores that drop into the low band
// under occlusion, misses, false positives, duplicate boxes, scores under every threshold), and
// optionally a camera that pans over a textured world so motion compensation has work to do.
// Deterministic per seed; each seed is a different scene, so the parity holds on scenes no one
// tuned for.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "yolo/tracking/tracker.h"

namespace yolo::testing {

struct TrackScenario {
  int width = 640, height = 480;
  std::vector<std::vector<yolo::tracking::TrackerDetection>> detections;  // per frame
  std::vector<cv::Mat> frames;  // per frame, BGR; empty unless pan was asked for
};

struct ScenarioOptions {
  unsigned seed = 1;
  int frames = 400;
  int objects = 14;
  int width = 640, height = 480;
  bool pan = false;  // render frames from a camera that pans and shakes
};

namespace scenario_detail {

struct MovingObject {
  double x0, y0, vx, vy, wobble, phase, w, h;
  int cls;
  float base_score;
  std::vector<std::pair<int, int>> hidden;  // [from, to) frames with no detection
};

inline MovingObject make_object(std::mt19937& rng, const ScenarioOptions& o, int i) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  MovingObject m{};
  m.w = 25 + 70 * u(rng);
  m.h = m.w * (0.6 + 1.6 * u(rng));
  // Pairs of objects start on opposite sides of one line and walk into each other: crossings.
  const bool crossing = i % 3 == 0;
  m.y0 = 60 + (o.height - 120) * u(rng);
  m.x0 = crossing ? (i % 2 ? -40.0 : o.width + 40.0) : o.width * u(rng);
  const double speed = 1.0 + 5.0 * u(rng);
  m.vx = crossing ? (i % 2 ? speed : -speed) : (u(rng) - 0.5) * 6;
  m.vy = (u(rng) - 0.5) * 2.5;
  m.wobble = 6 * u(rng);
  m.phase = 6.28 * u(rng);
  m.cls = static_cast<int>(u(rng) * 3);
  m.base_score = static_cast<float>(0.22 + 0.73 * u(rng));  // some near the thresholds
  const int gaps = static_cast<int>(u(rng) * 4);
  for (int g = 0; g < gaps; ++g) {
    const int from = static_cast<int>(u(rng) * o.frames);
    // Short gaps (re-found by the Kalman prediction) and long ones around track_buffer.
    const int length =
        u(rng) < 0.5 ? 2 + static_cast<int>(u(rng) * 12) : 20 + static_cast<int>(u(rng) * 30);
    m.hidden.emplace_back(from, from + length);
  }
  return m;
}

// Where the object is in world pixels at frame f (objects bounce off the world's edges after
// leaving the frame, so they come back in).
inline cv::Rect2d world_box(const MovingObject& m, int f, const ScenarioOptions& o) {
  const double span_x = o.width + 200.0, span_y = o.height + 120.0;
  auto bounce = [](double v, double span) {
    const double period = 2 * span;
    double t = std::fmod(v, period);
    if (t < 0) t += period;
    return t < span ? t : period - t;
  };
  const double cx = bounce(m.x0 + m.vx * f + 100, span_x) - 100;
  const double cy =
      bounce(m.y0 + m.vy * f + m.wobble * std::sin(0.05 * f + m.phase) + 60, span_y) - 60;
  return {cx - m.w / 2, cy - m.h / 2, m.w, m.h};
}

inline cv::Mat world_texture(std::mt19937& rng, int width, int height) {
  cv::Mat noise(height, width, CV_8UC3);
  cv::RNG cv_rng(rng());
  cv_rng.fill(noise, cv::RNG::UNIFORM, 0, 255);
  cv::Mat smooth;
  cv::GaussianBlur(noise, smooth, cv::Size(0, 0), 2.5);
  for (int i = 0; i < 150; ++i) {
    const cv::Point c(cv_rng.uniform(0, width), cv_rng.uniform(0, height));
    cv::rectangle(smooth, cv::Rect(c, cv::Size(cv_rng.uniform(6, 60), cv_rng.uniform(6, 60))),
                  cv::Scalar::all(cv_rng.uniform(0, 255)), -1);
  }
  return smooth;
}

}  // namespace scenario_detail

inline TrackScenario make_track_scenario(const ScenarioOptions& o) {
  using namespace scenario_detail;
  std::mt19937 rng(o.seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> jitter(0.0, 1.5);
  TrackScenario s;
  s.width = o.width;
  s.height = o.height;
  std::vector<MovingObject> objects;
  for (int i = 0; i < o.objects; ++i) objects.push_back(make_object(rng, o, i));
  const int margin = 120;
  cv::Mat world;
  if (o.pan) world = world_texture(rng, o.width + 2 * margin, o.height + 2 * margin);
  for (int f = 0; f < o.frames; ++f) {
    // The camera: a slow pan that turns back, plus a little shake.
    cv::Point2d cam(0, 0);
    if (o.pan) {
      cam = {margin + 100 * std::sin(0.02 * f) + 2 * std::sin(1.3 * f),
             margin + 50 * std::sin(0.013 * f + 1) + 1.5 * std::cos(1.7 * f)};
    }
    cv::Mat frame;
    if (o.pan) {
      cv::Mat shift = (cv::Mat_<double>(2, 3) << 1, 0, -cam.x, 0, 1, -cam.y);
      cv::warpAffine(world, frame, shift, cv::Size(o.width, o.height), cv::INTER_LINEAR);
    }
    std::vector<yolo::tracking::TrackerDetection> dets;
    for (const MovingObject& m : objects) {
      cv::Rect2d b = world_box(m, f, o);
      if (o.pan) b -= cv::Point2d(cam.x - margin, cam.y - margin);
      const cv::Rect2d seen = b & cv::Rect2d(0, 0, o.width, o.height);
      if (seen.area() < 0.3 * b.area()) continue;  // mostly outside the frame
      if (o.pan) {
        cv::rectangle(frame, cv::Rect(seen), cv::Scalar(40 + 60 * m.cls, 200, 90), -1);
      }
      bool hidden = false;
      for (const auto& [from, to] : m.hidden) hidden = hidden || (f >= from && f < to);
      if (hidden || u(rng) < 0.04) continue;  // occluded, or missed by the detector
      float score = static_cast<float>(m.base_score + 0.05 * (u(rng) - 0.5));
      if (u(rng) < 0.12) score = static_cast<float>(0.08 + 0.17 * u(rng));  // partly occluded
      auto clamp_x = [&](double v) {
        return static_cast<float>(std::clamp(v, 0.0, 1.0 * o.width));
      };
      auto clamp_y = [&](double v) {
        return static_cast<float>(std::clamp(v, 0.0, 1.0 * o.height));
      };
      yolo::tracking::TrackerDetection d{clamp_x(seen.x + jitter(rng)),
                                         clamp_y(seen.y + jitter(rng)),
                                         clamp_x(seen.br().x + jitter(rng)),
                                         clamp_y(seen.br().y + jitter(rng)),
                                         score,
                                         m.cls};
      dets.push_back(d);
      if (u(rng) < 0.03) {  // a duplicate box NMS let through
        yolo::tracking::TrackerDetection dup = d;
        dup.x1 += 4, dup.x2 += 6, dup.score *= 0.6f;
        dets.push_back(dup);
      }
    }
    const int false_positives = u(rng) < 0.3 ? 1 + static_cast<int>(u(rng) * 2) : 0;
    for (int k = 0; k < false_positives; ++k) {
      const float x = static_cast<float>(u(rng) * (o.width - 60));
      const float y = static_cast<float>(u(rng) * (o.height - 60));
      dets.push_back({x, y, x + 20 + static_cast<float>(u(rng) * 40),
                      y + 20 + static_cast<float>(u(rng) * 40),
                      static_cast<float>(0.05 + 0.5 * u(rng)), static_cast<int>(u(rng) * 3)});
    }
    std::shuffle(dets.begin(), dets.end(), rng);
    s.detections.push_back(std::move(dets));
    if (o.pan) s.frames.push_back(frame);
  }
  return s;
}

// The scene's detections as the oracle script reads them (tools/parity/
// ultralytics_track_replay.py): `frame x1 y1 x2 y2 score class` a line, frames from 1; %.9g writes
// a float32 exactly, so both sides track the same values.
inline void write_scenario_detections(const TrackScenario& s, const std::filesystem::path& path) {
  std::ofstream out(path);
  char line[256];
  for (size_t f = 0; f < s.detections.size(); ++f) {
    for (const yolo::tracking::TrackerDetection& d : s.detections[f]) {
      std::snprintf(line, sizeof line, "%zu %.9g %.9g %.9g %.9g %.9g %d\n", f + 1, d.x1, d.y1, d.x2,
                    d.y2, d.score, d.class_id);
      out << line;
    }
  }
}

// The same format read back (detections recorded from a real detector, tests/tracking/data/).
inline TrackScenario read_scenario_detections(const std::filesystem::path& path, int width,
                                              int height) {
  TrackScenario s;
  s.width = width;
  s.height = height;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    size_t frame = 0;
    yolo::tracking::TrackerDetection d;
    ls >> frame >> d.x1 >> d.y1 >> d.x2 >> d.y2 >> d.score >> d.class_id;
    if (!ls || frame == 0) continue;
    if (s.detections.size() < frame) s.detections.resize(frame);
    s.detections[frame - 1].push_back(d);
  }
  return s;
}

// The scene's frames as dir/NNNNNN.png (lossless, so both trackers see the same pixels).
inline void write_scenario_frames(const TrackScenario& s, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (size_t f = 0; f < s.frames.size(); ++f) {
    char name[32];
    std::snprintf(name, sizeof name, "%06zu.png", f + 1);
    cv::imwrite((dir / name).string(), s.frames[f], {cv::IMWRITE_PNG_COMPRESSION, 1});
  }
}

}  // namespace yolo::testing
