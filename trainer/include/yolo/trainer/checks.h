// `yolo-trainer checks`: what this build and machine offer, and a one-line verdict.
#pragma once

#include <string>

namespace yolo {

struct BackendInfo;
struct BlasInfo;

struct ChecksReport {
  std::string text;     // the full report, one fact per line
  std::string verdict;  // the last line
};

// Builds the report from the given facts (separate from gathering them, for tests).
ChecksReport format_checks(const BackendInfo& backend, const BlasInfo& blas, int threads,
                           const std::string& opencv_version, const std::string& gstreamer_version);

// Gathers the facts of this process and formats them.
ChecksReport run_checks();

}  // namespace yolo
