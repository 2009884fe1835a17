"""Ultralytics' training augmentation over a dataset, summarised per image (dev/test only).

Builds Ultralytics' own training dataset (build_yolo_dataset, mode="train": mosaic, random
perspective, mixup/cutmix, HSV, flips, Format) from its default recipe plus KEY=VALUE overrides,
draws every image of the training split once per epoch in a shuffled order (as its sampler
does), and prints one JSON list with, per augmented image: the number of boxes, the normalised
(w, h) of each, the per-channel mean of the RGB pixels in [0, 1], their standard deviation and
the share of grey pixels (R == G == B: the 114 border and mosaic fill, whatever HSV did to it).
tests/parity/test_augmentation_parity.cpp computes the same from our DataLoader's batches and
compares the summary statistics.

    python ultralytics_augment_stats.py DATA.yaml IMGSZ EPOCHS SEED [key=value ...]
"""

import json
import os
import random
import sys


def main() -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    import numpy as np
    import torch
    from ultralytics.cfg import get_cfg
    from ultralytics.data import build_yolo_dataset
    from ultralytics.data.utils import check_det_dataset
    from ultralytics.utils import DEFAULT_CFG

    yaml, imgsz, epochs, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    overrides = {}
    for kv in sys.argv[5:]:
        k, v = kv.split("=", 1)
        overrides[k] = float(v)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    cfg = get_cfg(DEFAULT_CFG, {"imgsz": imgsz, "task": "detect", **overrides})
    data = check_det_dataset(yaml, autodownload=False)
    ds = build_yolo_dataset(cfg, data["train"], batch=16, data=data, mode="train")
    if cfg.mosaic == 0:
        ds.close_mosaic(cfg)  # what the trainer does at close_mosaic (also turns mixup/cutmix off)

    out = []
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for i in torch.randperm(len(ds), generator=gen).tolist():
            s = ds[i]
            img = s["img"].numpy()  # (3, H, W) uint8, RGB (Format reverses Ultralytics' BGR)
            grey = np.logical_and(img[0] == img[1], img[1] == img[2]).mean()
            f = img.astype(np.float64) / 255.0
            boxes = s["bboxes"].numpy().reshape(-1, 4)  # normalised xywh
            out.append({"n": len(boxes), "wh": boxes[:, 2:4].astype(float).round(6).tolist(),
                        "mean": f.reshape(3, -1).mean(1).round(6).tolist(),
                        "std": round(float(f.std()), 6), "grey": round(float(grey), 6),
                        "size": [int(img.shape[1]), int(img.shape[2])]})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
