#include "yolo/monitor/service_readiness.h"

#include <map>

#include "yolo/monitor/stream_manager.h"
#include "yolo/monitor/stream_supervisor.h"
#include "yolo/serving/readiness_board.h"

namespace yolo::monitor {

nlohmann::json service_readiness(const StreamManager& streams) {
  std::map<std::string, int> by_state;
  int total = 0, loading = 0;
  for (const std::string& id : streams.ids()) {
    const std::optional<StreamStats> s = streams.stats(id);
    if (!s) continue;  // removed since ids() was read
    ++total;
    ++by_state[to_string(s->state)];
    loading += s->activity == to_string(Readiness::kLoadingModel);
  }
  const auto count = [&](StreamState state) {
    const auto it = by_state.find(to_string(state));
    return it == by_state.end() ? 0 : it->second;
  };
  const int running = count(StreamState::kRunning);
  const int starting = count(StreamState::kStarting);
  std::string state;
  if (total == 0) {
    state = "idle";
  } else if (loading > 0) {
    state = to_string(Readiness::kLoadingModel);
  } else if (starting > 0) {
    state = "starting";
  } else if (running == total) {
    state = "ready";
  } else {
    state = running > 0 ? "degraded" : "down";
  }
  return {{"state", state}, {"ready", total == 0 || running > 0}, {"streams", by_state}};
}

std::optional<StreamStatus> stream_status(const StreamManager& streams, const std::string& id) {
  const std::optional<StreamStats> s = streams.stats(id);
  if (!s) return std::nullopt;
  StreamStatus status;
  status.state = s->activity.empty() ? to_string(s->state) : s->activity;
  status.detail = !s->activity_detail.empty() ? s->activity_detail : s->last_error;
  status.transient = s->state != StreamState::kFailed && s->state != StreamState::kStopped;
  return status;
}

}  // namespace yolo::monitor
