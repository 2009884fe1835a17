"""Compares the weights two trainers wrote after the same optimiser steps (dev only).

    python compare_steps.py OURS_DIR ULTRALYTICS_DIR --init INIT.pt [--worst 5]

Both folders hold step<ni>.pt files ({"model": {name: tensor}, "ema": {name: tensor}}) written by
parity_replay_train --dump and ultralytics_replay_train.py --dump, from the same initial weights
on the same batches. Each tensor is compared by how far it moved from the initial weights: the
error of our update relative to Ultralytics' (|d_ours - d_theirs| / |d_theirs|, L2 norms over the
tensor). For each step both wrote, prints the median of that over the parameters, the BatchNorm
running statistics and the EMA, how many tensors are off by more than 10%, and the worst ones.

Float rounding alone leaves errors that grow slowly from ~1e-6, except in tensors whose gradient
is zero up to rounding (BatchNorm biases followed by another normalisation, e.g. inside
attention), where Adam turns rounding noise into full-size steps of random sign in both tools;
those show as ~1.4 from the first step on and are counted apart. A difference in the algorithm
shows as a jump in the median at the first step it acts.
"""

import argparse
import re
from pathlib import Path

import torch


def update_error(ours: torch.Tensor, theirs: torch.Tensor, init: torch.Tensor) -> float:
    d_ours, d_theirs = ours.double() - init.double(), theirs.double() - init.double()
    return float((d_ours - d_theirs).norm() / d_theirs.norm().clamp_min(1e-30))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ours", type=Path)
    ap.add_argument("theirs", type=Path)
    ap.add_argument("--init", type=Path, required=True, help="the initial state dict both started from")
    ap.add_argument("--worst", type=int, default=5)
    a = ap.parse_args()
    step = lambda p: int(re.findall(r"\d+", p.stem)[0])  # noqa: E731
    ours = {step(p): p for p in a.ours.glob("step*.pt")}
    theirs = {step(p): p for p in a.theirs.glob("step*.pt")}
    common = sorted(set(ours) & set(theirs))
    if not common:
        raise SystemExit(f"no step both wrote (ours {sorted(ours)[:5]}, theirs {sorted(theirs)[:5]})")
    init = torch.load(a.init, weights_only=False)
    print(f"{'step':>5} {'params':>9} {'bn stats':>9} {'ema':>9} {'>10%':>5}  worst tensors "
          "(median update error per group; >10%: tensors off by more than 10%)")
    for s in common:
        o, t = torch.load(ours[s], weights_only=False), torch.load(theirs[s], weights_only=False)
        rows = {"params": [], "bn": [], "ema": []}
        for group, prefix in (("model", ""), ("ema", "ema:")):
            for name, ref in t[group].items():
                if not ref.is_floating_point() or torch.equal(ref, init[name]):
                    continue  # integer counters, tensors no step has moved yet
                kind = "ema" if group == "ema" else (
                    "bn" if name.endswith(("running_mean", "running_var")) else "params")
                rows[kind].append((update_error(o[group][name], ref, init[name]), prefix + name))
        median = [sorted(r)[len(r) // 2][0] if r else 0.0 for r in rows.values()]
        off = sum(1 for r in rows.values() for d, _ in r if d > 0.1)
        worst = sorted(rows["params"] + rows["bn"] + rows["ema"], reverse=True)[: a.worst]
        print(f"{s:>5} " + " ".join(f"{m:>9.2e}" for m in median) + f" {off:>5}  " +
              ", ".join(f"{n} {d:.1e}" for d, n in worst))


if __name__ == "__main__":
    main()
