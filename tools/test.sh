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
# Tests run one at a time: several use every core through LibTorch's thread pool.
ctest --test-dir "$build_dir" --output-on-failure "$@"
