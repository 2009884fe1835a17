#!/usr/bin/env bash
# Proves a yolo-edge package on a box that has never seen the build: a fresh Debian 12 minimal
# root (mmdebstrap, from this machine's own apt sources), the package installed in it with
# `apt-get install ./yolo-edge_*.deb` so that apt resolves every dependency, and then, inside
# that root, where neither the source tree, the build folder nor /opt/yolo-edge exist:
#   libraries    every program, the plugin and the bundled libraries resolve each library
#                inside the root (ldd), and no RPATH names a path outside the package
#   checks       yolo-trainer checks
#   inspect      gst-inspect-1.0 yolo (the plugin found in the system folder, no GST_PLUGIN_PATH)
#   predict      yolo-trainer predict on a real photo with a real .pt finds objects
#   pipeline     gst-launch-1.0 filesrc ! decodebin ! videoconvert ! yolo http-port=... plays a
#                real-photo video, and its detections are polled over HTTP
#   monitor-check     yolo-monitor --check on the installed /etc/yolo-monitor/monitor.yaml
#   monitor-missing   the unit's ExecStart with its config file gone: exit 2 and a line naming it
#   monitor      the unit's own ExecStart line run as an unprivileged user (as systemd's
#                DynamicUser would, in its State/Logs directories) serves /api/v1/health, and a
#                camera added over the API (the video) gets detections
#   purge        apt-get purge removes every file the package installed
#   container    (where podman is installed) packaging/Containerfile builds on a base image made
#                from the same fresh root, and the container's yolo-monitor serves detections
# Each step prints `package-check: PASS <step>` or `package-check: FAIL <step>: why`; the exit
# status is 0 only when all passed. It also prints what was measured (installed size, the
# monitor's resident memory with one stream).
#
#   sudo tools/package-check.sh dist/yolo-edge_*.deb
#   KEEP=1 ...            keep the root afterwards (in ROOT, default a temporary folder)
#   YOLO_TEST_ASSETS=DIR  the real weights and photo (tools/fetch-test-assets.sh: yolo11n.pt,
#                         bus.jpg)
# Needs root (mmdebstrap --mode=root, chroot, mounts) and Debian's package mirror.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1" ]; then
  echo "usage: tools/package-check.sh dist/yolo-edge_<version>_<arch>.deb" >&2
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "package-check: needs root (mmdebstrap, chroot, mounts); run it with sudo" >&2
  exit 2
fi
for tool in mmdebstrap gst-launch-1.0 curl; do
  if ! command -v "$tool" >/dev/null; then
    echo "package-check: $tool is missing (tools/install-deps.sh installs it)" >&2
    exit 2
  fi
done
deb=$(realpath "$1")
assets="${YOLO_TEST_ASSETS:-/opt/yolo-edge/test-assets}"
for f in yolo11n.pt bus.jpg; do
  if [ ! -f "$assets/$f" ]; then
    echo "package-check: $assets/$f is missing: run tools/fetch-test-assets.sh" >&2
    exit 2
  fi
done
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/lib/fresh_root.sh
source "$here/lib/fresh_root.sh"

root="${ROOT:-$(mktemp -d /var/tmp/yolo-package-check.XXXXXX)}"
failures=0
pass() { echo "package-check: PASS $1"; }
fail() {
  echo "package-check: FAIL $1: $2"
  failures=$((failures + 1))
}
# A port nobody listens on (the root shares this machine's network).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# Polls URL until its body matches REGEX or SECONDS pass; prints the last body.
poll() {
  local url=$1 regex=$2 seconds=$3 body=""
  for _ in $(seq "$((seconds * 2))"); do
    body=$(curl -s --max-time 2 "$url" || true)
    if [[ "$body" =~ $regex ]]; then
      echo "$body"
      return 0
    fi
    sleep 0.5
  done
  echo "$body"
  return 1
}

# Sets `code` to the exit status of this shell's background process PID, or to "running" (and
# ends it) when it still runs after SECONDS.
exit_code_within() {
  local seconds=$1 pid=$2
  code=0
  for _ in $(seq "$((seconds * 4))"); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    code=running
    return
  fi
  wait "$pid" || code=$?
}

cleanup() {
  if [ -n "${base_image:-}" ]; then
    podman rm -f "yolo-check-$$" >/dev/null 2>&1 || true
    podman rmi -f "localhost/yolo-check-edge:$$" "$base_image" >/dev/null 2>&1 || true
  fi
  fresh_root_stop_processes "$root"
  fresh_root_unmount "$root"
  if [ "${KEEP:-0}" = 1 ]; then
    echo "package-check: kept $root and its logs ($root.*.log)"
  else
    rm -rf --one-file-system "$root"
    # The steps' logs stay where a step failed, for a person to read.
    if [ "$failures" -eq 0 ]; then rm -f "$root".*.log; else echo "package-check: logs: $root.*.log"; fi
  fi
}
trap cleanup EXIT

t0=$(date +%s)
fresh_root_create "$root"
echo "package-check: Debian 12 minbase root in $root ($(($(date +%s) - t0)) s)"
# The container's base image: this root as it is now, before anything is installed in it.
base_image=""
if command -v podman >/dev/null; then
  base_image="localhost/yolo-check-base:$$"
  tar -C "$root" -c . | podman import -q - "$base_image" >/dev/null
fi
fresh_root_mount "$root"

# The test's inputs, as a person would copy them onto the box: the package, a model, a photo,
# and a short H.264 video of that photo (made here: the box needs no encoder).
work="$root/srv/check"
mkdir -p "$work"
cp "$deb" "$work/"
cp "$assets/yolo11n.pt" "$assets/bus.jpg" "$work/"
gst-launch-1.0 -q multifilesrc location="$assets/bus.jpg" loop=true num-buffers=40 \
  caps=image/jpeg,framerate=10/1 ! jpegdec ! videoconvert ! video/x-raw,format=I420 ! \
  x264enc speed-preset=ultrafast ! h264parse ! mp4mux ! filesink location="$work/bus.mp4"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  LANG=C.UTF-8 "$@"; }

# ---- install -----------------------------------------------------------------------------------
t0=$(date +%s)
if in_root sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    /srv/check/$(basename "$deb")" >"$root.install.log" 2>&1; then
  pass "install ($(($(date +%s) - t0)) s; $(grep -c '^Setting up' "$root.install.log") packages set up)"
else
  tail -30 "$root.install.log"
  fail install "apt-get install ./$(basename "$deb") failed"
  exit 1
fi
package_files=$(in_root dpkg -L yolo-edge)
echo "package-check: installed size $(in_root dpkg-query -W -f='${Installed-Size}' yolo-edge) KiB; LibTorch folder $(du -sh "$root/usr/lib/yolo-edge" | cut -f1)"

# ---- every library inside the root -------------------------------------------------------------
problems=""
while IFS= read -r f; do
  [ -f "$root$f" ] && [ ! -L "$root$f" ] || continue
  head -c 4 "$root$f" | grep -q "ELF" || continue
  out=$(in_root ldd "$f" 2>&1 || true)
  if grep -q "not found" <<<"$out"; then
    problems+="$f: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ')"$'\n'
  fi
  # An RPATH may only point inside the package, relative to the file ($ORIGIN).
  rpath=$(LC_ALL=C readelf -d "$root$f" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
  IFS=: read -ra entries <<<"$rpath"
  for e in "${entries[@]}"; do
    case "$e" in
      '$ORIGIN'*) ;;
      *) problems+="$f: RPATH entry '$e' points outside the package"$'\n' ;;
    esac
  done
done <<<"$package_files"
# LibTorch comes from the package's private folder, wherever else a copy may be.
trainer_libs=$(in_root ldd /usr/bin/yolo-trainer)
if ! grep -Eq "libtorch_cpu.so => [^ ]*/lib/yolo-edge/libtorch_cpu.so" <<<"$trainer_libs"; then
  problems+="yolo-trainer does not load LibTorch from /usr/lib/yolo-edge:"$'\n'"$trainer_libs"$'\n'
fi
if [ -z "$problems" ]; then pass libraries; else fail libraries "$problems"; fi

# ---- the trainer and the plugin ----------------------------------------------------------------
if out=$(in_root yolo-trainer checks 2>&1); then pass checks; else fail checks "$out"; fi
echo "$out" | sed 's/^/  checks| /'
if out=$(in_root gst-inspect-1.0 yolo 2>&1) && grep -q "model-instance-id" <<<"$out"; then
  pass inspect
else
  fail inspect "$out"
fi

if out=$(in_root sh -c 'cd /srv/check && yolo-trainer predict model=yolo11n.pt source=bus.jpg \
    save_txt=True project=/srv/check/runs name=predict exist_ok=True' 2>&1); then
  labels=/srv/check/runs/predict/labels/bus.txt
  n=$(wc -l <"$root$labels" 2>/dev/null || echo 0)
  if [ "$n" -ge 3 ]; then pass "predict ($n objects in bus.jpg)"; else fail predict "$n objects in bus.jpg: $out"; fi
else
  fail predict "$out"
fi

# ---- the element in a pipeline, polled over HTTP -----------------------------------------------
port=$(free_port)
in_root gst-launch-1.0 -q filesrc location=/srv/check/bus.mp4 ! decodebin ! videoconvert ! \
  yolo model=/srv/check/yolo11n.pt stream-id=check http-port="$port" ! fakesink sync=true \
  >"$root.pipeline.log" 2>&1 &
pipeline=$!
if body=$(poll "http://127.0.0.1:$port/api/v1/streams/check/detections" '"class_name"' 60); then
  pass "pipeline (detections polled on port $port)"
else
  fail pipeline "no detection polled: $body; $(tail -5 "$root.pipeline.log")"
fi
wait "$pipeline" || fail pipeline "gst-launch-1.0 exited $?: $(tail -5 "$root.pipeline.log")"

# ---- yolo-monitor as the unit runs it ----------------------------------------------------------
unit=/usr/lib/systemd/system/yolo-monitor.service
exec_start=$(sed -n 's/^ExecStart=//p' "$root$unit")
config=$(sed -n 's/.*--config \([^ ]*\).*/\1/p' <<<"$exec_start")
if out=$(in_root yolo-monitor --config "$config" --check 2>&1); then
  pass "monitor-check ($out)"
else
  fail monitor-check "$out"
fi

# systemd's DynamicUser, by hand: an unprivileged uid that owns the unit's StateDirectory and
# LogsDirectory, started in its WorkingDirectory with its Environment.
uid=61873
state=/var/lib/$(sed -n 's/^StateDirectory=//p' "$root$unit")
logs=/var/log/$(sed -n 's/^LogsDirectory=//p' "$root$unit")
workdir=$(sed -n 's/^WorkingDirectory=//p' "$root$unit")
environment=$(sed -n 's/^Environment=//p' "$root$unit")
as_service() {
  in_root setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs \
    /usr/bin/env $environment sh -c "cd '$workdir' && exec $exec_start"
}
mkdir -p "$root$state/models" "$root$logs"
chown -R "$uid:$uid" "$root$state" "$root$logs"

mv "$root$config" "$root$config.away"
as_service >"$root.missing.log" 2>&1 &
exit_code_within 60 $!
mv "$root$config.away" "$root$config"
out=$(cat "$root.missing.log")
if [ "$code" -eq 2 ] && grep -q "$config" <<<"$out"; then
  pass "monitor-missing (exit 2: $(tail -1 <<<"$out"))"
else
  fail monitor-missing "exit $code, expected 2 and a line naming $config: $out"
fi

# The administrator's part: the model where the sample configuration expects it, and a port
# of this machine's choosing.
model=$(sed -n 's/^model: *\([^ ]*\).*/\1/p' "$root$config")
install -m 644 -o "$uid" -g "$uid" "$work/yolo11n.pt" "$root$model"
port=$(free_port)
sed -i "s/^\(  port:\) *[0-9]*/\1 $port/" "$root$config"
as_service >"$root.monitor.log" 2>&1 &
monitor=$!
if body=$(poll "http://127.0.0.1:$port/api/v1/health" '"status"' 60); then
  pass "monitor (ExecStart as uid $uid; health: $body)"
else
  fail monitor "no /api/v1/health on port $port: $body; $(tail -5 "$root.monitor.log")"
fi
curl -s -X POST "http://127.0.0.1:$port/api/v1/streams" \
  -d '{"id": "cam1", "uri": "/srv/check/bus.mp4"}' >/dev/null || true
if body=$(poll "http://127.0.0.1:$port/api/v1/streams/cam1/detections" '"class_name"' 90); then
  pid=$(pgrep -f -n "^/usr/bin/yolo-monitor" || true)
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo "?")
  pass "monitor-stream (camera added over the API gets detections; resident memory ${rss} KiB)"
else
  fail monitor-stream "no detections for cam1: $body; $(tail -5 "$root.monitor.log")"
fi
kill -TERM "$monitor" 2>/dev/null || true
wait "$monitor" 2>/dev/null || true

# ---- the same package in a container ------------------------------------------------------------
# The settings below are this test machine's, not the recipe's: its sandbox refuses setrlimit
# (podman's default ulimits) and runs cgroups v1 in hybrid mode (crun refuses it; runc with
# cgroupfs works), and builds run with chroot isolation for the same reason. On a box,
# `podman build` and `podman run` as docs/deploy.md types them need none of this.
if [ -n "$base_image" ]; then
  engine_conf="$root.containers.conf"
  printf '[containers]\ndefault_ulimits = []\n' >"$engine_conf"
  podman_here() {
    CONTAINERS_CONF="$engine_conf" podman --runtime runc --cgroup-manager cgroupfs "$@"
  }
  image="localhost/yolo-check-edge:$$"
  context="$root.container"
  mkdir -p "$context"
  cp "$deb" "$context/"
  t0=$(date +%s)
  if podman_here build -q --isolation=chroot --network=host --build-arg BASE="$base_image" \
      -f "$here/../packaging/Containerfile" -t "$image" "$context" >"$root.container.log" 2>&1; then
    pass "container-build ($(($(date +%s) - t0)) s)"
    port=$(free_port)
    sed "s/^\(  port:\) *[0-9]*/\1 $port/; s/^\(  bind:\) *[0-9.]*/\1 127.0.0.1/" \
      "$root$config" >"$context/monitor.yaml"
    podman_here run -d --rm --name "yolo-check-$$" --network=host \
      -v "$context/monitor.yaml:/etc/yolo-monitor/monitor.yaml:ro" \
      -v "$work/yolo11n.pt:$model:ro" -v "$work/bus.mp4:/srv/check/bus.mp4:ro" \
      "$image" >>"$root.container.log" 2>&1 || true
    poll "http://127.0.0.1:$port/api/v1/health" '"status"' 60 >/dev/null || true
    added=$(curl -s -X POST "http://127.0.0.1:$port/api/v1/streams" \
      -d '{"id": "cam1", "uri": "/srv/check/bus.mp4"}' || true)
    if body=$(poll "http://127.0.0.1:$port/api/v1/streams/cam1/detections" '"class_name"' 90); then
      pass "container-run (the image's yolo-monitor, as its own user, gets detections)"
    else
      fail container-run "no detections: $body; POST answered: $added; $(podman_here logs \
        "yolo-check-$$" 2>&1 | tail -8)"
    fi
    podman_here stop -t 10 "yolo-check-$$" >/dev/null 2>&1 || true
  else
    fail container-build "$(tail -15 "$root.container.log")"
  fi
  podman_here rmi -f "$image" >/dev/null 2>&1 || true
  podman rmi -f "$base_image" >/dev/null 2>&1 || true
  rm -rf "$context" "$engine_conf"
else
  echo "package-check: no podman here: the container recipe is not built (tools/install-deps.sh installs it)"
fi

# ---- purge -------------------------------------------------------------------------------------
rm -rf "$root/srv/check/runs"
if out=$(in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get purge -y -q yolo-edge' 2>&1); then
  left=""
  while IFS= read -r f; do
    if [ -e "$root$f" ] && [ ! -d "$root$f" ]; then left+=" $f"; fi
  done <<<"$package_files"
  for d in /usr/lib/yolo-edge /etc/yolo-monitor "$state" "$logs"; do
    if [ -e "$root$d" ]; then left+=" $d"; fi
  done
  if [ -z "$left" ]; then pass purge; else fail purge "left behind:$left"; fi
else
  fail purge "$out"
fi

if [ "$failures" -eq 0 ]; then
  echo "package-check: all steps passed"
else
  echo "package-check: $failures step(s) failed"
  exit 1
fi
