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
  tools/install-deps.sh --product
  echo "==> [2/9] building the programs ($build_dir/: yolo-trainer, the GStreamer plugin, yolo-monitor)"
  # A new build folder leaves the tests and benchmarks out (their packages are not installed);
  # one that tools/test.sh configured keeps them, and only the programs are built here.
  build_options=()
  if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
    build_options=(-DYOLO_BUILD_TESTS=OFF -DYOLO_BUILD_BENCHMARKS=OFF)
  fi
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${build_options[@]}"
  # Only what this script runs; tools/test.sh builds the tests and benchmarks too.
  cmake --build "$build_dir" -j "$(nproc)" --target product
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
said=""
for _ in $(seq 1 100); do
  # Until the first detections, the endpoint's /health says how far the element is (starting,
  # loading model, waiting for frames); each new state is shown once.
  state=$(curl -sf "http://127.0.0.1:$port/api/v1/health" | grep -o '"state":"[^"]*"' | head -1 | cut -d'"' -f4 || true)
  if [[ $polled -eq 0 && -n "$state" && "$state" != "$said" ]]; then
    echo "    GET /api/v1/health: $state"
    said=$state
  fi
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
  sleep 0.25
done
wait "$gst_pid" || { echo "gst-launch-1.0 failed; see $pipeline_dir/gst-launch.log" >&2; exit 1; }
[[ $polled -gt 0 ]] || { echo "the HTTP endpoint on port $port never answered" >&2; exit 1; }
# The monitor configuration a user copies next: this model on the synthetic video (a file stream,
# replayed at its frame rate), checked here so that what is handed over works.
monitor_config="$run_dir/monitor.yaml"
cat > "$monitor_config" <<EOF
# yolo-monitor configuration written by tools/quickstart.sh: the quickstart's model watching its
# synthetic video. Copy it, replace the stream with your cameras (uri: rtsp://...), and run
#   $build_dir/bin/yolo-monitor --config $monitor_config
# Every key with its default: config/monitor.yaml; reference: docs/monitor.md.
model: $(realpath "$run_dir/train/weights/best.pt")
device: ${DEVICE:-cpu}
http: {bind: 127.0.0.1, port: 8080}
state_file: ""
streams:
  - id: synthetic
    uri: $(realpath "$run_dir/data/video/synthetic.mp4")
EOF
"$build_dir/bin/yolo-monitor" --config "$monitor_config" --check

best=$(realpath "$run_dir/train/weights/best.pt")
echo
echo "Done. Dataset: $run_dir/data/data.yaml  video: $run_dir/data/video/synthetic.mp4"
echo "      Training run: $run_dir/train (results.png, weights/best.pt)"
echo "      Validation: $run_dir/val   Predictions (annotated video, labels, JSON lines): $run_dir/predict"
echo "      Deployable model: $run_dir/train/weights/best.torchscript"
echo "      GStreamer run: $pipeline_dir (annotated.mp4, snapshot.jpg, gst-launch.log)"
echo
echo "Next:"
echo "  Watch what the model saw: $pipeline_dir/annotated.mp4 (boxes drawn by the yolo element)."
echo "  The same pipeline on a camera, in a window, detections on http://127.0.0.1:$port/api/v1/:"
echo "    GST_PLUGIN_PATH=$build_dir/gst-plugins gst-launch-1.0 rtspsrc location=rtsp://CAMERA/stream ! \\"
echo "      decodebin ! videoconvert ! yolo model=$best http-port=$port draw=true ! videoconvert ! autovideosink"
echo "  Cameras as a service (dashboard on http://127.0.0.1:8080/): copy $monitor_config,"
echo "  put your cameras under streams:, then"
echo "    $build_dir/bin/yolo-monitor --config $monitor_config"
echo "  Train on your own data (an Ultralytics dataset YAML):"
echo "    $trainer train data=your-data.yaml model=yolo26n.yaml epochs=100 imgsz=640"
