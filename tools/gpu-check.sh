#!/usr/bin/env bash
# The GPU check: builds the LibTorch-only targets (core, models, runtime core, the trainer's
# loss/assigner/optimisers) against a Python torch 2.x (CUDA or ROCm) and runs the tests labelled
# `gpu` (GPU against CPU), then prints one table, and with a GPU the inference levers' table
# (bench_inference: FP32, FP16, channels-last, CUDA/HIP graphs; BENCH_MODELS, BENCH_IMGSZ, BENCH_ROUNDS). Made for a GPU machine that has torch, CMake
# and ninja but no Debian development packages; without a GPU the tests skip with a message.
#
#   tools/gpu-check.sh prepare   here, on Debian 12: the few libraries the LibTorch-only build
#                                needs besides LibTorch (yaml-cpp, spdlog, fmt, nlohmann-json,
#                                GoogleTest) as Debian packages unpacked into .gpu-deps/
#                                (git-ignored), to carry to the GPU machine
#   tools/gpu-check.sh [run]     configure, build, test, table (on the GPU machine, or here to
#                                rehearse)
#   tools/gpu-check.sh --bundle [DIR]
#                                here: the GPU proof's bundle in DIR (default .gpu-bundle,
#                                git-ignored): programs built here, the libraries the GPU machine
#                                lacks, Ultralytics' wheels, real photos and yolo11n.pt; prints
#                                its size and contents (DIR/MANIFEST.txt lists every file)
#   tools/gpu-check.sh --rehearse
#                                here, as root: the bundle's proof (tools/gpu-proof.sh) end to
#                                end on the CPU in a fresh Debian 12 root holding only what the
#                                GPU machine holds; tiny sizes
# On the GPU machine, with the device tool: carry .gpu-bundle and run
# `tools/gpu-proof.sh .gpu-bundle` (one call, no build there).
#
# Environment: YOLO_PYTHON (the Python whose torch to build against; default: python3 on PATH,
# else the project venv), BUILD_DIR (default build-gpu), OUT (also copy the table and logs there).
# With the device tool: carry .gpu-deps, run `tools/gpu-check.sh`, read the table; record it in
# docs/rocm.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
deps="$root/.gpu-deps"
mode="${1:-run}"

if [ "$mode" = "prepare" ]; then
  pkgs=(libyaml-cpp-dev libyaml-cpp0.7 libspdlog-dev libspdlog1.10 libfmt-dev libfmt9
        nlohmann-json3-dev libgtest-dev libcli11-dev)
  rm -rf "$deps" && mkdir -p "$deps/debs"
  (cd "$deps/debs" && apt-get download "${pkgs[@]}" >/dev/null)
  for f in "$deps"/debs/*.deb; do dpkg -x "$f" "$deps"; done
  rm -rf "$deps/debs" "$deps/usr/share/doc" "$deps/usr/share/lintian"
  echo "gpu-check: $(du -sh "$deps" | cut -f1) in .gpu-deps (${pkgs[*]})"
  exit 0
fi
# The bundle (tools/gpu_bundle.py): the programs built here, the libraries the GPU machine lacks,
# Ultralytics' wheels and small data, for one device call with no build there.
make_bundle() {  # $1: the bundle folder
  local out=$1 build="${BUILD_DIR:-build}" venv="${YOLO_VENV:-/opt/yolo-edge/venv}" version
  cmake --build "$build" -j "$(nproc)" --target yolo-trainer bench_inference test_gpu_models \
    test_gpu_runtime test_gpu_train gstyolo >/dev/null || { echo "gpu-check: the build failed" >&2; return 1; }
  # The oracle's own version, so that the GPU machine runs the Ultralytics the tests here pin.
  version=$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("ultralytics"))') ||
    { echo "gpu-check: no Ultralytics in $venv (tools/install-deps.sh --oracle)" >&2; return 1; }
  mkdir -p "$out/wheels"
  if ! ls "$out"/wheels/ultralytics-"$version"-*.whl >/dev/null 2>&1; then
    rm -f "$out"/wheels/*.whl
    "$venv/bin/python" -m pip download -q --no-deps -d "$out/wheels" "ultralytics==$version" \
      "ultralytics-thop==$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("ultralytics-thop"))')" ||
      { echo "gpu-check: pip could not download Ultralytics $version" >&2; return 1; }
  fi
  python3 tools/gpu_bundle.py "$build" "$out" --wheels "$out/wheels" \
    --assets "${YOLO_TEST_ASSETS:-/opt/yolo-edge/test-assets}"
}

if [ "$mode" = "--bundle" ]; then
  make_bundle "${2:-.gpu-bundle}"
  exit $?
fi

# The rehearsal: the bundle's proof end to end on the CPU, in a fresh Debian 12 root that holds
# only what the GPU machine holds (Python with torch 2.11 and the image's Python packages; no
# project build dependency), tiny sizes. A library missing from the bundle, a stub that is
# reached or a step that breaks fails here, not in the GPU machine's minutes.
if [ "$mode" = "--rehearse" ]; then
  if [ "$(id -u)" -ne 0 ]; then echo "gpu-check: --rehearse needs root (mmdebstrap, chroot)" >&2; exit 2; fi
  bundle_dir="${BUNDLE:-.gpu-bundle}"
  make_bundle "$bundle_dir" || exit 1
  # shellcheck source=tools/lib/fresh_root.sh
  source tools/lib/fresh_root.sh
  rroot="${ROOT:-$(mktemp -d /var/tmp/yolo-gpu-rehearsal.XXXXXX)}"
  site="${YOLO_VENV:-/opt/yolo-edge/venv}/lib/python3.11/site-packages"
  cleanup() {
    fresh_root_stop_processes "$rroot"
    if mountpoint -q "$rroot/opt/host-site"; then umount -l "$rroot/opt/host-site"; fi
    fresh_root_unmount "$rroot"
    if [ -z "${KEEP:-}" ]; then rm -rf "$rroot" "$rroot.mmdebstrap.log"; fi
  }
  trap cleanup EXIT
  # python3 as the GPU image has it; libgl1 for the GUI build of OpenCV's wheel in the venv that
  # stands in for the image's (the image has opencv-python-headless, which needs no libGL).
  echo "gpu-check: a fresh Debian 12 root in $rroot"
  fresh_root_create "$rroot" minbase python3,libgl1,libglib2.0-0 || exit 1
  fresh_root_mount "$rroot"
  mkdir -p "$rroot/opt/host-site" "$rroot/opt/torch/site" "$rroot/proof"
  mount --bind -o ro "$site" "$rroot/opt/host-site"
  # The GPU image's Python packages (device/KINDS.md) that the venv here also has, and nothing
  # else: no Ultralytics, polars or thop, which the bundle must bring itself.
  for pkg in PIL pillow.libs certifi charset_normalizer contourpy cv2 opencv_python.libs cycler \
      dateutil filelock fontTools fsspec functorch idna jinja2 kiwisolver markupsafe matplotlib \
      mpl_toolkits mpmath networkx numpy numpy.libs nvidia packaging pip psutil pyparsing \
      requests scipy scipy.libs setuptools sympy torch torchgen torchvision torchvision.libs \
      triton typing_extensions.py urllib3 yaml _yaml pynvml.py; do
    for entry in "$site/$pkg" "$site/${pkg%.py}"-*.dist-info "$site/${pkg,,}"-*.dist-info; do
      [ -e "$entry" ] && ln -sfn "/opt/host-site/$(basename "$entry")" "$rroot/opt/torch/site/"
    done
  done
  for dist in pillow opencv_python python_dateutil fonttools charset_normalizer PyYAML six; do
    for entry in "$site/$dist"-*.dist-info "$site/$dist.py"; do
      [ -e "$entry" ] && ln -sfn "/opt/host-site/$(basename "$entry")" "$rroot/opt/torch/site/"
    done
  done
  cp -r "$bundle_dir/payload.tar.xz" "$bundle_dir/MANIFEST.txt" "$rroot/proof/"
  cp tools/gpu-proof.sh "$rroot/proof/"
  status=0
  chroot "$rroot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    PYTHONPATH=/opt/torch/site PYTHON=python3 WORK=/tmp/proof DEVICE=cpu EPOCHS=1 IMGSZ=64 \
    IMAGES=32 BENCH_MODELS=yolov8n.yaml BENCH_IMGSZ=64 BENCH_ROUNDS=3 FRAMES=10 LIVE_FPS=5 \
    LIVE_FRAMES=15 \
    OUT=/proof/out \
    /proof/gpu-proof.sh /proof || status=$?
  # The rehearsal must catch what the GPU call would trip on: the same bundle less one library
  # it carries fails its libraries step, naming the library.
  lib=libyaml-cpp.so.0.7
  mkdir -p "$rroot/proof/broken"
  python3 - "$bundle_dir/payload.tar.xz" "$rroot/proof/broken/payload.tar.xz" "$lib" <<'PY'
import sys, tarfile
src, dst, drop = sys.argv[1:4]
with tarfile.open(src) as tin, tarfile.open(dst, "w:gz", compresslevel=1) as tout:
    for m in tin:
        if m.name != f"yolo-gpu/lib/{drop}":
            tout.addfile(m, tin.extractfile(m) if m.isfile() else None)
PY
  broken=$(chroot "$rroot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    PYTHONPATH=/opt/torch/site PYTHON=python3 WORK=/tmp/broken STEPS=libraries \
    /proof/gpu-proof.sh /proof/broken 2>&1) && broken_rc=0 || broken_rc=$?
  if [ "$broken_rc" -ne 0 ] && grep -q "FAIL libraries:.*$lib" <<<"$broken"; then
    echo "gpu-check: PASS fault: a bundle without $lib fails its libraries step, naming it"
  else
    echo "gpu-check: FAIL fault: a bundle without $lib was not caught (exit $broken_rc):"
    echo "$broken" | tail -5
    status=1
  fi
  if [ -n "${OUT:-}" ]; then cp -r "$rroot/proof/out/." "$OUT/" 2>/dev/null || true; fi
  echo "gpu-check: rehearsal $([ $status -eq 0 ] && echo passed || echo FAILED) ($(head -1 "$bundle_dir/MANIFEST.txt"))"
  exit $status
fi

if [ "$mode" != "run" ]; then
  echo "usage: tools/gpu-check.sh [prepare|run|--bundle [DIR]|--rehearse]" >&2
  exit 2
fi

start=$(date +%s)
python="${YOLO_PYTHON:-}"
if [ -z "$python" ]; then
  if python3 -c 'import torch' 2>/dev/null; then
    python="$(command -v python3)"
  else
    python="${YOLO_VENV:-/opt/yolo-edge/venv}/bin/python"
  fi
fi
venv="$("$python" -c 'import sys; print(sys.prefix)')"
build="${BUILD_DIR:-build-gpu}"
args=(-DYOLO_LIBTORCH_ONLY=ON -DYOLO_VENV="$venv" -DCMAKE_BUILD_TYPE=Release)
if [ -d "$deps/usr" ]; then
  # The carried Debian libraries: CMake configs under .gpu-deps/usr, their .so files at run time.
  args+=(-DCMAKE_PREFIX_PATH="$deps/usr")
  export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi

logs="$build/gpu-check"
mkdir -p "$logs"
echo "gpu-check: torch from $python; configuring $build"
cmake -S . -B "$build" "${generator[@]}" "${args[@]}" >"$logs/configure.log" 2>&1 ||
  { tail -40 "$logs/configure.log"; exit 1; }
configured=$(date +%s)
cmake --build "$build" -j "$(nproc)" >"$logs/build.log" 2>&1 || { tail -60 "$logs/build.log"; exit 1; }
built=$(date +%s)

# ctest's run of the `gpu` label is the pass/fail gate; each test binary also writes its cases
# as JSON for the table. Without a GPU they skip, and a second pass rehearses them with the CPU
# standing in for the GPU (CPU against CPU): that checks the tests' own code before a GPU
# machine's minutes are spent on it, and proves nothing about a GPU.
run_cases() {  # $1: folder for the JSON reports
  rm -rf "$1" && mkdir -p "$1"
  for bin in "$build"/bin/test_gpu_*; do
    "$bin" --gtest_output="json:$1/$(basename "$bin").json" >"$1/$(basename "$bin").log" 2>&1 || true
  done
}
status=0
ctest --test-dir "$build" -L gpu --output-on-failure --timeout 300 >"$logs/ctest.log" 2>&1 || status=$?
run_cases "$logs/gpu"
if ! "$python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "gpu-check: no GPU visible: the gpu tests skip; rehearsing them on the CPU"
  YOLO_GPU_TEST_REHEARSAL=1 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 300 \
    >"$logs/ctest-rehearsal.log" 2>&1 || status=$?
  YOLO_GPU_TEST_REHEARSAL=1 run_cases "$logs/rehearsal"
fi
tested=$(date +%s)
# The inference levers on the GPU (FP32 against FP16, channels-last; issue #34): one table.
if [ -x "$build/bin/bench_inference" ] &&
  "$python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  "$build/bin/bench_inference" --device cuda:0 --models "${BENCH_MODELS:-yolov8n.yaml,yolo26n.yaml}" \
    --imgsz "${BENCH_IMGSZ:-640}" --batches 1,8 --rounds "${BENCH_ROUNDS:-30}" \
    --out "$logs/bench" >"$logs/bench.log" 2>&1 || { tail -30 "$logs/bench.log"; status=1; }
fi

"$python" - "$logs" "$python" $((configured - start)) $((built - configured)) $((tested - built)) <<'PY' | tee "$logs/summary.txt"
import glob, json, os, sys
logs, python, t_conf, t_build, t_test = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
try:
    import torch
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none visible"
    flavour = ("ROCm " + torch.version.hip) if getattr(torch.version, "hip", None) else \
              ("CUDA " + torch.version.cuda) if torch.version.cuda else "CPU"
    print(f"torch {torch.__version__} ({flavour}) from {python}; GPU: {gpu}")
except Exception as e:  # the table still matters without torch's Python side
    print(f"torch from {python}: {e}")
print(f"configure {t_conf} s, build {t_build} s, tests {t_test} s")


def table(folder, title):
    rows, totals = [], {"passed": 0, "failed": 0, "skipped": 0}
    for path in sorted(glob.glob(os.path.join(folder, "test_gpu_*.json"))):
        with open(path) as f:
            report = json.load(f)
        for suite in report.get("testsuites", []):
            for case in suite.get("testsuite", []):
                if case.get("failures"):
                    result = "failed"
                elif case.get("result") == "SKIPPED" or case.get("status") == "NOTRUN":
                    result = "skipped"
                else:
                    result = "passed"
                totals[result] += 1
                rows.append((os.path.basename(path)[:-5], f"{suite['name']}.{case['name']}", result,
                             case.get("time", "")))
    if not rows:
        return
    print(f"\n{title}\n")
    w = max([len(r[1]) for r in rows] + [10])
    print(f"| {'binary':<16} | {'test':<{w}} | {'result':<7} | {'time':>7} |")
    print(f"|{'-' * 18}|{'-' * (w + 2)}|{'-' * 9}|{'-' * 9}|")
    for b, name, result, t in rows:
        print(f"| {b:<16} | {name:<{w}} | {result:<7} | {t:>7} |")
    print(f"{totals['passed']} passed, {totals['failed']} failed, {totals['skipped']} skipped")


table(os.path.join(logs, "gpu"), "gpu tests")
table(os.path.join(logs, "rehearsal"),
      "REHEARSAL (no GPU: the CPU stood in for it; this checks the tests, not a GPU)")
PY
grep -hE "tests passed|tests failed" "$logs"/ctest*.log || true
if [ -f "$logs/bench/inference.md" ]; then echo; cat "$logs/bench/inference.md"; fi
if [ -n "${OUT:-}" ]; then cp -r "$logs" "$OUT/"; fi
echo "gpu-check: $(( $(date +%s) - start )) s in all"
exit "$status"
