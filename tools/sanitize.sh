#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer, on by
# default with ASan): every target of the project instrumented, in a build folder of its own.
#   tools/sanitize.sh               all tests
#   tools/sanitize.sh -L unit       one label; further arguments go to ctest
# BUILD_DIR (default build-asan) chooses the folder. A first build takes about as long as the
# normal one (-O1 instead of -O3 offsets the instrumentation); the tests run 2-3x slower.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh --oracle
build_dir="${BUILD_DIR:-build-asan}"
# -O1 -g1: line numbers in reports at a fraction of -O3's compile time. The libFuzzer targets are
# built with both sanitizers in the normal build already (label fuzz).
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DYOLO_SANITIZE=ON -DYOLO_BUILD_FUZZERS=OFF
cmake --build "$build_dir" -j "$(nproc)"

# Any report fails its test: ASan and LSan exit non-zero by themselves, UBSan only when told to.
# detect_container_overflow=0: LibTorch is not instrumented, and std::vector annotations differ
# across that boundary (false reports). Suppressions name each library-owned leak and why.
sup_dir="$PWD/tools/sanitizer"
export ASAN_OPTIONS="detect_container_overflow=0:strict_string_checks=1:detect_stack_use_after_return=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$sup_dir/ubsan.supp"
export LSAN_OPTIONS="suppressions=$sup_dir/lsan.supp:print_suppressions=0"
# Uninstrumented programs that load the instrumented plugin run through the wrappers in
# tools/sanitizer/bin, which preload the ASan runtime: gst-launch-1.0 (on PATH) and GStreamer's
# plugin scanner (GST_PLUGIN_SCANNER; scanning in-process instead would load every installed
# plugin's libraries into the tests).
YOLO_ASAN_RUNTIME=$("${CXX:-c++}" -print-file-name=libasan.so)
YOLO_REAL_GST_PLUGIN_SCANNER="$(pkg-config --variable=pluginscannerdir gstreamer-1.0)/gst-plugin-scanner"
export YOLO_ASAN_RUNTIME YOLO_REAL_GST_PLUGIN_SCANNER
export PATH="$sup_dir/bin:$PATH"
export GST_PLUGIN_SCANNER="$sup_dir/bin/gst-plugin-scanner"
ctest --test-dir "$build_dir" --output-on-failure "$@"
