# A fresh Debian 12 root for tests that must see what a new machine sees (sourced by
# tools/package-check.sh and tools/bench/fresh_quickstart.sh). Needs root and mmdebstrap.
#
#   fresh_root_create ROOT [VARIANT] [PACKAGES]
#                                   Debian 12 (bookworm) from this machine's own apt sources:
#                                   the mirror configured here is the one used, and no host name
#                                   is written into the project (MIRROR=... overrides both);
#                                   PACKAGES (comma-separated) are installed with it
#   fresh_root_mount ROOT           /proc, /sys, /dev, /dev/pts and DNS, for chroot
#   fresh_root_stop_processes ROOT  ends every process still running inside ROOT
#   fresh_root_unmount ROOT         the mounts above, innermost first

# The apt source files of this machine that name Debian 12's suites (third-party lists, and
# files disabled by renaming, are left out).
fresh_root_sources() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    if grep -Eq '^[^#]*(deb |Suites:).*bookworm' "$f"; then echo "$f"; fi
  done
}

fresh_root_create() {
  local root=$1 variant=${2:-minbase} include=${3:-} sources=() extra=()
  if [ -n "$include" ]; then extra=(--include="$include"); fi
  if [ -n "${MIRROR:-}" ]; then
    sources=("$MIRROR")
  else
    mapfile -t sources < <(fresh_root_sources)
    if [ "${#sources[@]}" -eq 0 ]; then
      echo "fresh_root: no apt source for bookworm in /etc/apt; set MIRROR=<a Debian mirror URL>" >&2
      return 1
    fi
  fi
  if ! command -v mmdebstrap >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mmdebstrap >/dev/null
  fi
  mkdir -p "$root"
  if ! mmdebstrap --variant="$variant" --mode=root "${extra[@]}" bookworm "$root" "${sources[@]}" \
      >"$root.mmdebstrap.log" 2>&1; then
    tail -20 "$root.mmdebstrap.log" >&2
    echo "fresh_root: mmdebstrap failed; see $root.mmdebstrap.log" >&2
    return 1
  fi
}

fresh_root_mount() {
  local root=$1
  mount -t proc proc "$root/proc"
  mount -t sysfs sys "$root/sys"
  mount --bind /dev "$root/dev"
  mount --bind /dev/pts "$root/dev/pts"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
}

fresh_root_stop_processes() {
  local root=$1 link pid
  root=$(realpath "$root" 2>/dev/null) || return 0
  for link in /proc/[0-9]*/root; do
    if [ "$(readlink "$link" 2>/dev/null)" = "$root" ]; then
      pid=${link#/proc/}
      kill -KILL "${pid%/root}" 2>/dev/null || true
    fi
  done
}

fresh_root_unmount() {
  local root=$1 m
  # Lazily, so that a process still holding a file cannot keep the host's /dev mounted there.
  for m in dev/pts dev sys proc; do
    if mountpoint -q "$root/$m"; then umount -l "$root/$m"; fi
  done
}
