#!/usr/bin/env bash
# Boxes drawn onto the video by yolooverlay (from the yolo element's ROI metas): to a window, or
# (with OUT.mp4) encoded to H.264 in an MP4 file.
#   pipelines/examples/overlay.sh MODEL VIDEO [OUT.mp4]
set -euo pipefail
model=${1:?usage: overlay.sh MODEL VIDEO [OUT.mp4]}
video=${2:?usage: overlay.sh MODEL VIDEO [OUT.mp4]}
out=${3:-}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$(dirname "$0")/../../build/gst-plugins}
if [ -z "$out" ]; then
  exec gst-launch-1.0 filesrc location="$video" ! decodebin ! videoconvert ! \
    yolo model="$model" ! yolooverlay ! videoconvert ! autovideosink
fi
exec gst-launch-1.0 -e filesrc location="$video" ! decodebin ! videoconvert ! \
  yolo model="$model" ! yolooverlay ! videoconvert ! x264enc tune=zerolatency ! h264parse ! \
  mp4mux ! filesink location="$out"
