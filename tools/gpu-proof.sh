#!/usr/bin/env bash
# The GPU proof from a bundle (tools/gpu_bundle.py): no build, no Debian package, no network.
# Runs on the GPU machine with its own python3 and torch 2.11, and in the rehearsal
# (tools/gpu-check.sh --rehearse) on the CPU in a root that holds only what that machine holds.
# Each step prints `gpu-proof: PASS <step>` or `gpu-proof: FAIL <step>: why`, then one table:
#   libraries   every program and plugin of the bundle resolves each library (ldd) in the bundle,
#               torch's folders or the system's C/C++ runtime
#   gpu-tests   the tests labelled `gpu` (GPU against CPU; with no GPU, the rehearsal pass with the
#               CPU standing in, which checks the tests and proves nothing about a GPU)
#   train       YOLOv8n and YOLO26n with AMP against amp=False, same data and seed: final
#               mAP50-95, time per epoch, the gradient scaler's skipped steps
#   inference   bench_inference: FP32, FP16, channels-last and graphs at batch 1 and 8
#   ultralytics Ultralytics (the carried wheel) on the same data and device: time per epoch
#               and predict time per image, as ratios to ours
#   element     4 streams through one shared `yolo` model instance (batch-size 4): frames/s
#   latency     4 live streams (LIVE_FPS, default 30): p50 and p99 of each frame's time through
#               `yolo`, against p99 <= 2 x one frame's engine time + the batch wait (GPU only)
#
#   tools/gpu-proof.sh BUNDLE_DIR     (BUNDLE_DIR holds payload.tar.xz)
# Environment: OUT (the table and logs are copied there), WORK (default /tmp/yolo-gpu-proof),
# DEVICE (default cuda:0 when torch sees a GPU, else cpu), EPOCHS (20), IMGSZ (320), IMAGES (200),
# BENCH_MODELS (yolov8n.yaml,yolo26n.yaml), BENCH_IMGSZ (640), BENCH_ROUNDS (30, at least 3),
# FRAMES (300, per stream), LIVE_FPS (30), LIVE_FRAMES (150), PYTHON (python3),
# STEPS (comma-separated: only these steps).
set -uo pipefail
bundle=$(realpath "${1:?usage: tools/gpu-proof.sh BUNDLE_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
work="${WORK:-/tmp/yolo-gpu-proof}"
python="${PYTHON:-python3}"
start=$(date +%s)
rm -rf "$work" && mkdir -p "$work/logs"
# Unpacked by Python (xz-utils may be missing where Python never is).
"$python" - "$bundle/payload.tar.xz" "$work" <<'PY' || { echo "gpu-proof: FAIL unpack: $bundle/payload.tar.xz"; exit 1; }
import sys, tarfile
with tarfile.open(sys.argv[1]) as tar:
    if hasattr(tarfile, "tar_filter"):
        tar.extractall(sys.argv[2], filter="tar")
    else:
        tar.extractall(sys.argv[2])
PY
b="$work/yolo-gpu"
logs="$work/logs"
report="$logs/gpu-proof.md"
failures=0
# STEPS=a,b runs only those steps (libraries, gpu-tests, train, inference, predict, ultralytics,
# element, latency); all by default.
want() { [ -z "${STEPS:-}" ] || [[ ",$STEPS," == *",$1,"* ]]; }
pass() { echo "gpu-proof: PASS $1"; echo "| $1 | PASS | $2 |" >>"$logs/steps.md"; }
fail() {
  echo "gpu-proof: FAIL $1: $2"
  echo "| $1 | FAIL | $2 |" >>"$logs/steps.md"
  failures=$((failures + 1))
}

# torch's C++ libraries and the CUDA libraries of its nvidia-* packages, from the machine's own
# Python: the bundle's programs were linked against the same torch 2.11.0 wheel.
read -r torch_lib nvidia_libs gpu_name < <("$python" - <<'PY'
import glob, os, torch
lib = os.path.join(os.path.dirname(torch.__file__), "lib")
site = os.path.dirname(os.path.dirname(torch.__file__))
nv = ":".join(sorted(glob.glob(os.path.join(site, "nvidia", "*", "lib"))) + [lib]) or lib
name = torch.cuda.get_device_name(0).replace(" ", "_") if torch.cuda.is_available() else "none"
print(lib, nv, name)
PY
)
if [ -z "${torch_lib:-}" ]; then echo "gpu-proof: FAIL torch: $python cannot import torch"; exit 1; fi
export LD_LIBRARY_PATH="$b/lib:$torch_lib:$nvidia_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GST_PLUGIN_SYSTEM_PATH="$b/lib/gstreamer-1.0" GST_PLUGIN_PATH=""
export GST_PLUGIN_SCANNER="$b/bin/gst-plugin-scanner" GST_REGISTRY="$work/gst-registry.bin"
if [ -z "${DEVICE:-}" ]; then
  if [ "$gpu_name" = none ]; then DEVICE=cpu; else DEVICE=cuda:0; fi
fi
epochs="${EPOCHS:-20}" imgsz="${IMGSZ:-320}" images="${IMAGES:-200}" frames="${FRAMES:-300}"
trainer="$b/bin/yolo-trainer"
echo "gpu-proof: GPU ${gpu_name//_/ }, device $DEVICE, torch from $torch_lib"
echo "| step | result | measured |" >"$logs/steps.md"
echo "|---|---|---|" >>"$logs/steps.md"

# libraries
if want libraries; then
missing=""
for f in "$b"/bin/* "$b"/lib/gstreamer-1.0/*.so; do
  out=$(ldd "$f" 2>&1) || { missing+=" $(basename "$f") (not an ELF file?)"; continue; }
  nf=$(grep "not found" <<<"$out" | awk '{print $1}' | tr '\n' ' ')
  [ -n "$nf" ] && missing+=" $(basename "$f"): $nf"
done
if [ -z "$missing" ]; then pass libraries "every program and plugin resolves"; else fail libraries "$missing"; fi
fi

# gpu-tests
summarise_tests() {  # $1: log folder; prints "P passed, F failed, S skipped"
  "$python" - "$1" <<'PY'
import glob, json, sys
p = f = s = 0
for path in glob.glob(sys.argv[1] + "/*.json"):
    for suite in json.load(open(path)).get("testsuites", []):
        for case in suite.get("testsuite", []):
            if case.get("failures"): f += 1
            elif case.get("result") == "SKIPPED": s += 1
            else: p += 1
print(f"{p} passed, {f} failed, {s} skipped")
PY
}
run_gpu_tests() {  # $1: folder
  mkdir -p "$1"
  local rc=0
  for t in "$b"/bin/test_gpu_*; do
    "$t" --gtest_output="json:$1/$(basename "$t").json" >"$1/$(basename "$t").log" 2>&1 || rc=1
  done
  return $rc
}
if want gpu-tests; then
if run_gpu_tests "$logs/gpu-tests"; then
  pass gpu-tests "$(summarise_tests "$logs/gpu-tests")"
else
  fail gpu-tests "$(summarise_tests "$logs/gpu-tests") (logs/gpu-tests)"
fi
if [ "$gpu_name" = none ]; then
  if YOLO_GPU_TEST_REHEARSAL=1 run_gpu_tests "$logs/gpu-rehearsal"; then
    pass gpu-tests-rehearsal "$(summarise_tests "$logs/gpu-rehearsal") (CPU standing in for the GPU)"
  else
    fail gpu-tests-rehearsal "$(summarise_tests "$logs/gpu-rehearsal") (logs/gpu-rehearsal)"
  fi
fi
fi

# train: one synthetic set, both architectures, AMP against FP32.
data="$work/data" ours_epoch="" ours_predict=""
if want train || want ultralytics; then
  if ! "$trainer" synth dir="$data" images="$images" imgsz="$imgsz" nc=3 seed=0 >"$logs/synth.log" 2>&1; then
    fail synth "$(tail -3 "$logs/synth.log" | tr '\n' ' ')"
  fi
fi
if want train; then
train_row() {  # $1 model yaml, $2 amp; prints "mAP50-95 s/epoch skipped/steps"
  local name="${1%.yaml}-amp$2"
  "$trainer" train data="$data/data.yaml" model="$1" epochs="$epochs" imgsz="$imgsz" batch=16 \
    device="$DEVICE" amp="$2" seed=0 workers=4 plots=False exist_ok=True \
    project="$work/runs" name="$name" >"$logs/train-$name.log" 2>&1 || return 1
  "$python" - "$work/runs/$name/results.csv" "$logs/train-$name.log" <<'PY'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = {k.strip(): v for k, v in rows[-1].items()}
per_epoch = float(last["time"]) / len(rows)
m = re.search(r"skipped (\d+) of (\d+) optimizer steps", open(sys.argv[2]).read())
skipped = f"{m.group(1)}/{m.group(2)}" if m else "-"
print(f"{float(last['metrics/mAP50-95(B)']):.3f} {per_epoch:.2f} {skipped}")
PY
}
echo "| model | amp | mAP50-95 | s/epoch | scaler skipped/steps |" >"$logs/train.md"
echo "|---|---|---|---|---|" >>"$logs/train.md"
for model in yolov8n.yaml yolo26n.yaml; do
  for amp in True False; do
    if row=$(train_row "$model" "$amp"); then
      read -r map per skipped <<<"$row"
      echo "| ${model%.yaml} | $amp | $map | $per | $skipped |" >>"$logs/train.md"
      pass "train ${model%.yaml} amp=$amp" "mAP50-95 $map, $per s/epoch, scaler skipped $skipped"
      [ "$model" = yolov8n.yaml ] && [ "$amp" = True ] && ours_epoch=$per
    else
      fail "train ${model%.yaml} amp=$amp" "$(tail -3 "$logs/train-${model%.yaml}-amp$amp.log" | tr '\n' ' ')"
    fi
  done
done
fi

# inference
if want inference; then
if "$b/bin/bench_inference" --device "$DEVICE" --models yolov8n.yaml,yolo26n.yaml \
    --imgsz "${BENCH_IMGSZ:-640}" --batches 1,8 --rounds "${BENCH_ROUNDS:-30}" \
    --out "$work/bench" >"$logs/bench.log" 2>&1; then
  cp "$work/bench/inference.md" "$logs/inference.md" 2>/dev/null
  pass inference "bench_inference at batch 1 and 8 (logs/inference.md)"
else
  fail inference "$(tail -3 "$logs/bench.log" | tr '\n' ' ')"
fi
fi

# ours: predict time per image on the real photos (the speed line, inference only)
if want predict; then
if "$trainer" predict model="$b/data/yolo11n.pt" source="$b/data" device="$DEVICE" \
    project="$work/predict" exist_ok=True >"$logs/predict.log" 2>&1; then
  ours_predict=$(grep -oE "[0-9.]+ms inference" "$logs/predict.log" | tail -1 | grep -oE "^[0-9.]+")
  pass predict "yolo11n.pt on the bundle's photos: ${ours_predict:-?} ms inference per image"
else
  fail predict "$(tail -3 "$logs/predict.log" | tr '\n' ' ')"
fi
fi

# ultralytics: the carried wheels in a folder of their own, the polars stand-in after them.
site="$work/site"
if want ultralytics; then
if ls "$b"/python/*.whl >/dev/null 2>&1 &&
   "$python" -m pip install -q --no-index --no-deps --no-compile --target "$site" "$b"/python/*.whl \
     >"$logs/pip.log" 2>&1; then
  # Python loads its own libraries: the bundle's (OpenCV's stubs among them) stay out of its way.
  if env -u LD_LIBRARY_PATH PYTHONPATH="$site:$b/python/shim${PYTHONPATH:+:$PYTHONPATH}" YOLO_OFFLINE=1 \
      "$python" - "$data/data.yaml" "$DEVICE" \
      "$epochs" "$imgsz" "$b/data" "$work/ultralytics" >"$logs/ultralytics.log" 2>&1 <<'PY'
import json, sys, time
data, device, epochs, imgsz, photos, project = sys.argv[1:7]
from ultralytics import YOLO
dev = "cpu" if device == "cpu" else device.split(":")[-1]
t = time.time()
model = YOLO("yolov8n.yaml")
model.train(data=data, epochs=int(epochs), imgsz=int(imgsz), batch=16, device=dev, seed=0,
            workers=4, plots=False, project=project, name="train", exist_ok=True, verbose=False)
per_epoch = (time.time() - t) / int(epochs)
pred = YOLO(f"{photos}/yolo11n.pt")
results = pred.predict(photos, device=dev, verbose=False)
speed = sum(r.speed["inference"] for r in results) / len(results)
print("RESULT", json.dumps({"per_epoch": per_epoch, "predict_ms": speed}))
PY
  then
    read -r u_epoch u_predict < <("$python" -c "
import json, sys
r = json.loads(open(sys.argv[1]).read().split('RESULT ')[-1])
print(round(r['per_epoch'], 2), round(r['predict_ms'], 2))" "$logs/ultralytics.log")
    ratio() { "$python" -c "import sys; a, b = sys.argv[1:3]; print(f'{float(b) / float(a):.2f}x' if a and b else '-')" "$1" "$2" 2>/dev/null || echo -; }
    pass ultralytics "yolov8n train ${u_epoch} s/epoch (ours/theirs $(ratio "$u_epoch" "$ours_epoch")); predict ${u_predict} ms/image (ours/theirs $(ratio "$u_predict" "$ours_predict"))"
  else
    fail ultralytics "$(tail -3 "$logs/ultralytics.log" | tr '\n' ' ')"
  fi
else
  fail ultralytics "the carried wheels did not install (logs/pip.log)"
fi
fi

# element: 4 streams, one shared model instance, batched.
model_pt="$work/runs/yolov8n-ampTrue/weights/best.pt"
[ -f "$model_pt" ] || model_pt="$b/data/yolo11n.pt"
if want element; then
streams=""
for i in 1 2 3 4; do
  streams+=" videotestsrc num-buffers=$frames pattern=ball ! video/x-raw,width=640,height=480 !"
  streams+=" yolo model=$model_pt device=$DEVICE model-instance-id=proof batch-size=4 ! fakesink sync=false"
done
t0=$(date +%s.%N)
# shellcheck disable=SC2086 # one pipeline description, split into gst-launch's arguments
if "$b/bin/gst-launch-1.0" -q $streams >"$logs/element.log" 2>&1; then
  t1=$(date +%s.%N)
  fps=$("$python" -c "import sys; print(f'{4 * int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2])):.1f}')" "$frames" "$t0" "$t1")
  pass element "4 streams x $frames frames, batch-size 4: $fps frames/s in all"
else
  fail element "$(tail -3 "$logs/element.log" | tr '\n' ' ')"
fi
fi

# latency: 4 live streams (paced like cameras) through the shared instance; each frame's time
# through `yolo` (GStreamer's latency tracer: its sink pad to its src pad), p50 and p99 after each
# stream's first 5 frames, against the pipeline criterion: p99 <= 2 x one frame's engine time +
# the batch wait (batch-timeout, 5 ms). One frame's engine time: the median through `yolo` of
# one live stream alone (batch-size 1, so nothing waits for a batch).
live_run() {  # $1 streams, $2 batch-size, $3 log name; the tracer's records in $logs/$3.trace
  local live="" i
  for i in $(seq 1 "$1"); do
    live+=" videotestsrc is-live=true num-buffers=${LIVE_FRAMES:-150} pattern=ball !"
    live+=" video/x-raw,width=640,height=480,framerate=${LIVE_FPS:-30}/1 !"
    live+=" yolo name=yolo$i model=$model_pt device=$DEVICE model-instance-id=live$1 batch-size=$2 !"
    live+=" fakesink sync=true"
  done
  # shellcheck disable=SC2086 # one pipeline description, split into gst-launch's arguments
  GST_TRACERS="latency(flags=element)" GST_DEBUG="GST_TRACER:7" GST_DEBUG_NO_COLOR=1 \
    "$b/bin/gst-launch-1.0" -q $live >"$logs/$3.log" 2>"$logs/$3.trace"
}
if want latency; then
  if ! live_run 1 1 latency-one; then
    fail latency "$(tail -3 "$logs/latency-one.log" | tr '\n' ' ')"
  elif ! live_run 4 4 latency-four; then
    fail latency "$(tail -3 "$logs/latency-four.log" | tr '\n' ' ')"
  else
    result=$("$python" - "$logs/latency-one.trace" "$logs/latency-four.trace" "$gpu_name" <<'PY'
import re, statistics, sys
def latencies(trace):
    per = {}
    for line in open(trace):
        m = re.search(r"element-latency, .*element=\(string\)(yolo\d+), src=\(string\)src, time=\(guint64\)(\d+)", line)
        if m:
            per.setdefault(m.group(1), []).append(int(m.group(2)) / 1e6)
    return sorted(v for values in per.values() for v in values[5:])  # after each stream's warm-up
one, four = latencies(sys.argv[1]), latencies(sys.argv[2])
if not one or not four:
    print("FAIL no latency records from GStreamer's latency tracer")
    sys.exit()
engine = statistics.median(one)
p50, p99 = statistics.median(four), four[min(len(four) - 1, int(0.99 * len(four)))]
bound = 2 * engine + 5
verdict = ("met" if p99 <= bound else "NOT met") if sys.argv[3] != "none" else "not judged on a CPU"
print(f"{'FAIL' if verdict == 'NOT met' else 'PASS'} {len(four)} frames of 4 streams: p50 {p50:.1f} ms, p99 {p99:.1f} ms; "
      f"bound 2 x {engine:.1f} (one stream alone) + 5 = {bound:.1f} ms: {verdict}")
PY
)
    if [[ "$result" == PASS* ]]; then pass latency "${result#PASS }"; else fail latency "${result#FAIL }"; fi
  fi
fi

{
  echo "# GPU proof: ${gpu_name//_/ } (device $DEVICE), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  cat "$logs/steps.md"
  echo
  [ -f "$logs/train.md" ] && cat "$logs/train.md"
  [ -f "$logs/inference.md" ] && { echo; cat "$logs/inference.md"; }
  echo
  echo "$failures failed; $(( $(date +%s) - start )) s in all"
} >"$report"
cat "$report"
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT" && cp "$report" "$OUT/" && tar -C "$work" -czf "$OUT/gpu-proof-logs.tar.gz" logs; fi
[ "$failures" -eq 0 ]
