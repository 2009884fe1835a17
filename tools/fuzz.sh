#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz (built by the main build into BUILD_DIR/fuzz when clang
# with libFuzzer is installed) for a bounded time each, on the seed corpus in the repository plus
# what earlier runs found (kept in BUILD_DIR/fuzz/corpus, outside the repository).
#   tools/fuzz.sh [SECONDS] [TARGET...]    default: 600 s for every target
# ctest runs each target for a few seconds (label fuzz); a longer run before a release:
#   tools/fuzz.sh 3600
# FUZZ_SEED fixes libFuzzer's random seed (ctest uses 1, so a CI run explores the same inputs each
# time; 0, the default here, picks a new one each run).
# A finding is written to BUILD_DIR/fuzz/artifacts/<target>-crash-<hash> (the input that failed);
# rerun it with BUILD_DIR/fuzz/<target> <that file>, and add it to tests/fuzz/corpus/<target>/
# once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
seconds="${1:-600}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for d in tests/fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi
status=0
for t in "${targets[@]}"; do
  bin="$build_dir/fuzz/$t"
  if [ ! -x "$bin" ]; then
    echo "fuzz: $bin is missing: build with clang and libclang-rt-dev installed (tools/install-deps.sh)" >&2
    exit 2
  fi
  mkdir -p "$build_dir/fuzz/corpus/$t" "$build_dir/fuzz/artifacts"
  echo "fuzz: $t for ${seconds}s"
  # -timeout: one input taking this long is a finding (a hang); -rss_limit_mb: so is the memory.
  if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -seed="${FUZZ_SEED:-0}" \
      -artifact_prefix="$build_dir/fuzz/artifacts/$t-" \
      "$build_dir/fuzz/corpus/$t" "tests/fuzz/corpus/$t"; then
    echo "fuzz: $t FAILED; the input is in $build_dir/fuzz/artifacts/" >&2
    status=1
  fi
done
exit $status
