"""Ultralytics as the oracle for the loss and its gradients (dev/test only).

Reads a case written by tests/parity/test_gradient_parity.cpp (torch::pickle_save of a dict: the
architecture YAML name, nc, epochs, every parameter and buffer of our model by Ultralytics' own
state-dict names, a batch of images and its targets), builds the same architecture in
Ultralytics, loads those weights, computes Ultralytics' training loss on the batch (under CPU
autocast when the case names a dtype in "autocast") and writes the loss, its terms and every
parameter's gradient with torch.save; with "variants" (more batches of images), the same for
each of them under "variants".

    python ultralytics_gradients.py CASE.pt OUT.pt
"""

import os
import sys

import torch


def main() -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics.cfg import get_cfg
    from ultralytics.nn.tasks import DetectionModel
    from ultralytics.utils import DEFAULT_CFG

    case = torch.load(sys.argv[1], weights_only=False)  # the test's own file
    model = DetectionModel(case["yaml"], nc=int(case["nc"]), verbose=False)
    missing, unexpected = model.load_state_dict(case["state"], strict=False)
    if missing or unexpected:
        sys.exit(f"state dict mismatch: missing {missing[:5]}, unexpected {unexpected[:5]}")
    model.args = get_cfg(DEFAULT_CFG, {"epochs": int(case["epochs"])})
    model.train()
    if int(case.get("updates", 0)) and hasattr(model.init_criterion(), "update"):
        model.criterion = model.init_criterion()  # YOLO26's E2ELoss, some epochs into its weighting
        for _ in range(int(case["updates"])):
            model.criterion.update()
    targets = case["targets"]
    dtype = {"float16": torch.float16, "bfloat16": torch.bfloat16}.get(case.get("autocast", ""))

    def run(images):
        """The loss, its terms and every gradient on one batch of images."""
        model.zero_grad(set_to_none=True)
        batch = {
            "img": images,
            "batch_idx": targets[:, 0],
            "cls": targets[:, 1:2],
            "bboxes": targets[:, 2:6],
        }
        # The forward pass and the loss under autocast when the case asks for it, as
        # Ultralytics' trainer runs its step (backward outside it).
        with torch.autocast("cpu", dtype=dtype or torch.float16, enabled=dtype is not None):
            loss, items = model.loss(batch)
            total = loss.sum()
        total.backward()
        grads = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
        return {
            "total": total.detach(),
            "items": torch.stack([v.detach().float() for v in items.values()]),
            "grads": grads,
        }

    out = run(case["images"])
    # Variants of the batch (the same images with a little noise): the spread of reduced
    # precision's error from one rounding pattern to the next, measured on this CPU.
    if "variants" in case:
        out["variants"] = [run(images) for images in case["variants"]]
    torch.save(out, sys.argv[2])


if __name__ == "__main__":
    main()
