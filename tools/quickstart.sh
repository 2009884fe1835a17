#!/usr/bin/env bash
# The product's main job on the built-in default: install, build, check the machine, generate the
# synthetic shapes dataset and video, train YOLO26n on it, validate best.pt through the runtime,
# predict on the synthetic video and export best.pt for deployment. The GStreamer pipeline joins
# this script as it lands.
#
# Environment: EPOCHS (default 10), IMGSZ (default 320), MODEL (default yolo26n.yaml),
# DEVICE (default: GPU 0 if there is one, else the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."

run_dir=runs/quickstart
epochs=${EPOCHS:-10}
imgsz=${IMGSZ:-320}
model=${MODEL:-yolo26n.yaml}
device_arg=()
if [[ -n "${DEVICE:-}" ]]; then device_arg=(device="$DEVICE"); fi
trainer="$PWD/build/bin/yolo-trainer"

echo "==> [1/8] installing dependencies (Debian packages)"
tools/install-deps.sh
echo "==> [2/8] building (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
echo "==> [3/8] yolo-trainer checks"
"$trainer" checks
echo "==> [4/8] synthetic dataset and video"
"$trainer" synth dir="$run_dir/data" images=200 imgsz="$imgsz" nc=3 seed=0 video=True frames=90
echo "==> [5/8] training $model for $epochs epochs at imgsz $imgsz"
"$trainer" train model="$model" data="$run_dir/data/data.yaml" imgsz="$imgsz" epochs="$epochs" \
  batch=16 project="$run_dir" name=train exist_ok=True "${device_arg[@]}"
echo "==> [6/8] validating best.pt through the runtime"
"$trainer" val model="$run_dir/train/weights/best.pt" data="$run_dir/data/data.yaml" \
  project="$run_dir" name=val exist_ok=True save_json=True "${device_arg[@]}"
echo "==> [7/8] predicting on the synthetic video"
"$trainer" predict model="$run_dir/train/weights/best.pt" source="$run_dir/data/video/synthetic.mp4" \
  project="$run_dir" name=predict exist_ok=True save_txt=True verbose=False "${device_arg[@]}"
echo "==> [8/8] TorchScript export of best.pt for deployment"
"$trainer" export model="$run_dir/train/weights/best.pt" imgsz="$imgsz" "${device_arg[@]}"
echo
echo "Done. Dataset: $run_dir/data/data.yaml  video: $run_dir/data/video/synthetic.mp4"
echo "      Training run: $run_dir/train (results.png, weights/best.pt)"
echo "      Validation: $run_dir/val   Predictions (annotated video, labels, JSON lines): $run_dir/predict"
echo "      Deployable model: $run_dir/train/weights/best.torchscript"
