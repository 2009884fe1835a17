#!/usr/bin/env bash
# Detections for a video file, printed as element messages, with the HTTP endpoint on :8080 (HTTP_PORT=... to change).
#   pipelines/examples/file.sh MODEL VIDEO
# From the build tree: GST_PLUGIN_PATH=build/gst-plugins (set below when unset).
set -euo pipefail
model=${1:?usage: file.sh MODEL VIDEO}
video=${2:?usage: file.sh MODEL VIDEO}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$(dirname "$0")/../../build/gst-plugins}
exec gst-launch-1.0 -m filesrc location="$video" ! decodebin ! videoconvert ! \
  yolo model="$model" post-messages=true http-port="${HTTP_PORT:-8080}" stream-id=file ! fakesink
