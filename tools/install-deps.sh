#!/usr/bin/env bash
# Installs every build and test dependency of the project from Debian 12 packages.
# Idempotent: packages already installed are skipped, and when nothing is missing
# the script returns without touching apt at all (a dpkg query takes ~0.1 s).
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build ccache pkg-config clang-format git
  # LibTorch (CPU build on Debian) + Gloo for c10d, and a fast BLAS for it
  libtorch-dev libgloo-dev libopenblas0-pthread
  # images, video, plots
  libopencv-dev
  # GStreamer 1.22: development files, plugins, tools, RTSP server for tests
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-tools
  libgstrtspserver-1.0-dev
  # configuration, JSON, HTTP, logging, CLI
  libyaml-cpp-dev nlohmann-json3-dev libcpp-httplib-dev libzip-dev libspdlog-dev libfmt-dev
  libcli11-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev python3 python3-torch
  # misc tools used by tests and the quickstart
  curl zip unzip
  # headless browser for the yolo-monitor dashboard test (skipped without it)
  chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${#missing[@]} missing packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: done"
