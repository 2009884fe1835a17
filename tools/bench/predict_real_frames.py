#!/usr/bin/env python3
"""Prediction on real frames with real weights, side by side with Ultralytics' own `.pt` predict
(#52): Ultralytics' official COCO yolo11n.pt on 4:3 and 16:9 frames cut from real photos, at 640.

    tools/install-deps.sh --oracle                  # Ultralytics and the test assets
    PY=/opt/yolo-edge/venv/bin/python
    $PY tools/bench/predict_real_frames.py --out runs/bench/real_frames

The frames: the eight photos of the test assets (tools/fetch-test-assets.sh), each centre-cropped
to the aspect ratio and resized to 768x576 (4:3) or 1280x720 (16:9), repeated to --frames files.
Each round runs, one after the other, as a user types them:

    yolo predict model=yolo11n.pt source=DIR save=False device=cpu          (Ultralytics: rect, FP32)
    yolo-trainer predict model=yolo11n.pt source=DIR save=False             (ours: rect, default precision)
    yolo-trainer predict model=yolo11n.pt source=DIR save=False bf16=False  (ours: rect, FP32)
    yolo-trainer predict ... bf16=False rect=False                          (ours: square, FP32)

The table gives each one's "Speed:" line per image (preprocess + inference + postprocess, what
each program reports itself) and its wall time per frame (the whole command: start-up, model
load and tracing, every frame), medians over the rounds, with the ratio to Ultralytics' run of
the same round (median and range over the rounds). The default precision is BF16 on CPUs that
compute it natively (AVX-512 BF16, AMX), else FP32; the table says which ran.
"""
import argparse
import os
import re
import statistics
import sys
from pathlib import Path

from predict_side_by_side import run_logged  # the same command runner and Speed line

# The input shape Ultralytics and ours print after the Speed line's times.
SHAPE = re.compile(r"per image at shape \(([0-9, ]+)\)")
PHOTOS = ["astronaut.png", "bus.jpg", "chelsea.png", "coffee.png", "grace_hopper.jpg",
          "motorcycle_left.png", "rocket.jpg", "zidane.jpg"]
ASPECTS = {"4:3 (768x576)": (768, 576), "16:9 (1280x720)": (1280, 720)}


def run(cmd, cwd):
    """Wall time, Speed sum, input shape and precision (ours says it; Ultralytics runs FP32)."""
    wall, speed, out = run_logged(cmd, cwd)
    shape = SHAPE.search(out)
    precision = re.search(r"inference: ([^\n]+)", out)
    return (wall, speed, shape.group(1).replace(" ", "") if shape else "?",
            precision.group(1).strip() if precision else "FP32")


def make_frames(assets, folder, size, count):
    """Real photos centre-cropped to the aspect ratio of `size` and resized to it."""
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    w, h = size
    made = sorted(folder.glob("*.jpg"))
    if len(made) == count:
        return folder
    for i in range(count):
        im = cv2.imread(str(assets / PHOTOS[i % len(PHOTOS)]))
        ih, iw = im.shape[:2]
        if iw * h > ih * w:  # too wide: crop the sides
            cw = ih * w // h
            im = im[:, (iw - cw) // 2:(iw - cw) // 2 + cw]
        else:
            ch = iw * h // w
            im = im[(ih - ch) // 2:(ih - ch) // 2 + ch]
        cv2.imwrite(str(folder / f"frame_{i:03d}.jpg"), cv2.resize(im, (w, h), interpolation=cv2.INTER_AREA))
    return folder


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="runs/bench/real_frames")
    ap.add_argument("--assets", default=os.environ.get("YOLO_TEST_ASSETS", "/opt/yolo-edge/test-assets"))
    ap.add_argument("--frames", type=int, default=48)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--trainer", default="build/bin/yolo-trainer")
    args = ap.parse_args()

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    assets = Path(args.assets)
    model = assets / "yolo11n.pt"
    if not model.exists():
        sys.exit(f"{model} is missing: tools/install-deps.sh --oracle fetches it")
    trainer = str(Path(args.trainer).resolve())
    yolo = str(Path(sys.executable).with_name("yolo"))

    base = "Ultralytics (.pt, rect, FP32)"
    rows = []
    for aspect, size in ASPECTS.items():
        source = make_frames(assets, out / f"frames_{size[0]}x{size[1]}", size, args.frames)
        common = [f"model={model}", f"source={source}", "save=False", f"imgsz={args.imgsz}"]
        cmds = {
            base: [yolo, "predict", *common, "device=cpu"],
            "ours (rect, default precision)": [trainer, "predict", *common],
            "ours (rect, FP32)": [trainer, "predict", *common, "bf16=False"],
            "ours (square, FP32)": [trainer, "predict", *common, "bf16=False", "rect=False"],
        }
        walls = {k: [] for k in cmds}
        speeds = {k: [] for k in cmds}
        shapes, precisions = {}, {}
        for _ in range(args.rounds):
            for name, cmd in cmds.items():
                wall, speed, shapes[name], precisions[name] = run(cmd, out)
                walls[name].append(wall / args.frames * 1000)
                speeds[name].append(speed)
        for name in cmds:
            sr = [a / b for a, b in zip(speeds[name], speeds[base])]
            wr = [a / b for a, b in zip(walls[name], walls[base])]
            rows.append((aspect, name, precisions[name] if name != base else "FP32", shapes[name],
                         statistics.median(speeds[name]), statistics.median(sr), min(sr), max(sr),
                         statistics.median(walls[name]), statistics.median(wr), min(wr), max(wr)))
        print(f"measured {aspect}", file=sys.stderr, flush=True)

    import torch
    import ultralytics

    table = [
        f"Prediction on {args.frames} real frames per aspect ratio at imgsz {args.imgsz}, yolo11n.pt (COCO), "
        f"CPU, {os.cpu_count()} cores; ultralytics {ultralytics.__version__}, torch {torch.__version__}; "
        f"median of {args.rounds} alternating rounds; ratios to Ultralytics' run of the same round (range)",
        "",
        "| frames | program | precision | input shape | Speed ms/image | Speed ratio (range) "
        "| wall ms/frame | wall ratio (range) |",
        "|---|---|---|---|---:|---|---:|---|",
    ]
    for aspect, name, prec, shape, speed, sr, slo, shi, wall, wr, wlo, whi in rows:
        table.append(f"| {aspect} | {name} | {prec} | ({shape}) | {speed:.1f} | {sr:.2f}x ({slo:.2f}-{shi:.2f}) "
                     f"| {wall:.1f} | {wr:.2f}x ({wlo:.2f}-{whi:.2f}) |")
    text = "\n".join(table) + "\n"
    print(text)
    (out / "real_frames.md").write_text(text)


if __name__ == "__main__":
    main()
