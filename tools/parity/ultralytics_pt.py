"""Ultralytics writing and reading its own .pt checkpoints, as the oracle for our reader of them
(dev/test only).

    python ultralytics_pt.py train ARCH DATA.yaml IMGSZ EPOCHS OUT_DIR [SEED]
        trains ARCH (yolov8n, yolo11n, yolo26n: from its YAML, no download) and prints
        {"best": path, "last": path, "resumable": path}: best.pt and last.pt as a run leaves
        them (FP16, the model under "model", optimizer stripped), and a copy of last.pt taken
        during training, before the run stripped it (the model under "ema", with optimizer state)
    python ultralytics_pt.py finetune MODEL.pt DATA.yaml IMGSZ EPOCHS OUT_DIR SEED
        Ultralytics' training from a .pt (its weights, the dataset's classes) with its default
        recipe; prints {"map50": x, "map": y} of the best epoch on the dataset's val split
    python ultralytics_pt.py predict MODEL.pt SOURCE_DIR IMGSZ CONF [RECT]
        prints {"images": {stem: [[cx, cy, w, h, conf, cls], ...]}}, boxes normalised to the
        source image (as save_txt writes them). RECT (default 0) is Ultralytics' `rect`: its
        predict letterboxes a .pt to the smallest stride multiple (rect=True, its default for
        .pt files), and a TorchScript file to the square imgsz, which is what yolo-edge runs
        every model at; 0 compares like with like
    python ultralytics_pt.py forward MODEL.pt IMGSZ OUT.pt
        the fused FP32 network as Ultralytics' predict builds it from the file, on a seeded
        random batch of 2: saves {"input": x, "output": y} with torch.save, where y is the
        one-to-many head's decoded output (B, 4 + nc, anchors) in input pixels; prints {"ok": 1}
    python ultralytics_pt.py float32 IN.pt OUT.pt
        the same checkpoint with its model in FP32 (Ultralytics saves FP16; a user's own
        torch.save may not); prints {"out": OUT.pt}
    python ultralytics_pt.py wrap OURS.pt OUT.pt
        tools/to_ultralytics_pt.py (our checkpoint's weights as an Ultralytics .pt, written by
        Ultralytics' own code); prints {"out": OUT.pt}

JSON on the last line; Ultralytics logs before it.
"""

import json
import os
import sys
from pathlib import Path


def train(arch: str, data: str, imgsz: int, epochs: int, out: str, seed: int) -> None:
    import shutil

    from ultralytics import YOLO

    w = Path(out) / arch / "weights"
    model = YOLO(arch + ".yaml")
    model.add_callback("on_model_save",
                       lambda trainer: shutil.copyfile(trainer.last, w / "last_resumable.pt"))
    model.train(data=data, epochs=epochs, imgsz=imgsz, batch=8, device="cpu",
                               workers=0, plots=False, project=out, name=arch, exist_ok=True,
                               amp=False, seed=seed, deterministic=True, verbose=False,
                               pretrained=False)
    print(json.dumps({"best": str(w / "best.pt"), "last": str(w / "last.pt"),
                      "resumable": str(w / "last_resumable.pt")}))


def finetune(model: str, data: str, imgsz: int, epochs: int, out: str, seed: int) -> None:
    from ultralytics import YOLO

    m = YOLO(model)
    m.train(data=data, epochs=epochs, imgsz=imgsz, batch=16, device="cpu", workers=0,
            plots=False, project=out, name=f"finetune_{seed}", exist_ok=True, amp=False,
            seed=seed, deterministic=True, verbose=False)
    metrics = m.trainer.validator.metrics
    print(json.dumps({"map50": float(metrics.box.map50), "map": float(metrics.box.map)}))


def predict(model: str, source: str, imgsz: int, conf: float, rect: bool) -> None:
    from ultralytics import YOLO

    m = YOLO(model)
    out = {}
    for r in m.predict(source=source, imgsz=imgsz, conf=conf, device="cpu", verbose=False,
                       stream=True, rect=rect):
        rows = []
        for xywh, c, k in zip(r.boxes.xywhn.tolist(), r.boxes.conf.tolist(), r.boxes.cls.tolist()):
            rows.append([*xywh, c, int(k)])
        out[Path(r.path).stem] = rows
    print(json.dumps({"images": out}))


def forward(model: str, imgsz: int, out: str) -> None:
    import torch
    from ultralytics.nn.autobackend import AutoBackend

    net = AutoBackend(model, device=torch.device("cpu"), fp16=False, fuse=True).model.float().eval()
    x = torch.rand(2, 3, imgsz, imgsz, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        _, preds = net(x)
    head = net.model[-1]
    y = head._inference(preds["one2many"] if "one2many" in preds else preds)
    torch.save({"input": x, "output": y.contiguous()}, out)
    print(json.dumps({"ok": 1}))


def float32(src: str, out: str) -> None:
    import torch

    ckpt = torch.load(src, map_location="cpu", weights_only=False)
    ckpt["model"] = ckpt["model"].float()
    torch.save(ckpt, out)
    print(json.dumps({"out": out}))


def wrap(ours: str, out: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from to_ultralytics_pt import to_ultralytics_pt

    to_ultralytics_pt(ours, out)
    print(json.dumps({"out": out}))


def main() -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "train":
        train(args[0], args[1], int(args[2]), int(args[3]), args[4],
              int(args[5]) if len(args) > 5 else 0)
    elif mode == "finetune":
        finetune(args[0], args[1], int(args[2]), int(args[3]), args[4], int(args[5]))
    elif mode == "predict":
        predict(args[0], args[1], int(args[2]), float(args[3]),
                len(args) > 4 and args[4] not in ("0", "False", "false"))
    elif mode == "forward":
        forward(args[0], int(args[1]), args[2])
    elif mode == "float32":
        float32(args[0], args[1])
    elif mode == "wrap":
        wrap(args[0], args[1])
    else:
        sys.exit(f"unknown mode {mode!r}: train, predict, forward or wrap")


if __name__ == "__main__":
    main()
