#!/usr/bin/env bash
# The product's main job on the built-in default. Today: install, build, and report what this
# machine offers (`yolo-trainer checks`). Training on the synthetic dataset, validation, export
# and the GStreamer pipeline join this script as they land.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> installing dependencies (Debian packages)"
tools/install-deps.sh
echo "==> building (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
echo "==> yolo-trainer checks"
build/bin/yolo-trainer checks
