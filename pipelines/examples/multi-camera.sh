#!/usr/bin/env bash
# Several cameras, one model: every `yolo` element names the same model-instance-id, so frames
# of all cameras are batched into one model call (batch-size = number of cameras), and one HTTP
# endpoint on :8080 (HTTP_PORT=... to change) serves them all (GET /api/v1/streams).
#   pipelines/examples/multi-camera.sh MODEL URI1 URI2 [URI3 ...]
set -euo pipefail
model=${1:?usage: multi-camera.sh MODEL URI1 URI2 ...}
shift
[ $# -ge 1 ] || { echo "usage: multi-camera.sh MODEL URI1 URI2 ..." >&2; exit 2; }
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$(dirname "$0")/../../build/gst-plugins}
branches=()
i=0
for uri in "$@"; do
  i=$((i + 1))
  branches+=(uridecodebin uri="$uri" ! videoconvert ! queue leaky=downstream max-size-buffers=1 !
    yolo model="$model" model-instance-id=shared batch-size=$# batch-timeout=20000
    stream-id="cam$i" http-port="${HTTP_PORT:-8080}" ! fakesink sync=false)
done
exec gst-launch-1.0 "${branches[@]}"
