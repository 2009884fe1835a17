"""Decoded colours of flagged test videos: GStreamer's decode (decodebin ! videoconvert, what
`yolo-trainer predict` and a gst-launch pipeline without the `yolo` element's own conversion get)
and OpenCV's (FFmpeg, what Ultralytics gets) against the known RGB of flat patches. Dev tool for
issue #53 (docs/benchmarks.md); the product never runs Python.

    decode_colours.py --out runs/colours [--size 320x240]

Writes eight flat patches (primaries, greys, a skin tone, a dark blue) straight as I420 whose Y, U
and V are the exact conversion of the patches' RGB under the file's colorimetry (BT.601 and
BT.709, limited and full range; no videoconvert on the encoding side), encodes them as lossless
H.264 (x264enc quantizer 0: the stored YUV is exactly that) and as MPEG-4 (whose headers carry no
colour matrix: the unflagged case), decodes each both ways and compares with the exact inverse of
the stored YUV (the known RGB up to 8-bit rounding of Y, U and V). Prints, per file, the
colorimetry GStreamer's decoded caps report and each decoder's largest error over the patch
centres, then every patch. Needs gst-launch-1.0 with x264enc, avenc_mpeg4 and avdec_h264
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

X264 = "x264enc pass=quant quantizer=0 speed-preset=ultrafast"
MPEG4 = "avenc_mpeg4 bitrate=20000000"
# name, caps colorimetry of the stored YUV, matrix (Kr, Kb), full range, encoder
CASES = [
    ("h264_bt601", "bt601", (0.299, 0.114), False, X264),
    ("h264_bt709", "bt709", (0.2126, 0.0722), False, X264),
    ("h264_bt601_full", "1:4:7:1", (0.299, 0.114), True, X264),
    ("h264_bt709_full", "1:3:5:1", (0.2126, 0.0722), True, X264),
    ("mpeg4_bt601", "bt601", (0.299, 0.114), False, MPEG4),
    ("mpeg4_bt709", "bt709", (0.2126, 0.0722), False, MPEG4),
]


def rgb_to_yuv(rgb, matrix, full):
    """Exact Y'CbCr of an RGB triple (0..255), rounded to 8 bits."""
    kr, kb = matrix
    r, g, b = (v / 255.0 for v in rgb)
    y = kr * r + (1 - kr - kb) * g + kb * b
    u = (b - y) / (2 * (1 - kb))
    v = (r - y) / (2 * (1 - kr))
    q = lambda x: min(255, max(0, round(x)))  # full-range chroma of a primary reaches 255.5
    if full:
        return q(255 * y), q(128 + 255 * u), q(128 + 255 * v)
    return q(16 + 219 * y), q(128 + 224 * u), q(128 + 224 * v)


def yuv_to_rgb(yuv, matrix, full):
    """The exact inverse of rgb_to_yuv before rounding, clamped to 0..255: what a decoder that
    honours the colorimetry gives, up to its own rounding."""
    kr, kb = matrix
    y, u, v = yuv
    if full:
        y, u, v = y / 255.0, (u - 128) / 255.0, (v - 128) / 255.0
    else:
        y, u, v = (y - 16) / 219.0, (u - 128) / 224.0, (v - 128) / 224.0
    r = y + 2 * (1 - kr) * v
    b = y + 2 * (1 - kb) * u
    g = (y - kr * r - kb * b) / (1 - kr - kb)
    return tuple(int(min(255, max(0, round(255 * c)))) for c in (r, g, b))


def i420_frame(w: int, h: int, matrix, full) -> bytes:
    """The patches as one I420 frame with exact Y, U, V."""
    y = np.zeros((h, w), np.uint8)
    u = np.zeros((h // 2, w // 2), np.uint8)
    v = np.zeros((h // 2, w // 2), np.uint8)
    pw, ph = w // 4, h // 2
    for i, c in enumerate(PATCHES):
        yy, uu, vv = rgb_to_yuv(c, matrix, full)
        x0, y0 = (i % 4) * pw, (i // 4) * ph
        y[y0:y0 + ph, x0:x0 + pw] = yy
        u[y0 // 2:(y0 + ph) // 2, x0 // 2:(x0 + pw) // 2] = uu
        v[y0 // 2:(y0 + ph) // 2, x0 // 2:(x0 + pw) // 2] = vv
    return y.tobytes() + u.tobytes() + v.tobytes()


def run(cmd: str) -> str:
    return subprocess.run(cmd, shell=True, check=True, capture_output=True, text=True).stdout


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
    raw = out / "decoded.bgr"
    rows = []
    for name, colorimetry, matrix, full, encoder in CASES:
        frames = out / f"{name}.i420"
        frames.write_bytes(i420_frame(w, h, matrix, full) * 5)
        video = out / (name + (".mp4" if "x264" in encoder else ".avi"))
        mux = "mp4mux" if "x264" in encoder else "avimux"
        run(f"gst-launch-1.0 -q filesrc location={frames} ! rawvideoparse format=i420 width={w} "
            f"height={h} framerate=5/1 colorimetry={colorimetry} ! {encoder} ! {mux} ! "
            f"filesink location={video}")
        caps = run(f"gst-launch-1.0 -v filesrc location={video} ! decodebin ! fakesink 2>&1 || true")
        reported = sorted(set(re.findall(r"colorimetry=\(string\)([^,\s]+)", caps))) or ["none"]
        run(f"gst-launch-1.0 -q filesrc location={video} ! decodebin ! videoconvert ! "
            f"video/x-raw,format=BGR ! filesink location={raw}")
        gst = centres(np.fromfile(raw, np.uint8)[:w * h * 3].reshape(h, w, 3))
        ok, frame = cv2.VideoCapture(str(video)).read()
        cv = centres(frame) if ok else [(0, 0, 0)] * len(PATCHES)
        exact = [yuv_to_rgb(rgb_to_yuv(c, matrix, full), matrix, full) for c in PATCHES]
        err = lambda got: max(abs(a - b) for g, e in zip(got, exact) for a, b in zip(g, e))
        rows.append((name, colorimetry, ",".join(reported), err(gst), err(cv), gst, cv, exact))
    print(f"{'file':18} {'encoded as':10} {'GStreamer caps':16} {'GStreamer err':>13} {'OpenCV err':>10}")
    for name, colorimetry, reported, eg, ec, *_ in rows:
        print(f"{name:18} {colorimetry:10} {reported:16} {eg:13d} {ec:10d}")
    for name, _, _, _, _, gst, cv, exact in rows:
        print(f"\n{name}: exact -> GStreamer / OpenCV")
        for e, g, c in zip(exact, gst, cv):
            print(f"  {e} -> {g} / {c}")


if __name__ == "__main__":
    main()
