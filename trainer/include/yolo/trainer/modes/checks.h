// `yolo-trainer checks`: what this build and machine offer, and a one-line verdict.
#pragma once

#include <string>

#include "yolo/core/cpu_features.h"

namespace yolo {

struct BackendInfo;
struct BlasInfo;

struct ChecksReport {
  std::string text;     // the full report, one fact per line
  std::string verdict;  // the last line
};

// Builds the report from the given facts (separate from gathering them, for tests).
// `cpu`: what the CPU computes natively beyond its baseline (decides the inference precision).
ChecksReport format_checks(const BackendInfo& backend, const BlasInfo& blas, int threads,
                           const std::string& opencv_version, const std::string& gstreamer_version,
                           const CpuFeatures& cpu = {});

// Gathers the facts of this process and formats them.
ChecksReport run_checks();

}  // namespace yolo
