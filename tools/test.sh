#!/usr/bin/env bash
# Sets up and runs every test: installs dependencies (apt), configures, builds, runs ctest.
#   tools/test.sh                 all tests (labels unit, integration, slow, gpu, parity)
#   tools/test.sh -L unit         only one label; any further arguments go to ctest
# BUILD_DIR (default: build) chooses the build folder.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh --oracle  # Ultralytics for the parity tests (dev/test only)
build_dir="${BUILD_DIR:-build}"
# Tests and benchmarks on explicitly: a build folder the quickstart configured has them off.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DYOLO_BUILD_TESTS=ON \
  -DYOLO_BUILD_BENCHMARKS=ON
cmake --build "$build_dir" -j "$(nproc)"
# Tests run one at a time: several use every core through LibTorch's thread pool. Each GoogleTest
# binary writes an XML report, from which the summary counts skipped cases (ctest counts a binary
# whose cases skipped as passed) and names each with its reason.
reports="$(cd "$build_dir" && pwd)/test-reports"
rm -rf "$reports" && mkdir -p "$reports"
status=0
GTEST_OUTPUT="xml:$reports/" ctest --test-dir "$build_dir" --output-on-failure "$@" || status=$?
python3 tools/test_summary.py "$reports"
exit "$status"
