#!/usr/bin/env bash
# The product's main job on the built-in default: install, build, check the machine, generate the
# synthetic dataset and video, show the YOLO26n model and export it to TorchScript.
# Training, validation and the GStreamer pipeline join this script as they land.
set -euo pipefail
cd "$(dirname "$0")/.."

run_dir=runs/quickstart
echo "==> [1/6] installing dependencies (Debian packages)"
tools/install-deps.sh
echo "==> [2/6] building (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
echo "==> [3/6] yolo-trainer checks"
build/bin/yolo-trainer checks
echo "==> [4/6] synthetic dataset and video"
build/bin/yolo-trainer synth dir="$run_dir/data" images=200 imgsz=320 nc=3 seed=0 video=True frames=90
echo "==> [5/6] the model: yolo26n at imgsz 320"
build/bin/yolo-trainer info model=yolo26n.yaml imgsz=320 | grep summary
echo "==> [6/6] TorchScript export"
(cd "$run_dir" && ../../build/bin/yolo-trainer export model=yolo26n.yaml imgsz=320)
echo
echo "Done. Dataset: $run_dir/data/data.yaml  video: $run_dir/data/video/synthetic.mp4"
echo "      Exported (untrained) model: $run_dir/yolo26n.torchscript"
