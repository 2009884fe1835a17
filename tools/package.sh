#!/usr/bin/env bash
# Builds the Debian package of the programs for a box: dist/yolo-edge_<version>+<flavour>_<arch>.deb
# (yolo-monitor and its systemd unit, the GStreamer plugin in the system's gstreamer-1.0 folder,
# yolo-trainer, a starting /etc/yolo-monitor/monitor.yaml, tracker YAMLs and docs), with the
# LibTorch libraries the programs load in /usr/lib/yolo-edge and nothing else of LibTorch.
#
#   tools/package.sh                      the `cpu` flavour from the project's torch wheel: links
#                                         only LibTorch's CPU library (no GPU libraries on a box
#                                         that has no GPU)
#   FLAVOUR=gpu tools/package.sh          every part of the LibTorch found: `cuda` from PyPI's
#                                         wheel (about 3 GB of CUDA libraries), `rocm` from a
#                                         ROCm LibTorch (docs/rocm.md)
#   LIBTORCH=/opt/libtorch-rocm ...       build against that LibTorch instead of the venv's wheel
#   BUILD_DIR=build-package DIST=dist     where it builds and where the package goes
#   SKIP_SETUP=1                          do not run tools/install-deps.sh
#
# Then on the box: sudo apt install ./yolo-edge_*.deb (README, "Deploy to a box");
# tools/package-check.sh proves it on a fresh Debian 12 root.
set -euo pipefail
cd "$(dirname "$0")/.."

flavour="${FLAVOUR:-cpu}"
case "$flavour" in
  cpu) parts=cpu ;;
  gpu) parts=all ;;
  *) echo "package: FLAVOUR=$flavour: use cpu or gpu (the GPU flavour is named cuda or rocm after the LibTorch)" >&2; exit 2 ;;
esac
build_dir="${BUILD_DIR:-build-package}"
dist="${DIST:-dist}"

if [ "${SKIP_SETUP:-0}" != 1 ]; then
  tools/install-deps.sh --product
fi

torch_args=()
if [ -n "${LIBTORCH:-}" ]; then torch_args+=("-DCMAKE_PREFIX_PATH=$LIBTORCH"); fi

echo "package: configuring $build_dir (LibTorch parts: $parts)"
mkdir -p "$build_dir"
# Only the programs: no tests or benchmarks. The prefix is the box's (/usr), since the unit's
# ExecStart and the plugin folder the monitor falls back to are compiled in from it.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DYOLO_BUILD_TESTS=OFF -DYOLO_BUILD_BENCHMARKS=OFF -DYOLO_LIBTORCH_PARTS="$parts" \
  -DYOLO_BUNDLE_LIBTORCH=ON "${torch_args[@]}" >"$build_dir/configure.log" 2>&1 ||
  { cat "$build_dir/configure.log" >&2; exit 1; }
echo "package: building the programs"
cmake --build "$build_dir" -j "$(nproc)" --target product
echo "package: making the Debian package"
rm -rf "$build_dir/packages"
(cd "$build_dir" && cpack -G DEB --config CPackConfig.cmake >cpack.log 2>&1) ||
  { cat "$build_dir/cpack.log" >&2; exit 1; }

mkdir -p "$dist"
shopt -s nullglob
debs=("$build_dir"/packages/*.deb)
if [ "${#debs[@]}" -ne 1 ]; then
  echo "package: expected one package in $build_dir/packages, found ${#debs[@]}" >&2
  exit 1
fi
deb="$dist/$(basename "${debs[0]}")"
cp "${debs[0]}" "$deb.part" && mv "$deb.part" "$deb"

# What it is: its control fields, and its size against what it carries.
dpkg-deb --field "$deb" Package Version Architecture Installed-Size Depends Recommends
echo "package: $deb ($(du -h "$deb" | cut -f1) to download; installs $(dpkg-deb --field "$deb" Installed-Size) KiB)"
echo "package: LibTorch it carries:"
dpkg-deb --contents "$deb" | awk '$6 ~ /lib\/yolo-edge\/./ {printf "  %-48s %6.1f MB\n", $6, $3 / 1e6}'
