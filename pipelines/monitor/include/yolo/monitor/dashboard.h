// The monitoring dashboard: one self-contained HTML page (no external assets) served at / by
// the HTTP server (HttpServerOptions::dashboard_html). It polls GET /api/v1/streams and shows
// one tile per stream: latest snapshot, state colour, fps and latest detections. The token comes
// from a ?token= query parameter or a prompt and is sent as a Bearer header.
// Source: pipelines/monitor/dashboard.html, embedded at build time.
#pragma once

#include <string>

namespace yolo::monitor {

const std::string& dashboard_html();

}  // namespace yolo::monitor
