"""Ultralytics' training augmentation with every random draw recorded (dev/test only).

The statistics test (ultralytics_augment_stats.py) compares distributions because the two tools'
RNGs differ. This one removes the RNG from the comparison: it runs Ultralytics' own training
transforms (v8_transforms: mosaic, random perspective, mixup/cutmix, HSV, flips; not Format) on
images of DATA.yaml's training split while recording what each transform drew, and writes, per
case, the augmented image (OUT/case_K.png, BGR as Ultralytics holds it), the image before its
colour and flips (OUT/case_K_geometry.png: mosaic and random perspective only) and one JSON line:

    {"image": file, "mosaic": bool, "tiles": [file x 4], "xc": int, "yc": int,
     "perspective": [px, py, degrees, scale, shear_x, shear_y, translate_x, translate_y],
     "hsv": [h, s, v] (gains, already multiplied) or null, "flipud": bool, "fliplr": bool,
     "boxes": [[cls, x1, y1, x2, y2] in output pixels], "size": [w, h] of the output}

tests/parity/test_augment_replay_parity.cpp applies our transforms with the same draws to the
same images and compares the boxes and pixels.

    python ultralytics_augment_replay.py DATA.yaml IMGSZ CASES SEED OUT [key=value ...]

Prints one JSON list (the cases) on its last line.
"""

import json
import os
import random
import sys
from pathlib import Path


class RecordingRandom:
    """Python's random module as Ultralytics' augment.py calls it, logging every draw."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.log: list = []

    def uniform(self, a, b):
        v = self.rng.uniform(a, b)
        self.log.append(("uniform", a, b, v))
        return v

    def random(self):
        v = self.rng.random()
        self.log.append(("random", v))
        return v

    def choices(self, population, k=1):
        v = self.rng.choices(population, k=k)
        self.log.append(("choices", v))
        return v

    def randint(self, a, b):
        v = self.rng.randint(a, b)
        self.log.append(("randint", a, b, v))
        return v

    def __getattr__(self, name):  # anything else Ultralytics might call, unrecorded
        return getattr(self.rng, name)


def main() -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    import cv2
    import numpy as np
    from ultralytics.cfg import get_cfg
    from ultralytics.data import augment, build_yolo_dataset
    from ultralytics.data.utils import check_det_dataset
    from ultralytics.utils import DEFAULT_CFG

    yaml, imgsz, cases, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    out_dir = Path(sys.argv[5])
    out_dir.mkdir(parents=True, exist_ok=True)
    overrides = {k: (v == "True") if v in ("True", "False") else float(v)
                 for k, v in (kv.split("=", 1) for kv in sys.argv[6:])}
    cfg = get_cfg(DEFAULT_CFG, {"imgsz": imgsz, "task": "detect", **overrides})
    data = check_det_dataset(yaml, autodownload=False)
    ds = build_yolo_dataset(cfg, data["train"], batch=int(overrides.get("batch", 16)), data=data,
                            mode="train", rect=cfg.rect)
    if cfg.mosaic == 0:
        ds.close_mosaic(cfg)
    steps = [t for t in ds.transforms.transforms if type(t).__name__ != "Format"]

    rec = RecordingRandom(seed)
    augment.random = rec
    np_rng = np.random.default_rng(seed)
    hsv_draws: list = []

    def recording_np_uniform(low=0.0, high=1.0, size=None):
        v = np_rng.uniform(low, high, size)
        hsv_draws.append(np.asarray(v, dtype=np.float64).copy())
        return v

    np.random.uniform = recording_np_uniform  # RandomHSV's only draw

    mosaic_layouts: list = []
    perspectives: list = []
    geometry: list = []

    def hook(m) -> None:
        """Records what a Mosaic or RandomPerspective drew, wrapping the method that draws it."""
        name = type(m).__name__
        if name == "Mosaic":
            original = m.get_params

            def get_params(labels, _original=original):
                p = _original(labels)
                mosaic_layouts.append(p["layout"])
                return p

            m.get_params = get_params
        elif name == "RandomHSV":  # its input: the geometry's output, compared on its own
            original = m.apply_image

            def apply_image(labels, params=None, _original=original):
                geometry.append(labels["img"].copy())
                return _original(labels, params)

            m.apply_image = apply_image
        elif name == "RandomPerspective":
            original = m._compute_affine_matrix

            def compute(img, size, _original=original):
                start = len(rec.log)
                result = _original(img, size)
                perspectives.append([e[3] for e in rec.log[start:] if e[0] == "uniform"])
                return result

            m._compute_affine_matrix = compute

    for t in steps:
        for m in (t.transforms if hasattr(t, "transforms") else [t]):
            hook(m)

    results = []
    for k in range(cases):
        index = k % len(ds)
        rec.log.clear()
        hsv_draws.clear()
        mosaic_layouts.clear()
        perspectives.clear()
        geometry.clear()
        labels = ds.get_image_and_label(index)
        first = labels["im_file"]
        for t in steps:
            labels = t(labels)
        assert len(perspectives) == 1 and len(mosaic_layouts) <= 1, "mixup/cutmix must be off"
        flips = [e[1] for e in rec.log if e[0] == "random"][-2:]  # vertical, then horizontal
        inst = labels["instances"]
        inst.convert_bbox(format="xyxy")
        assert not inst.normalized, "boxes should be in pixels before Format"
        boxes = [[int(c), *map(float, b)] for c, b in zip(labels["cls"].reshape(-1), inst.bboxes)]
        case = {"image": first, "mosaic": bool(mosaic_layouts), "perspective": perspectives[0],
                "hsv": (hsv_draws[0] * [cfg.hsv_h, cfg.hsv_s, cfg.hsv_v]).tolist() if hsv_draws
                else None,
                "flipud": flips[0] < cfg.flipud, "fliplr": flips[1] < cfg.fliplr, "boxes": boxes,
                "size": [int(labels["img"].shape[1]), int(labels["img"].shape[0])]}
        if mosaic_layouts:
            layout = mosaic_layouts[0]
            case["tiles"] = [item["labels_patch"]["im_file"] for item in layout]
            case["xc"], case["yc"] = int(layout[0]["x2a"]), int(layout[0]["y2a"])
        cv2.imwrite(str(out_dir / f"case_{k}.png"), np.ascontiguousarray(labels["img"]))
        cv2.imwrite(str(out_dir / f"case_{k}_geometry.png"), geometry[0])
        results.append(case)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
