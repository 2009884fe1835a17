"""Ultralytics as the oracle for the training schedule (dev/test only; the product needs no Python).

Trains with Ultralytics' own DetectionTrainer and records, for every batch, what the schedule set:
the learning rate and momentum (Adam's beta1) of each parameter group, the accumulation, and whether
the batch ended with an optimiser step. Writes them as JSON, in the shape of yolo-trainer's
BatchSchedule records (trainer.h), for tests/parity/test_schedule_parity.cpp.

    python ultralytics_schedule.py OUT.json key=value ...   (Ultralytics' train arguments)
"""

import json
import os
import sys

import yaml


def main() -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")  # no hub, no telemetry: this machine reaches PyPI only
    from ultralytics.models.yolo.detect import DetectionTrainer

    out = sys.argv[1]
    overrides = {}
    for arg in sys.argv[2:]:
        key, _, value = arg.partition("=")
        overrides[key] = yaml.safe_load(value)  # typed as on Ultralytics' command line

    records = []
    state = {"ni": 0, "stepped": False}

    def on_batch_start(trainer) -> None:
        state["stepped"] = False

    def on_batch_end(trainer) -> None:
        groups = trainer.optimizer.param_groups
        records.append(
            {
                "iteration": state["ni"],
                "epoch": trainer.epoch,
                "accumulate": trainer.accumulate,
                "stepped": state["stepped"],
                "groups": [g.get("param_group", "") for g in groups],
                "lr": [g["lr"] for g in groups],
                "momentum": [g["momentum"] if "momentum" in g else g["betas"][0] for g in groups],
                "weight_decay": [g["weight_decay"] for g in groups],
                # Trained parameters only: Ultralytics also lists the DFL's fixed (no-grad) weight.
                "sizes": [sum(p.requires_grad for p in g["params"]) for g in groups],
            }
        )
        state["ni"] += 1

    trainer = DetectionTrainer(overrides=overrides)
    optimizer_step = trainer.optimizer_step

    def recording_optimizer_step() -> None:
        state["stepped"] = True
        optimizer_step()

    trainer.optimizer_step = recording_optimizer_step
    trainer.add_callback("on_train_batch_start", on_batch_start)
    trainer.add_callback("on_train_batch_end", on_batch_end)
    trainer.train()
    with open(out, "w") as f:
        json.dump(records, f)


if __name__ == "__main__":
    main()
