#include "yolo/tracking/stream_trackers.h"

#include <utility>

namespace yolo::tracking {

StreamTrackers::StreamTrackers(TrackerConfig config) : config_(std::move(config)) {}

Tracker& StreamTrackers::tracker(const std::string& stream) {
  auto it = trackers_.find(stream);
  if (it == trackers_.end()) it = trackers_.emplace(stream, Tracker(config_)).first;
  return it->second;
}

std::vector<Track> StreamTrackers::update(const std::string& stream,
                                          const std::vector<TrackerDetection>& detections,
                                          const cv::Mat* frame) {
  return tracker(stream).update(detections, frame);
}

void StreamTrackers::reset(const std::string& stream) {
  auto it = trackers_.find(stream);
  if (it != trackers_.end()) it->second.reset();
}

void StreamTrackers::remove(const std::string& stream) {
  trackers_.erase(stream);
}

}  // namespace yolo::tracking
