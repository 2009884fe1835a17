"""Decoded colours of flagged test videos: GStreamer's decode (decodebin ! videoconvert, what
`yolo-trainer predict` and a gst-launch pipeline without the `yolo` element's own conversion get)
and OpenCV's (FFmpeg, what Ultralytics gets) against the known RGB of flat patches. Dev tool for
issue #53 (docs/benchmarks.md); the product never runs Python.

    decode_colours.py --out runs/colours [--size 320x240]

Writes a PNG of eight flat patches (primaries, greys, a skin tone, a dark blue), encodes it with
explicit colorimetry (BT.601 and BT.709, limited and full range) as lossless H.264 (x264enc
quantizer 0, so the YUV is exact and only the conversions differ) and as MPEG-4 (whose headers
carry no colour matrix: the unflagged case), decodes each both ways and prints, per file, the
colorimetry GStreamer's decoded caps report and the largest error of either decoder over the
patch centres, then every patch. Needs gst-launch-1.0 with x264enc, avenc_mpeg4 and avdec_h264
(gstreamer1.0-plugins-ugly, gstreamer1.0-libav) and the venv's cv2.
"""

import argparse
import re
import subprocess
from pathlib import Path

import cv2
import numpy as np

PATCHES = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (128, 128, 128), (230, 180, 140), (40, 60, 90),
           (255, 255, 255), (16, 16, 16)]  # RGB

# name, caps colorimetry of the encoder's input, encoder
CASES = [
    ("h264_bt601", "bt601", "x264enc pass=quant quantizer=0 speed-preset=ultrafast"),
    ("h264_bt709", "bt709", "x264enc pass=quant quantizer=0 speed-preset=ultrafast"),
    ("h264_bt601_full", "1:4:7:1", "x264enc pass=quant quantizer=0 speed-preset=ultrafast"),
    ("h264_bt709_full", "1:3:5:1", "x264enc pass=quant quantizer=0 speed-preset=ultrafast"),
    ("mpeg4_bt601", "bt601", "avenc_mpeg4 bitrate=20000000"),
    ("mpeg4_bt709", "bt709", "avenc_mpeg4 bitrate=20000000"),
]


def run(cmd: str) -> str:
    return subprocess.run(cmd, shell=True, check=True, capture_output=True, text=True).stdout


def patch_image(w: int, h: int) -> np.ndarray:
    img = np.zeros((h, w, 3), np.uint8)
    pw, ph = w // 4, h // 2
    for i, c in enumerate(PATCHES):
        x, y = (i % 4) * pw, (i // 4) * ph
        img[y:y + ph, x:x + pw] = c[::-1]
    return img


def centres(frame: np.ndarray) -> list:
    h, w = frame.shape[:2]
    pw, ph = w // 4, h // 2
    out = []
    for i in range(len(PATCHES)):
        x, y = (i % 4) * pw + pw // 2, (i // 4) * ph + ph // 2
        out.append(tuple(int(v) for v in frame[y - 5:y + 5, x - 5:x + 5].reshape(-1, 3).mean(0).round()[::-1]))
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="320x240")
    args = p.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    png = out / "patches.png"
    cv2.imwrite(str(png), patch_image(w, h))
    raw = out / "decoded.bgr"
    rows = []
    for name, colorimetry, encoder in CASES:
        video = out / (name + (".mp4" if "x264" in encoder else ".avi"))
        mux = "mp4mux" if "x264" in encoder else "avimux"
        run(f"gst-launch-1.0 -q multifilesrc location={png} loop=true num-buffers=5 "
            f"caps=image/png,framerate=5/1 ! pngdec ! videoconvert ! "
            f"video/x-raw,format=I420,colorimetry={colorimetry} ! {encoder} ! {mux} ! "
            f"filesink location={video}")
        caps = run(f"gst-launch-1.0 -v filesrc location={video} ! decodebin ! fakesink 2>&1 || true")
        reported = sorted(set(re.findall(r"colorimetry=\(string\)([^,\s]+)", caps))) or ["none"]
        run(f"gst-launch-1.0 -q filesrc location={video} ! decodebin ! videoconvert ! "
            f"video/x-raw,format=BGR ! filesink location={raw}")
        gst = centres(np.fromfile(raw, np.uint8)[:w * h * 3].reshape(h, w, 3))
        ok, frame = cv2.VideoCapture(str(video)).read()
        cv = centres(frame) if ok else [(0, 0, 0)] * len(PATCHES)
        err = lambda got: max(abs(a - b) for g, c in zip(got, PATCHES) for a, b in zip(g, c))
        rows.append((name, colorimetry, ",".join(reported), err(gst), err(cv), gst, cv))
    print(f"{'file':18} {'encoded as':10} {'GStreamer caps':16} {'GStreamer err':>13} {'OpenCV err':>10}")
    for name, colorimetry, reported, eg, ec, _, _ in rows:
        print(f"{name:18} {colorimetry:10} {reported:16} {eg:13d} {ec:10d}")
    for name, _, _, _, _, gst, cv in rows:
        print(f"\n{name}: known -> GStreamer / OpenCV")
        for known, g, c in zip(PATCHES, gst, cv):
            print(f"  {known} -> {g} / {c}")


if __name__ == "__main__":
    main()
