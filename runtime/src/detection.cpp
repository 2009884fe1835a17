#include "yolo/runtime/detection.h"

#include <fmt/format.h>

#include <ctime>

namespace yolo {

std::vector<Detection> detections_from_rows(const float* rows, int64_t count,
                                            const std::map<int, std::string>& names) {
  std::vector<Detection> out;
  detections_from_rows(rows, count, names, out);
  return out;
}

void detections_from_rows(const float* rows, int64_t count, const std::map<int, std::string>& names,
                          std::vector<Detection>& out) {
  out.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const float* r = rows + i * 6;
    Detection& d = out[static_cast<size_t>(i)];
    d.x1 = r[0];
    d.y1 = r[1];
    d.x2 = r[2];
    d.y2 = r[3];
    d.confidence = r[4];
    d.class_id = static_cast<int>(r[5]);
    d.track_id = 0;
    auto it = names.find(d.class_id);
    if (it != names.end()) {
      d.class_name = it->second;
    } else {
      d.class_name = fmt::format("class {}", d.class_id);
    }
  }
}

nlohmann::json to_json(const Detection& d) {
  nlohmann::json j = {{"x1", d.x1},
                      {"y1", d.y1},
                      {"x2", d.x2},
                      {"y2", d.y2},
                      {"confidence", d.confidence},
                      {"class_id", d.class_id},
                      {"class_name", d.class_name}};
  // Only when tracking is on, so readers of untracked output see the fields they always saw.
  if (d.track_id > 0) j["track_id"] = d.track_id;
  return j;
}

nlohmann::json to_json(const FrameResult& r) {
  nlohmann::json dets = nlohmann::json::array();
  for (const auto& d : r.detections) dets.push_back(to_json(d));
  return {{"stream_id", r.stream_id},
          {"seq", r.seq},
          {"frame", r.frame},
          {"pts_ns", r.pts_ns},
          {"timestamp", format_utc(r.wall_time)},
          {"width", r.width},
          {"height", r.height},
          {"detections", dets}};
}

}  // namespace yolo
