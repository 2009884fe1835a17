#!/usr/bin/env bash
# The product's main job on the built-in default: install, build, check the machine, generate the
# synthetic shapes dataset and video, train YOLO26n on it, validate best.pt through the runtime,
# predict on the synthetic video, export best.pt for deployment, and run the synthetic video
# through a gst-launch-1.0 pipeline with the `yolo` element, polling its HTTP endpoint while it
# plays.
#
# The default run is sized for two CPU cores and five to ten minutes, and to end with a model that
# really detects: an easy one-class set (up to 3 rectangles of 20-45 % of the image, 192 px) trained
# with Ultralytics' own recipe (every setting at its default, nominal batch 64 included): about
# mAP50 0.76 / mAP50-95 0.46 after 60 epochs (docs/benchmarks.md has it side by side with
# Ultralytics on the same set).
#
# Environment: EPOCHS (default 60), IMGSZ (default 192), MODEL (default yolo26n.yaml),
# IMAGES (training images, default 160), FRAMES (video frames, default 90), RUN_DIR (default
# runs/quickstart), SKIP_SETUP=1 (skip install and build: the end-to-end test's miniature run),
# BUILD_DIR (default build), DEVICE (default: GPU 0 if there is one, else the CPU), PORT (HTTP endpoint of the pipeline step,
# default 8089).
set -euo pipefail
cd "$(dirname "$0")/.."

run_dir=${RUN_DIR:-runs/quickstart}
images=${IMAGES:-160}
frames=${FRAMES:-90}
epochs=${EPOCHS:-60}
imgsz=${IMGSZ:-192}
model=${MODEL:-yolo26n.yaml}
device_arg=()
if [[ -n "${DEVICE:-}" ]]; then device_arg=(device="$DEVICE"); fi
build_dir=$(realpath -m "${BUILD_DIR:-build}")
trainer="$build_dir/bin/yolo-trainer"
port=${PORT:-8089}
yolo_device=()
if [[ -n "${DEVICE:-}" ]]; then yolo_device=(device="$DEVICE"); fi

if [[ "${SKIP_SETUP:-0}" != 1 ]]; then
  echo "==> [1/9] installing dependencies (Debian packages, LibTorch 2.x from the torch wheel)"
  tools/install-deps.sh
  echo "==> [2/9] building ($build_dir/)"
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build_dir" -j "$(nproc)"
fi
echo "==> [3/9] yolo-trainer checks"
"$trainer" checks
echo "==> [4/9] synthetic dataset and video"
"$trainer" synth dir="$run_dir/data" images="$images" imgsz="$imgsz" nc=1 objects=3 min_size=0.2 \
  max_size=0.45 seed=0 video=True frames="$frames"
echo "==> [5/9] training $model for $epochs epochs at imgsz $imgsz"
"$trainer" train model="$model" data="$run_dir/data/data.yaml" imgsz="$imgsz" epochs="$epochs" \
  batch=16 project="$run_dir" name=train exist_ok=True "${device_arg[@]}"
echo "==> [6/9] validating best.pt through the runtime"
"$trainer" val model="$run_dir/train/weights/best.pt" data="$run_dir/data/data.yaml" \
  project="$run_dir" name=val exist_ok=True save_json=True "${device_arg[@]}"
echo "==> [7/9] predicting on the synthetic video"
"$trainer" predict model="$run_dir/train/weights/best.pt" source="$run_dir/data/video/synthetic.mp4" \
  project="$run_dir" name=predict exist_ok=True save_txt=True verbose=False "${device_arg[@]}"
echo "==> [8/9] TorchScript export of best.pt for deployment"
"$trainer" export model="$run_dir/train/weights/best.pt" imgsz="$imgsz" "${device_arg[@]}"
echo "==> [9/9] the synthetic video through gst-launch-1.0 ... ! yolo http-port=$port ! ..."
pipeline_dir="$run_dir/pipeline"
mkdir -p "$pipeline_dir"
rm -f "$pipeline_dir/snapshot.jpg"
# clocksync plays the file at its frame rate, as a camera would, so the endpoint can be polled
# while frames flow; the annotated frames are encoded to an MP4 next to the run.
GST_PLUGIN_PATH="$build_dir/gst-plugins" gst-launch-1.0 -e \
  filesrc location="$run_dir/data/video/synthetic.mp4" ! decodebin ! videoconvert ! clocksync ! \
  yolo model="$run_dir/train/weights/best.pt" stream-id=synthetic http-port="$port" draw=true \
    "${yolo_device[@]}" ! \
  videoconvert ! x264enc tune=zerolatency ! h264parse ! mp4mux ! \
  filesink location="$pipeline_dir/annotated.mp4" > "$pipeline_dir/gst-launch.log" 2>&1 &
gst_pid=$!
polled=0
for _ in $(seq 1 50); do
  if body=$(curl -sf "http://127.0.0.1:$port/api/v1/streams/synthetic/detections"); then
    polled=$((polled + 1))
    frame=$(grep -o '"frame":[0-9]*' <<<"$body" | tail -1 | cut -d: -f2 || true)
    found=$(grep -o '"class_name":"[^"]*","confidence":[0-9.]*' <<<"$body" |
      sed -E 's/"class_name":"([^"]*)","confidence":([0-9]\.[0-9]{2}).*/\1 \2/' | paste -sd, - || true)
    echo "    GET /api/v1/streams/synthetic/detections: frame $frame: ${found:-no detections}"
    # The latest annotated frame, while the pipeline (and so its endpoint) is still up.
    [[ -s "$pipeline_dir/snapshot.jpg" ]] ||
      curl -sf "http://127.0.0.1:$port/api/v1/streams/synthetic/snapshot.jpg" \
        -o "$pipeline_dir/snapshot.jpg" || true
    [[ $polled -ge 3 ]] && break
  fi
  sleep 0.5
done
wait "$gst_pid" || { echo "gst-launch-1.0 failed; see $pipeline_dir/gst-launch.log" >&2; exit 1; }
[[ $polled -gt 0 ]] || { echo "the HTTP endpoint on port $port never answered" >&2; exit 1; }
echo
echo "Done. Dataset: $run_dir/data/data.yaml  video: $run_dir/data/video/synthetic.mp4"
echo "      Training run: $run_dir/train (results.png, weights/best.pt)"
echo "      Validation: $run_dir/val   Predictions (annotated video, labels, JSON lines): $run_dir/predict"
echo "      Deployable model: $run_dir/train/weights/best.torchscript"
echo "      GStreamer run: $pipeline_dir (annotated.mp4, snapshot.jpg, gst-launch.log)"
