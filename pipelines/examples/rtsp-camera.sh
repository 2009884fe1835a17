#!/usr/bin/env bash
# One RTSP camera: TCP transport, 300 ms jitter buffer, a leaky queue so that a slow model drops
# old frames instead of building up delay, detections over HTTP on :8080 (HTTP_PORT=... to change).
#   pipelines/examples/rtsp-camera.sh MODEL rtsp://user:pass@camera/stream [DEVICE]
set -euo pipefail
model=${1:?usage: rtsp-camera.sh MODEL URI [DEVICE]}
uri=${2:?usage: rtsp-camera.sh MODEL URI [DEVICE]}
device=${3:-}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$(dirname "$0")/../../build/gst-plugins}
exec gst-launch-1.0 rtspsrc location="$uri" protocols=tcp latency=300 ! decodebin ! \
  videoconvert ! queue leaky=downstream max-size-buffers=1 ! \
  yolo model="$model" device="$device" stream-id=cam1 http-port="${HTTP_PORT:-8080}" ! fakesink sync=false
