#!/usr/bin/env bash
# What a box carries and what yolo-monitor holds in memory with one camera: the `cpu` package
# (its files unpacked into a temporary folder: the programs find their LibTorch through their
# $ORIGIN RPATH, wherever they lie) against the build tree's programs, which link every part of
# the project's torch wheel, in one run, on the same video and model.
#
#   tools/bench/monitor_footprint.sh dist/yolo-edge_*.deb [BUILD_DIR]
#   SECONDS_RUN=20 ...   how long each monitor runs its stream before it is measured
#
# Prints a table: installed size (the package's Installed-Size; the venv the build uses), the
# shared libraries the running monitor has mapped (their files' sizes, counted once), its
# resident memory (VmRSS, and VmHWM, the peak), and the ratio of each to the build tree's.
# Needs tools/fetch-test-assets.sh's yolo11n.pt and bus.jpg, and the host's GStreamer encoders.
set -euo pipefail

if [ $# -lt 1 ] || [ ! -f "$1" ]; then
  echo "usage: tools/bench/monitor_footprint.sh dist/yolo-edge_<version>_<arch>.deb [BUILD_DIR]" >&2
  exit 2
fi
deb=$(realpath "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${2:-$src/build}")
assets="${YOLO_TEST_ASSETS:-/opt/yolo-edge/test-assets}"
venv="${YOLO_VENV:-/opt/yolo-edge/venv}"
run_seconds="${SECONDS_RUN:-20}"
work=$(mktemp -d /var/tmp/yolo-footprint.XXXXXX)
trap 'rm -rf "$work"' EXIT

dpkg-deb -x "$deb" "$work/pkg"
# A camera: 30 s of a real photo at 10 frames/s, looped by the monitor's file source.
gst-launch-1.0 -q multifilesrc location="$assets/bus.jpg" loop=true num-buffers=300 \
  caps=image/jpeg,framerate=10/1 ! jpegdec ! videoconvert ! video/x-raw,format=I420 ! \
  x264enc speed-preset=ultrafast ! h264parse ! mp4mux ! filesink location="$work/cam.mp4"

# One monitor run: prints "rss_kib hwm_kib mapped_bytes".
measure() {
  local monitor=$1 plugins=$2 port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cat >"$work/monitor.yaml" <<EOF
model: $assets/yolo11n.pt
device: cpu
http: {bind: 127.0.0.1, port: $port}
state_file: $work/streams.json
streams:
  - id: cam1
    uri: $work/cam.mp4
EOF
  rm -f "$work/streams.json" "$work/registry.bin"
  GST_PLUGIN_PATH="$plugins" GST_REGISTRY="$work/registry.bin" \
    "$monitor" --config "$work/monitor.yaml" >"$work/monitor.log" 2>&1 &
  local pid=$!
  local got=""
  for _ in $(seq 240); do
    if curl -s --max-time 2 "http://127.0.0.1:$port/api/v1/streams/cam1/detections" |
        grep -q '"class_name"'; then
      got=1
      break
    fi
    sleep 0.5
  done
  if [ -z "$got" ]; then
    kill "$pid" 2>/dev/null || true
    echo "monitor_footprint: $monitor gave no detections:" >&2
    tail -20 "$work/monitor.log" >&2
    exit 1
  fi
  sleep "$run_seconds"
  local rss hwm mapped
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
  hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
  mapped=$(awk '$6 ~ /\.so/ {print $6}' "/proc/$pid/maps" | sort -u | xargs -r stat -L -c %s |
    awk '{s += $1} END {print s + 0}')
  kill -TERM "$pid"
  wait "$pid" || true
  echo "$rss $hwm $mapped"
}

echo "monitor_footprint: the package's yolo-monitor (unpacked from $(basename "$deb"))"
read -r p_rss p_hwm p_mapped < <(measure "$work/pkg/usr/bin/yolo-monitor" \
  "$(dirname "$(find "$work/pkg" -name libgstyolo.so)")")
echo "monitor_footprint: the build tree's yolo-monitor ($build)"
read -r b_rss b_hwm b_mapped < <(measure "$build/bin/yolo-monitor" "$build/gst-plugins")
p_installed=$(($(dpkg-deb --field "$deb" Installed-Size) * 1024))
b_installed=$(du -sb "$venv" | cut -f1)

mb() { awk -v b="$1" 'BEGIN {printf "%.0f", b / 1e6}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }
echo
echo "one stream (yolo11n.pt, 810x1080 H.264 at 10 frames/s, device=cpu), measured after ${run_seconds} s of detections"
printf "| %-36s | %12s | %12s | %12s | %12s |\n" "" "installed MB" "mapped .so MB" "RSS MB" "peak RSS MB"
printf "|%s|%s|%s|%s|%s|\n" "------------------------------------" "-------------:" "-------------:" "-------------:" "-------------:"
printf "| %-36s | %12s | %12s | %12s | %12s |\n" "build tree + venv (all of LibTorch)" \
  "$(mb "$b_installed")" "$(mb "$b_mapped")" "$(mb $((b_rss * 1024)))" "$(mb $((b_hwm * 1024)))"
printf "| %-36s | %12s | %12s | %12s | %12s |\n" "\`cpu\` package" \
  "$(mb "$p_installed")" "$(mb "$p_mapped")" "$(mb $((p_rss * 1024)))" "$(mb $((p_hwm * 1024)))"
printf "| %-36s | %12s | %12s | %12s | %12s |\n" "package / build tree" \
  "$(ratio "$p_installed" "$b_installed")" "$(ratio "$p_mapped" "$b_mapped")" \
  "$(ratio "$p_rss" "$b_rss")" "$(ratio "$p_hwm" "$b_hwm")"
