#include "yolo/serving/readiness_board.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace yolo {

const char* to_string(Readiness readiness) {
  switch (readiness) {
    case Readiness::kStarting:
      return "starting";
    case Readiness::kLoadingModel:
      return "loading model";
    case Readiness::kWaitingForFrames:
      return "waiting for frames";
    case Readiness::kReady:
      return "ready";
  }
  return "unknown";
}

void ReadinessBoard::set(const std::string& stream, Readiness state, std::string detail) {
  std::lock_guard<std::mutex> lock(mutex_);
  streams_[stream] = StreamReadiness{state, std::move(detail)};
}

void ReadinessBoard::remove(const std::string& stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.erase(stream);
}

std::optional<StreamReadiness> ReadinessBoard::of(const std::string& stream) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = streams_.find(stream);
  if (it == streams_.end()) return std::nullopt;
  return it->second;
}

nlohmann::json ReadinessBoard::to_json() const {
  std::lock_guard<std::mutex> lock(mutex_);
  // The enum is ordered from least to most ready: the service is as ready as its slowest stream.
  Readiness least = Readiness::kReady;
  nlohmann::json streams = nlohmann::json::object();
  for (const auto& [id, s] : streams_) {
    least = std::min(least, s.state);
    streams[id] = {{"state", yolo::to_string(s.state)}, {"detail", s.detail}};
  }
  if (streams_.empty()) least = Readiness::kStarting;
  return {{"state", yolo::to_string(least)},
          {"ready", least == Readiness::kReady},
          {"streams", std::move(streams)}};
}

}  // namespace yolo
