#!/usr/bin/env bash
# Installs every build and test dependency of the project:
#   - Debian 12 packages (apt): toolchain, OpenCV, GStreamer, yaml-cpp, httplib, tests;
#   - LibTorch 2.x: PyTorch's own `torch` wheel from PyPI, pinned, in a virtualenv outside the
#     checkout (YOLO_VENV, default /opt/yolo-edge/venv) so that every clone, CI and the
#     quickstart reuse it. CMake finds it through that venv (see CMakeLists.txt).
# Idempotent: packages already installed are skipped, and when nothing is missing the script
# returns without touching apt or pip (a dpkg query and one Python import, about a second).
#
#   tools/install-deps.sh                  everything the build and tests need
#   tools/install-deps.sh --product          only what the programs need (the quickstart): no
#                                            compilers for fuzzing, test servers, browser
#   tools/install-deps.sh --oracle           also Ultralytics (pinned) in the same venv: the
#                                            reference the parity tests run against (dev/test
#                                            only; the product never needs Python), and the
#                                            tests' real weights and photos
#                                            (tools/fetch-test-assets.sh)
#   tools/install-deps.sh --oracle --bench-peers   also ONNX, onnxslim and ONNX Runtime (pinned):
#                                            the CPU speed peer of tools/bench/predict_side_by_side.py
#                                            (bench only; Ultralytics' ONNX export needs the first two)
#   tools/install-deps.sh --debian-libtorch  also Debian's LibTorch 1.13 (libtorch-dev), for
#                                            the 1.13-vs-2.x benchmarks only
#   YOLO_TORCH_VERSION=2.12.0 tools/install-deps.sh   another torch from PyPI (2.x)
#   YOLO_VENV=none tools/install-deps.sh   no virtualenv: bring your own LibTorch
#                                          (-DCMAKE_PREFIX_PATH=/opt/libtorch)
set -euo pipefail

# The pinned LibTorch: the version the GPU check machine runs (torch 2.11, CUDA 13), so what is
# tested here on the CPU is the same library that is checked on a GPU.
torch_version="${YOLO_TORCH_VERSION:-2.11.0}"
# The oracle of tests/parity: the newest Ultralytics 8.4 when the parity work started.
ultralytics_version="8.4.190"
# Its OpenCV, pinned too: Ultralytics accepts any opencv-python, and 5.1 rounds the HSV
# conversion differently from 5.0 (one level; test_augment_replay_parity compares those pixels
# exactly), so a new release on PyPI must not change the oracle under the tests.
oracle_opencv_version="5.0.0.93"
# The trackers' oracles: lap is the assignment solver Ultralytics' trackers import (it would
# otherwise try to install it at run time); py-motmetrics and TrackEval are the field's reference
# MOT metrics (tests/tracking); shapely is the geometry Ultralytics' solutions (ObjectCounter)
# import (tests/analytics).
oracle_tracking_packages="lap==0.5.13 motmetrics==1.4.0 trackeval==1.3.0 shapely==2.1.2"
# The speed peers of the benchmarks (never of tests or the product).
bench_peer_packages="onnx==1.23.2 onnxslim==0.1.98 onnxruntime==1.32.0 openvino==2026.4.1"
venv="${YOLO_VENV:-/opt/yolo-edge/venv}"
with_debian_libtorch=0
with_oracle=0
with_bench_peers=0
with_tests=1
for arg in "$@"; do
  case "$arg" in
    --debian-libtorch) with_debian_libtorch=1 ;;
    --oracle) with_oracle=1 ;;
    --bench-peers) with_bench_peers=1 ;;
    --product) with_tests=0 ;;
    *) echo "install-deps: unknown option '$arg' (known: --product, --oracle, --bench-peers, --debian-libtorch)" >&2; exit 2 ;;
  esac
done

# What the product's build and the quickstart need.
packages=(
  # toolchain; dpkg-dev's dpkg-shlibdeps computes the package's dependencies (tools/package.sh)
  build-essential cmake ninja-build ccache pkg-config git dpkg-dev
  # the virtualenv that holds PyTorch's LibTorch; Gloo headers for c10d; OpenBLAS for OpenCV
  python3 python3-venv libgloo-dev libopenblas0-pthread
  # images, video, plots
  libopencv-dev
  # GStreamer 1.22: development files, plugins (x264enc for the quickstart's MP4), tools
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-tools
  # configuration, JSON, HTTP, logging, CLI
  libyaml-cpp-dev nlohmann-json3-dev libcpp-httplib-dev libzip-dev libspdlog-dev libfmt-dev
  libcli11-dev
  # tracking: the Kalman filters' matrices
  libeigen3-dev
  # publishing to MQTT: the client library, and its command-line clients for watching what a box
  # publishes (mosquitto_sub)
  libmosquitto-dev mosquitto-clients
  # the quickstart polls the element's HTTP endpoint; the docs' examples read its JSON with jq
  curl jq
)
# What only the tests, fuzzers and benchmarks need (left out by --product).
test_packages=(
  clang-format
  # libFuzzer targets (tests/fuzz): clang and its fuzzer/sanitizer runtimes
  clang libclang-rt-dev
  # RTSP cameras (tests, soak benchmark), the MQTT broker, GoogleTest
  libgstrtspserver-1.0-dev mosquitto libgtest-dev
  # corrupt and hand-made archives in tests
  zip unzip
  # headless browser for the yolo-monitor dashboard test (skipped without it)
  chromium
  # the package on a fresh Debian root and in a container (test_package, tools/package-check.sh)
  mmdebstrap podman runc
)
if [ "$with_tests" -eq 1 ]; then packages+=("${test_packages[@]}"); fi
if [ "$with_debian_libtorch" -eq 1 ]; then packages+=(libtorch-dev); fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages present"
else
  echo "install-deps: installing ${#missing[@]} missing packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ---- LibTorch 2.x from the torch wheel -----------------------------------------------------------
if [ "$venv" = "none" ]; then
  echo "install-deps: YOLO_VENV=none: no torch wheel; give CMake a LibTorch (-DCMAKE_PREFIX_PATH)"
  exit 0
fi
installed="$("$venv/bin/python" -c 'import torch; print(torch.__version__)' 2>/dev/null || true)"
# The wheel reports e.g. 2.11.0+cu130; the pin is the part before '+'.
if [ "${installed%%+*}" = "$torch_version" ]; then
  echo "install-deps: torch $installed present in $venv"
else
  echo "install-deps: installing torch==$torch_version (LibTorch with its CMake config) into $venv"
  if [ ! -x "$venv/bin/python" ]; then
    $SUDO mkdir -p "$(dirname "$venv")"
    $SUDO /usr/bin/python3 -m venv "$venv"
  fi
  # The PyPI wheel is the CUDA build: it runs on the CPU too, and links every GPU code path.
  # numpy: the tests' interoperability checks (Python torch and numpy read what we write).
  $SUDO "$venv/bin/python" -m pip install -q --disable-pip-version-check "torch==$torch_version" numpy
  echo "install-deps: $("$venv/bin/python" -c 'import torch; print("torch", torch.__version__, "at", torch.utils.cmake_prefix_path)')"
fi

if [ "$with_oracle" -eq 1 ]; then
  have="$("$venv/bin/python" -c 'import ultralytics, importlib.metadata as m; print(ultralytics.__version__, m.version("opencv-python"), *("%s==%s" % (p, m.version(p)) for p in ("lap", "motmetrics", "trackeval", "shapely")))' 2>/dev/null || true)"
  if [ "$have" = "$ultralytics_version $oracle_opencv_version $oracle_tracking_packages" ]; then
    echo "install-deps: ultralytics and opencv-python $have present (the parity oracle)"
  else
    echo "install-deps: installing ultralytics==$ultralytics_version, opencv-python==$oracle_opencv_version, $oracle_tracking_packages into $venv (the parity oracle)"
    # torch stays pinned; pip picks the torchvision built for it.
    $SUDO "$venv/bin/python" -m pip install -q --disable-pip-version-check \
      "torch==$torch_version" torchvision "ultralytics==$ultralytics_version" \
      "opencv-python==$oracle_opencv_version" $oracle_tracking_packages
  fi
  # The parity tests' real inputs: the official yolo11n.pt and real photos, checksummed, in a
  # cache outside the checkout (never committed: the weights are AGPL-3.0).
  YOLO_VENV="$venv" "$(dirname "$0")/fetch-test-assets.sh"
fi

if [ "$with_bench_peers" -eq 1 ]; then
  have="$("$venv/bin/python" -c 'import importlib.metadata as m; print(*("%s==%s" % (p, m.version(p)) for p in ("onnx", "onnxslim", "onnxruntime", "openvino")))' 2>/dev/null || true)"
  if [ "$have" = "$bench_peer_packages" ]; then
    echo "install-deps: $have present (the benchmarks' speed peers)"
  else
    echo "install-deps: installing $bench_peer_packages into $venv (the benchmarks' speed peers)"
    $SUDO "$venv/bin/python" -m pip install -q --disable-pip-version-check "torch==$torch_version" \
      $bench_peer_packages
  fi
fi
