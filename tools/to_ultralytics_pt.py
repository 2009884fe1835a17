"""Saves the weights of a yolo-trainer checkpoint as an Ultralytics .pt, for a user who takes a
model from yolo-edge into Ultralytics (Python) to train it further there.

    python tools/to_ultralytics_pt.py runs/detect/train/weights/best.pt best_ultralytics.pt

Needs Ultralytics and PyTorch (pip install ultralytics); yolo-edge itself never runs this.
Ultralytics' DetectionModel is built from the architecture our checkpoint carries
(yolo/model.json), our weights are loaded into it by name (strictly: every tensor must fit), the
class names and training size come from the checkpoint's metadata, and the file is finalised by
Ultralytics' own strip_optimizer, as at the end of its runs. For val and predict Ultralytics
needs none of this: it reads our checkpoint as TorchScript (rename it to .torchscript).
"""

import io
import json
import sys
from datetime import datetime


def to_ultralytics_pt(ours: str, out: str) -> None:
    import torch
    import yaml
    from ultralytics import __version__
    from ultralytics.nn.tasks import DetectionModel
    from ultralytics.utils.torch_utils import strip_optimizer

    extra = {"yolo/weights.pkl": "", "yolo/model.json": "", "config.txt": ""}
    torch.jit.load(ours, map_location="cpu", _extra_files=extra)
    if not extra["yolo/weights.pkl"] or not extra["yolo/model.json"]:
        sys.exit(f"{ours}: not a yolo-trainer training checkpoint (no yolo/weights.pkl); "
                 "exports leave the unfused weights out: use runs/.../weights/best.pt")
    arch = json.loads(extra["yolo/model.json"])
    meta = json.loads(extra["config.txt"])
    cfg = yaml.safe_load(arch["yaml"])
    cfg.update(nc=arch["nc"], scale=arch["scale"], yaml_file=arch["name"] + ".yaml")
    model = DetectionModel(cfg, nc=arch["nc"], verbose=False)
    # Our weights file is a pickled dict name -> tensor, written by LibTorch's pickler.
    weights = torch.load(io.BytesIO(extra["yolo/weights.pkl"]), weights_only=False)
    model.load_state_dict(weights, strict=True)
    model.names = {int(k): v for k, v in meta["names"].items()}
    imgsz = meta["imgsz"][0]
    model.args = {"imgsz": imgsz, "task": "detect"}
    torch.save({"model": model, "ema": None, "train_args": {"task": "detect", "imgsz": imgsz},
                "date": datetime.now().isoformat(), "version": __version__}, out)
    strip_optimizer(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    to_ultralytics_pt(sys.argv[1], sys.argv[2])
    print(json.dumps({"out": sys.argv[2]}))
