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
  grep -qx '/.gpu-deps/' .git/info/exclude 2>/dev/null || echo '/.gpu-deps/' >>.git/info/exclude
  echo "gpu-check: $(du -sh "$deps" | cut -f1) in .gpu-deps (${pkgs[*]})"
  exit 0
fi
if [ "$mode" != "run" ]; then
  echo "usage: tools/gpu-check.sh [prepare|run]" >&2
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
