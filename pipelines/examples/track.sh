#!/usr/bin/env bash
# Objects followed over time: yolo detects, yolotracker gives each object an id (BoT-SORT by
# default; TRACKER=bytetrack.yaml or a YAML file to change), yolooverlay draws "id:N class conf"
# labels and the path of each track over its last 30 boxes: to a window, or (with OUT.mp4)
# encoded to H.264 in an MP4 file.
#   pipelines/examples/track.sh MODEL VIDEO [OUT.mp4]
set -euo pipefail
model=${1:?usage: track.sh MODEL VIDEO [OUT.mp4]}
video=${2:?usage: track.sh MODEL VIDEO [OUT.mp4]}
out=${3:-}
tracker=${TRACKER:-botsort.yaml}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$(dirname "$0")/../../build/gst-plugins}
if [ -z "$out" ]; then
  exec gst-launch-1.0 filesrc location="$video" ! decodebin ! videoconvert ! \
    yolo model="$model" ! yolotracker tracker="$tracker" ! yolooverlay trails=30 ! \
    videoconvert ! autovideosink
fi
exec gst-launch-1.0 -e filesrc location="$video" ! decodebin ! videoconvert ! \
  yolo model="$model" ! yolotracker tracker="$tracker" ! yolooverlay trails=30 ! videoconvert ! \
  x264enc tune=zerolatency ! h264parse ! mp4mux ! filesink location="$out"
