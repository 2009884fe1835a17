"""Where each training box sits against the pixels it labels, for our loader and Ultralytics' (dev only).

The augmentation statistics compare distributions (boxes per image, sizes, colours); they cannot
see a box that is consistently shifted or grown against its object by a pixel. This measures it:
a set of black images, each with one white axis-aligned rectangle whose label is exact, goes
through a loader's training pipeline (mosaic, scale/translate, flips, HSV); for every box in the
output, the rectangle's edges are found in the pixels (midpoint threshold between the local
darkest and brightest pixel around the box) and compared with the label's edges.

    python box_alignment.py make DIR                # writes DIR/data.yaml and its images
    python box_alignment.py ours BATCHES_DIR        # batches from parity_dump_loader_batches
    python box_alignment.py ultralytics DIR/data.yaml IMGSZ [epochs]

Prints the median and mean edge offsets in output pixels (left, top, right, bottom; positive is
right/down) and of the box centre and size.
"""

import json
import os
import sys
from pathlib import Path

import numpy as np


def make(folder: Path, images: int = 48, seed: int = 0) -> None:
    import cv2

    rng = np.random.default_rng(seed)
    for split in ("train", "val"):
        (folder / "images" / split).mkdir(parents=True, exist_ok=True)
        (folder / "labels" / split).mkdir(parents=True, exist_ok=True)
        for i in range(images if split == "train" else 4):
            h, w = int(rng.integers(160, 320)), int(rng.integers(160, 320))
            img = np.zeros((h, w, 3), np.uint8)
            bw, bh = int(rng.integers(w // 5, w // 2)), int(rng.integers(h // 5, h // 2))
            x1, y1 = int(rng.integers(12, w - bw - 12)), int(rng.integers(12, h - bh - 12))
            img[y1:y1 + bh, x1:x1 + bw] = 255  # pixels x1..x1+bw-1: edges at x1 and x1+bw
            cv2.imwrite(str(folder / "images" / split / f"{i:03d}.png"), img)
            (folder / "labels" / split / f"{i:03d}.txt").write_text(
                f"0 {(x1 + bw / 2) / w:.8f} {(y1 + bh / 2) / h:.8f} {bw / w:.8f} {bh / h:.8f}\n")
    (folder / "data.yaml").write_text(f"path: {folder.resolve()}\ntrain: images/train\nval: images/val\n"
                                      "names:\n  0: rectangle\n")


def offsets(img: np.ndarray, boxes: np.ndarray) -> list:
    """img (3, H, W) uint8; boxes (N, 4) normalised xywh -> per box (left, top, right, bottom) offsets."""
    grey = img.astype(np.float64).mean(0)
    h, w = grey.shape
    out = []
    for cx, cy, bw, bh in boxes:
        x1, x2 = (cx - bw / 2) * w, (cx + bw / 2) * w
        y1, y2 = (cy - bh / 2) * h, (cy + bh / 2) * h
        if x1 < 6 or y1 < 6 or x2 > w - 6 or y2 > h - 6 or x2 - x1 < 12 or y2 - y1 < 12:
            continue  # near the border (clipped) or too small to measure
        r = grey[int(y1) - 5:int(np.ceil(y2)) + 5, int(x1) - 5:int(np.ceil(x2)) + 5]
        lo, hi = r.min(), r.max()
        if hi - lo < 60:
            continue
        mask = r > (lo + hi) / 2
        ys, xs = np.nonzero(mask)
        px1, px2 = xs.min() + int(x1) - 5, xs.max() + 1 + int(x1) - 5
        py1, py2 = ys.min() + int(y1) - 5, ys.max() + 1 + int(y1) - 5
        out.append([px1 - x1, py1 - y1, px2 - x2, py2 - y2])
    return out


def report(name: str, rows: list) -> None:
    a = np.array(rows)
    centre = np.stack([(a[:, 0] + a[:, 2]) / 2, (a[:, 1] + a[:, 3]) / 2], 1)
    size = np.stack([a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]], 1)
    print(json.dumps({
        "loader": name, "boxes": len(a),
        "median_ltrb": np.median(a, 0).round(3).tolist(), "mean_ltrb": a.mean(0).round(3).tolist(),
        "mean_centre_xy": centre.mean(0).round(3).tolist(), "mean_size_wh": size.mean(0).round(3).tolist(),
    }))


def ours(folder: Path) -> None:
    import torch

    rows = []
    for f in sorted(folder.glob("e*_b*.pt")):
        b = torch.load(f, weights_only=False)
        imgs, t = b["images"].numpy(), b["targets"].numpy()
        for k in range(imgs.shape[0]):
            rows += offsets(imgs[k], t[t[:, 0] == k][:, 2:6])
    report("yolo-trainer", rows)


def ultralytics(yaml: str, imgsz: int, epochs: int) -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics.cfg import get_cfg
    from ultralytics.data import build_yolo_dataset
    from ultralytics.data.utils import check_det_dataset
    from ultralytics.utils import DEFAULT_CFG

    cfg = get_cfg(DEFAULT_CFG, {"imgsz": imgsz, "task": "detect"})
    data = check_det_dataset(yaml, autodownload=False)
    ds = build_yolo_dataset(cfg, data["train"], batch=16, data=data, mode="train")
    rows = []
    for _ in range(epochs):
        for i in range(len(ds)):
            s = ds[i]
            rows += offsets(s["img"].numpy(), s["bboxes"].numpy().reshape(-1, 4))
    report("Ultralytics", rows)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(Path(sys.argv[2]))
    elif sys.argv[1] == "ours":
        ours(Path(sys.argv[2]))
    else:
        ultralytics(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 4)
