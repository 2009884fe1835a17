"""Ultralytics' trainer on stored batches: the data/loop split of the parity harness (dev only).

Trains Ultralytics' YOLO exactly as `yolo train` does, except that the training batches come
from files instead of its own loader:

    python ultralytics_replay_train.py --batches DIR model=yolo26n.yaml data=DATA.yaml \
        project=P name=N epochs=60 batch=16 imgsz=192 seed=0 [--threads 2] [key=value ...]

DIR holds e<E>_b<I>.pt files as tools/parity/dump_loader_batches.cpp writes them (our loader's
batches): {"images": uint8 (B, 3, H, W) RGB, "targets": (N, 6) image, class, cx, cy, w, h}.
Validation still uses Ultralytics' own loader. With --record instead of --batches, Ultralytics
trains on its own loader and its batches are written to DIR in the same format, so our trainer
can be given Ultralytics' batches the same way.

If Ultralytics reaches its usual accuracy on our batches, our data pipeline is not the cause of a
gap and the training loop or model is; if it drops to ours, the data is.

--record-only stores Ultralytics' batches for every epoch (mosaic closed for the last
close_mosaic epochs, as in training) without training on them: seconds instead of a run.
--double trains in float64 (model, batches, and the loss's own tensors through torch's default
dtype), so that a step-by-step comparison with parity_replay_train --double is not drowned by
float32 rounding growing through the chaotic first steps (tests/parity/test_loop_parity.cpp).
"""

import argparse
import os
from pathlib import Path

import torch

from side_by_side import typed  # key=value text -> bool/int/float/str, as for its runs


class StoredBatches:
    """Stands in for the training DataLoader: same length, same attributes, stored batches."""

    def __init__(self, loader, trainer, folder: Path, record: bool):
        self.loader, self.trainer, self.folder, self.record = loader, trainer, folder, record
        self.last_ni = -1  # global index of the batch handed out last

    def __getattr__(self, name):  # sampler, batch_size, dataset, num_workers, reset, ...
        return getattr(self.loader, name)

    def __len__(self):
        return len(self.loader)

    def __iter__(self):
        epoch = self.trainer.epoch
        if self.record:
            for i, batch in enumerate(self.loader):
                self.last_ni = i + epoch * len(self.loader)
                targets = torch.cat([batch["batch_idx"].view(-1, 1), batch["cls"].view(-1, 1), batch["bboxes"]], 1)
                torch.save({"images": batch["img"].contiguous(), "targets": targets.float()},
                           self.folder / f"e{epoch}_b{i}.pt")
                yield batch
            return
        for i in range(len(self.loader)):
            self.last_ni = i + epoch * len(self.loader)
            stored = torch.load(self.folder / f"e{epoch}_b{i}.pt", weights_only=False)
            t = stored["targets"]
            n = stored["images"].shape[0]
            yield {
                "img": stored["images"],
                "batch_idx": t[:, 0],
                "cls": t[:, 1:2],
                "bboxes": t[:, 2:6],
                "im_file": [f"stored_{epoch}_{i}_{k}" for k in range(n)],
                "ori_shape": [tuple(stored["images"].shape[2:])] * n,
                "resized_shape": [tuple(stored["images"].shape[2:])] * n,
            }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--batches", type=Path, help="train on the batches stored in this folder")
    src.add_argument("--record", type=Path, help="train on Ultralytics' loader and store its batches here")
    ap.add_argument("--record-only", action="store_true",
                    help="with --record: store the batches of every epoch without training on them")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--init", type=Path, help="start from this state dict (name -> tensor)")
    ap.add_argument("--init-out", type=Path, help="write the initial state dict here")
    ap.add_argument("--dump", type=Path, help="write model and EMA state after the first optimiser steps")
    ap.add_argument("--dump-steps", type=int, default=8)
    ap.add_argument("--dump-every", type=int, default=1, help="dump every N-th optimiser step (1, 1+N, ...)")
    ap.add_argument("--stop-after-dump", action="store_true", help="exit once --dump-steps are written")
    ap.add_argument("--double", action="store_true", help="train in float64 (longer step comparisons)")
    ap.add_argument("args", nargs="*", help="key=value training arguments")
    a = ap.parse_args()
    if a.record_only and not a.record:
        ap.error("--record-only needs --record DIR")
    os.environ.setdefault("YOLO_OFFLINE", "1")
    import ultralytics.utils.torch_utils as tu

    tu.NUM_THREADS = a.threads
    if a.double:
        torch.set_default_dtype(torch.float64)  # the loss builds its targets and sums in the default
    from ultralytics import YOLO
    from ultralytics.models.yolo.detect import DetectionTrainer

    folder, record = (a.record, True) if a.record else (a.batches, False)
    folder.mkdir(parents=True, exist_ok=True)

    if a.dump:
        a.dump.mkdir(parents=True, exist_ok=True)

    def state(module):
        return {k: v.detach().clone() for k, v in module.state_dict().items()}

    class StoredBatchTrainer(DetectionTrainer):
        dumped = 0

        def get_dataloader(self, dataset_path, batch_size=16, rank=0, mode="train"):
            loader = super().get_dataloader(dataset_path, batch_size, rank, mode)
            if mode == "train":
                self.stored = StoredBatches(loader, self, folder, record)
                return self.stored
            return loader

        def _do_train(self, *args, **kwargs):
            if not a.record_only:
                return super()._do_train(*args, **kwargs)
            self._setup_train()  # the loaders, exactly as for training
            closed = False
            for epoch in range(self.epochs):
                self.epoch = epoch
                if not closed and self.args.close_mosaic and epoch >= self.epochs - self.args.close_mosaic:
                    closed = True  # as the training loop closes it
                    self._close_dataloader_mosaic()
                    self.train_loader.reset()
                for _ in self.stored:
                    pass
            os._exit(0)  # no weights to hand back to YOLO.train()

        def get_model(self, cfg=None, weights=None, verbose=True):
            model = super().get_model(cfg, weights, verbose)
            if a.init:
                model.load_state_dict(torch.load(a.init, weights_only=False), strict=True)
            if a.init_out:
                torch.save(state(model), a.init_out)
            return model.double() if a.double else model

        def preprocess_batch(self, batch):
            raw = batch["img"]
            batch = super().preprocess_batch(batch)
            if a.double:  # from the uint8 pixels: not through float32, as Ultralytics divides
                batch["img"] = raw.to(batch["img"].device).double() / 255
                for k in ("batch_idx", "cls", "bboxes"):
                    batch[k] = batch[k].double()
            return batch

        def optimizer_step(self):
            super().optimizer_step()
            self.steps = getattr(self, "steps", 0) + 1
            if a.dump and self.dumped < a.dump_steps and (self.steps - 1) % a.dump_every == 0:
                self.dumped += 1
                torch.save({"model": state(self.model), "ema": state(self.ema.ema)},
                           a.dump / f"step{self.stored.last_ni}.pt")
                if self.dumped == a.dump_steps and a.stop_after_dump:
                    os._exit(0)

    kv = dict(x.split("=", 1) for x in a.args)
    model = kv.pop("model")
    args = {k: typed(v) for k, v in kv.items()}
    # From scratch for a YAML; a weights file is fine-tuned (its weights loaded as Ultralytics'
    # trainer loads them) unless pretrained= says otherwise.
    args.setdefault("pretrained", not model.endswith((".yaml", ".yml")))
    YOLO(model).train(trainer=StoredBatchTrainer, exist_ok=True, **args)


if __name__ == "__main__":
    main()
