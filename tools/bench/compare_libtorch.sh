#!/usr/bin/env bash
# Two builds of the same sources against two LibTorch versions, measured in one run on one
# machine: the trainer's CPU training step (bench_train_step, baseline variant) and the runtime
# (bench_runtime). The builds take turns (A, B, A, B, ...) so that this VM's drift hits both, and
# the table gives each one's median over the rounds and B's speed relative to A.
#
#   tools/bench/compare_libtorch.sh BUILD_A BUILD_B [ROUNDS]      (default 3 rounds)
#   e.g. tools/bench/compare_libtorch.sh build-1.13 build
#
# Each build needs bench_train_step and bench_runtime (cmake --build DIR --target bench_train_step
# bench_runtime). Settings: yolov8n; training step at imgsz 320, batch 16, 4 counted steps;
# runtime at imgsz 640, 9 runs per row. THREADS (default: all cores) is passed to both.
set -euo pipefail
cd "$(dirname "$0")/../.."
a="${1:?usage: compare_libtorch.sh BUILD_A BUILD_B [ROUNDS]}"
b="${2:?usage: compare_libtorch.sh BUILD_A BUILD_B [ROUNDS]}"
rounds="${3:-3}"
threads="${THREADS:-$(nproc)}"
out="runs/bench/compare_libtorch"
mkdir -p "$out"

torch_version() {  # the LibTorch a build folder was configured against
  local dir
  dir="$(sed -n 's/^Torch_DIR:PATH=//p' "$1/CMakeCache.txt")"
  sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' "$dir/TorchConfigVersion.cmake"
}
label_a="LibTorch $(torch_version "$a")"
label_b="LibTorch $(torch_version "$b")"

# One measurement per line: "<build> <what> <ms>".
samples="$out/samples.txt"
: >"$samples"
for ((r = 1; r <= rounds; r++)); do
  for build in "$a" "$b"; do
    echo "compare_libtorch: round $r/$rounds, $build" >&2
    "$build/bin/bench_train_step" --only baseline --imgsz 320 --batch 16 --steps 4 \
      --threads "$threads" --out "$out/train_step" >"$out/train_step.log" 2>&1
    awk -F'|' -v b="$build" '/baseline/ && NF > 10 {
        gsub(/ /, "", $9); print b "\ttraining step, yolov8n 320 px, batch 16\t" $9 }' \
      "$out/train_step.log" >>"$samples"
    "$build/bin/bench_runtime" --imgsz 640 --runs 9 --out "$out/runtime" >"$out/runtime.log" 2>&1
    awk -F'|' -v b="$build" 'NF == 5 && $3 ~ /[0-9]/ {
        what = $2; gsub(/^ +| +$/, "", what); ms = $3; gsub(/ /, "", ms); print b "\t" what "\t" ms }' \
      "$out/runtime.log" >>"$samples"
  done
done

echo
echo "$label_a ($a) vs $label_b ($b): median of $rounds alternating rounds, $threads threads, ms"
echo
awk -F'\t' -v a="$a" -v b="$b" -v la="$label_a" -v lb="$label_b" '
  function median(list,    n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  { key = $2; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    if ($1 == a) ms_a[key] = ms_a[key] " " $3; else ms_b[key] = ms_b[key] " " $3 }
  END {
    printf "| %-42s | %16s | %16s | %12s |\n", "what", la, lb, "speed-up B/A"
    printf "|%s|%s|%s|%s|\n", "--------------------------------------------", "------------------", "------------------", "--------------"
    for (i = 1; i <= n; i++) {
      k = order[i]; ma = median(ms_a[k]); mb = median(ms_b[k])
      printf "| %-42s | %16.2f | %16.2f | %11.2fx |\n", k, ma, mb, (mb > 0 ? ma / mb : 0)
    }
  }' "$samples"
