"""Ultralytics and yolo-trainer trained on the same images with the same arguments, side by side.

Dev/benchmark tool (the product never needs Python). Writes a synthetic set once with
`yolo-trainer synth` (both tools read the same folder), trains Ultralytics' YOLO and yolo-trainer
on it from scratch with the same arguments, one after the other on the same machine, and prints
both results.csv per epoch and the final metrics and wall times as one table.

    python tools/parity/side_by_side.py [--out DIR] [--synth "images=64 nc=3 imgsz=320"] \
        [key=value ...]                       (train arguments; defaults: the training benchmark)

Defaults: model=yolov8n.yaml epochs=60 batch=16 imgsz=320 seed=0 device=cpu workers=2
plots=False (Ultralytics would fetch a font for its plots; this machine reaches PyPI only).
"""

import argparse
import csv
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULTS = {"model": "yolov8n.yaml", "epochs": "60", "batch": "16", "imgsz": "320", "seed": "0",
            "device": "cpu", "workers": "2", "plots": "False"}


def read_results(path: Path) -> list[dict]:
    with open(path) as f:
        return [{k.strip(): v.strip() for k, v in row.items()} for row in csv.DictReader(f)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "runs/parity/side_by_side"))
    ap.add_argument("--synth", default="images=64 nc=3 imgsz=320 seed=0")
    ap.add_argument("--trainer", default=str(ROOT / "build/bin/yolo-trainer"))
    ap.add_argument("args", nargs="*", help="train arguments key=value")
    a = ap.parse_args()
    out = Path(a.out).resolve()
    args = dict(DEFAULTS)
    args.update(kv.split("=", 1) for kv in a.args)

    data = out / "data"
    if not (data / "data.yaml").exists():
        subprocess.run([a.trainer, "synth", f"dir={data}", *a.synth.split()], check=True)

    runs = {}
    t0 = time.time()
    subprocess.run([a.trainer, "train", f"data={data / 'data.yaml'}", f"project={out}", "name=ours",
                    "exist_ok=True", *[f"{k}={v}" for k, v in args.items()]], check=True)
    runs["yolo-trainer"] = (time.time() - t0, out / "ours/results.csv")

    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO

    typed = {k: (v == "True" if v in ("True", "False") else int(v) if v.isdigit() else v)
             for k, v in args.items() if k != "model"}
    t0 = time.time()
    YOLO(args["model"]).train(data=str(data / "data.yaml"), project=str(out), name="ultralytics",
                              exist_ok=True, pretrained=False, **typed)
    runs["Ultralytics"] = (time.time() - t0, out / "ultralytics/results.csv")

    tables = {name: read_results(path) for name, (_, path) in runs.items()}
    keys = ["train/box_loss", "train/cls_loss", "train/dfl_loss", "metrics/mAP50(B)", "metrics/mAP50-95(B)"]
    short = ["box", "cls", "dfl", "mAP50", "mAP50-95"]
    names = list(tables)
    print(f"\nSame images ({data}), same arguments ({' '.join(f'{k}={v}' for k, v in args.items())})\n")
    head = "| epoch | " + " | ".join(f"{n} {s}" for s in short for n in names) + " |"
    print(head)
    print("|" + "---|" * (1 + len(short) * len(names)))
    for e in range(max(len(t) for t in tables.values())):
        cells = []
        for k in keys:
            for n in names:
                rows = tables[n]
                cells.append(f"{float(rows[e][k]):.4f}" if e < len(rows) else "")
        print(f"| {e + 1} | " + " | ".join(cells) + " |")
    print("\n| tool | wall s | final mAP50 | final mAP50-95 |\n|---|---|---|---|")
    for n in names:
        last = tables[n][-1]
        print(f"| {n} | {runs[n][0]:.0f} | {float(last['metrics/mAP50(B)']):.4f} | "
              f"{float(last['metrics/mAP50-95(B)']):.4f} |")


if __name__ == "__main__":
    sys.exit(main())
