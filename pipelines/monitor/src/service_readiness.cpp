#include "yolo/monitor/service_readiness.h"

#include <map>

#include "yolo/monitor/stream_manager.h"
#include "yolo/monitor/stream_supervisor.h"
#include "yolo/serving/readiness_board.h"

namespace yolo::monitor {

namespace {

// A stream that has an attempt under way (starting, or rebuilding after a drop or a stall): its
// start-up activity counts. A failed or stopped one has none, whatever was last reported.
bool trying(StreamState state) {
  return state != StreamState::kFailed && state != StreamState::kStopped;
}

}  // namespace

nlohmann::json service_readiness(const StreamManager& streams) {
  std::map<std::string, int> by_state;
  int total = 0, loading = 0;
  for (const std::string& id : streams.ids()) {
    const std::optional<StreamStats> s = streams.stats(id);
    if (!s) continue;  // removed since ids() was read
    ++total;
    ++by_state[to_string(s->state)];
    // Only a stream that is trying can be loading: a failed or stopped one says why it is not.
    loading += trying(s->state) && s->activity == to_string(Readiness::kLoadingModel);
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
  const bool activity = trying(s->state) && !s->activity.empty();
  status.state = activity ? s->activity : to_string(s->state);
  status.detail = activity && !s->activity_detail.empty() ? s->activity_detail : s->last_error;
  status.transient = s->state != StreamState::kFailed && s->state != StreamState::kStopped;
  return status;
}

}  // namespace yolo::monitor
