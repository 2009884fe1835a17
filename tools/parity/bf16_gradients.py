"""Per-layer gradient agreement between BF16 autocast and FP32 on a trained checkpoint.

Dev tool (issue #34): where does BF16 training move the gradients? Loads an Ultralytics
checkpoint (a side_by_side.py run's last.pt), takes batches of 16 training images of the set
(resized square, no augmentation), and for each batch computes the loss and its gradients three
ways: FP32; the forward pass under CPU BF16 autocast; the same with the Detect head kept in FP32.
As yolo-trainer does, the loss itself runs in FP32 on the head's outputs. Prints, per top-level
layer, ||g - g_fp32|| / ||g_fp32|| summed over the batches, and the loss items of each way.

    python tools/parity/bf16_gradients.py RUN/weights/last.pt DATASET_DIR [--batches 4] [--imgsz 320]
"""

import argparse
import contextlib
import glob
import os

import numpy as np

os.environ.setdefault("YOLO_OFFLINE", "1")
import cv2  # noqa: E402
import torch  # noqa: E402
from ultralytics import YOLO  # noqa: E402
from ultralytics.cfg import get_cfg  # noqa: E402


def load_batch(paths: list, size: int) -> dict:
    ims, batch_idx, cls, boxes = [], [], [], []
    for k, p in enumerate(paths):
        im = cv2.resize(cv2.imread(p), (size, size))[:, :, ::-1]
        ims.append(torch.from_numpy(im.copy()).permute(2, 0, 1).float() / 255)
        label = p.replace("/images/", "/labels/").rsplit(".", 1)[0] + ".txt"
        for line in open(label):
            v = [float(x) for x in line.split()]
            batch_idx.append(k)
            cls.append([v[0]])
            boxes.append(v[1:5])  # normalised xywh, as Ultralytics' batches hold them
    return {"img": torch.stack(ims), "batch_idx": torch.tensor(batch_idx),
            "cls": torch.tensor(cls), "bboxes": torch.tensor(boxes)}


def to_float(x):
    if isinstance(x, torch.Tensor):
        return x.float()
    if isinstance(x, dict):
        return {k: to_float(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(to_float(v) for v in x)
    return x


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights")
    ap.add_argument("data", help="dataset folder with images/train and labels/train")
    ap.add_argument("--batches", type=int, default=4)
    ap.add_argument("--imgsz", type=int, default=320)
    a = ap.parse_args()
    torch.set_num_threads(os.cpu_count() or 1)

    model = YOLO(a.weights).model.float()
    model.args = get_cfg()  # the loss reads its gains from here
    for name, p in model.named_parameters():
        p.requires_grad_(".dfl" not in name)  # DFL's integral weights stay frozen
    model.train()
    head = model.model[-1]
    head_forward = head.forward

    def head_in_fp32(x):
        with torch.autocast("cpu", enabled=False):
            return head_forward([t.float() for t in x])

    def gradients(way: str, batch: dict):
        model.zero_grad(set_to_none=True)
        head.forward = head_in_fp32 if way == "BF16, head FP32" else head_forward
        cast = (contextlib.nullcontext() if way == "FP32"
                else torch.autocast("cpu", dtype=torch.bfloat16))
        with cast:
            preds = model(batch["img"].contiguous(memory_format=torch.channels_last))
        loss, items = model.loss(batch, to_float(preds))
        loss.sum().backward()
        return ({n: p.grad.detach().clone() for n, p in model.named_parameters()
                 if p.grad is not None}, items)

    def layer(name: str) -> str:
        i = int(name.split(".")[1])
        return f"{i:02d} {type(model.model[i]).__name__}"

    images = sorted(glob.glob(os.path.join(a.data, "images", "train", "*")))
    ways = ("BF16", "BF16, head FP32")
    err: dict = {}
    for b in range(a.batches):
        batch = load_batch(images[16 * b:16 * (b + 1)], a.imgsz)
        state = {k: v.clone() for k, v in model.state_dict().items()}  # BN running stats
        ref, items = gradients("FP32", batch)
        model.load_state_dict(state)
        print(f"batch {b}: FP32 loss {items}")
        for way in ways:
            g, items = gradients(way, batch)
            model.load_state_dict(state)
            print(f"batch {b}: {way} loss {items}")
            for n, r in ref.items():
                e = err.setdefault((layer(n), way), [0.0, 0.0])
                e[0] += (g[n] - r).pow(2).sum().item()
                e[1] += r.pow(2).sum().item()
    print(f"\n| layer | {' | '.join(ways)} |\n|---|" + "---:|" * len(ways))
    for name in sorted({k[0] for k in err}):
        cells = [f"{np.sqrt(err[(name, w)][0] / err[(name, w)][1]):.3f}" for w in ways]
        print(f"| {name} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
