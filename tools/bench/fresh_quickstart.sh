#!/usr/bin/env bash
# Times tools/quickstart.sh as a new user meets it: on a fresh Debian 12 (an mmdebstrap chroot of
# bookworm, minbase: not even ca-certificates or Python), from this checkout's HEAD, with no apt,
# pip or ccache cache. Prints the time of each quickstart step and the whole run; the README's
# "measured times" come from this script.
#
#   sudo tools/bench/fresh_quickstart.sh [ROOT_DIR]        (default /var/tmp/yolo-fresh)
#   KEEP=1 ...       keep the chroot afterwards (it holds a few GB)
#   MIRROR=URL       a Debian mirror (default: this machine's own apt sources, copied into the
#                    chroot as they are: updates and security included)
#
# The chroot shares the host's kernel, CPUs and network, and nothing else but two things a fresh
# machine of this project has too: the CUDA toolkit (/usr/local/cuda, bind-mounted read-only:
# PyPI's torch wheel is a CUDA build whose CMake config asks for nvcc at configure time) and the
# host's CA bundle for pip (some networks re-sign TLS). Building the OS itself (mmdebstrap) is
# timed apart: a fresh machine already has one.
set -euo pipefail

if [[ $(id -u) -ne 0 ]]; then
  echo "fresh_quickstart: needs root (mmdebstrap, chroot, mounts)" >&2
  exit 2
fi
src=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
# shellcheck source=tools/lib/fresh_root.sh
source "$src/tools/lib/fresh_root.sh"
root=$(realpath -m "${1:-/var/tmp/yolo-fresh}")
log="$root.log"

if [[ -e "$root" ]]; then
  echo "fresh_quickstart: $root exists; remove it first (a fresh machine starts empty)" >&2
  exit 2
fi

unmount_all() {
  fresh_root_stop_processes "$root"
  # Lazily, so that a process still holding a file cannot keep the mount (or /dev) around.
  if mountpoint -q "$root/usr/local/cuda-host"; then umount -l "$root/usr/local/cuda-host"; fi
  fresh_root_unmount "$root"
  if [[ "${KEEP:-0}" != 1 ]]; then rm -rf --one-file-system "$root"; fi
}
trap unmount_all EXIT

t0=$(date +%s)
fresh_root_create "$root" minbase
echo "fresh_quickstart: Debian 12 minbase in $root ($(($(date +%s) - t0)) s, not counted)"
fresh_root_mount "$root"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/host-ca-certificates.crt"
if [[ -d /usr/local/cuda/ ]]; then
  cuda=$(realpath /usr/local/cuda)
  mkdir -p "$root/usr/local/cuda-host"
  mount --bind -o ro "$cuda" "$root/usr/local/cuda-host"
  mount -o remount,bind,ro "$root/usr/local/cuda-host"
  ln -s cuda-host "$root/usr/local/cuda"
fi
mkdir -p "$root/root/yolo-edge"
git -C "$src" archive HEAD | tar -x -C "$root/root/yolo-edge"
echo "fresh_quickstart: $(git -C "$src" log -1 --format='%h %s') into $root/root/yolo-edge"

# Each output line gets the seconds since the start, so the steps can be timed afterwards.
start=$(date +%s)
set +e
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
  PATH=/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  PIP_CERT=/etc/host-ca-certificates.crt \
  /bin/bash -c 'cd /root/yolo-edge && tools/quickstart.sh' 2>&1 |
  while IFS= read -r line; do printf '%6d %s\n' "$(($(date +%s) - start))" "$line"; done | tee "$log"
status=${PIPESTATUS[0]}
set -e
total=$(($(date +%s) - start))

echo
echo "fresh_quickstart: exit $status, $total s in all ($(date -u +%Y-%m-%d), $(nproc) cores); log: $log"
# The steps' durations, from the time stamps of their "==> [n/9]" lines.
awk -v total="$total" '
  / ==> \[[0-9]\/9\]/ { if (name != "") printf "  %-70s %5d s\n", name, $1 - at;
                        at = $1; name = substr($0, index($0, "==>") + 4) }
  END { if (name != "") printf "  %-70s %5d s\n", name, total - at }' "$log"
exit "$status"
