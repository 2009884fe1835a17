#!/usr/bin/env python3
"""Ultralytics' own weight transfer (DetectionModel.load), as the oracle of test_transfer_parity.

  ultralytics_transfer.py load SOURCE.pt CFG NC NAMES_JSON CH REMAP [OUT.pt]
      Builds DetectionModel(CFG, nc=NC, ch=CH) as Ultralytics' trainer does (CFG "-" takes the
      source's own YAML, as model=SOURCE.pt does), sets the dataset's names first when REMAP is
      1 (cls_remap), loads SOURCE and prints one JSON line: Ultralytics' transfer and remap log
      lines, and for every tensor of the result a fingerprint (shape, sums, constant value),
      whether it equals the source's tensor of that name, and for class-logit tensors which
      source row each row equals. With OUT.pt, the loaded model is also saved there as
      Ultralytics saves a fine-tuned best.pt.
  ultralytics_transfer.py make YAML NC NAMES_JSON OUT.pt SEED
      Writes a checkpoint in Ultralytics' layout from YAML with every tensor drawn at random
      (distinct values, so that a copied tensor is told from a fresh one), for families with no
      release file in the test assets.
"""
import json
import logging
import re
import sys
from copy import deepcopy

import torch

from ultralytics.nn.tasks import DetectionModel, load_checkpoint

CLS_LOGIT = re.compile(r"\.(cv3|one2one_cv3)\.\d+\.\d+\.(weight|bias)$")


def fingerprint(v):
    f = v.detach().double().flatten()
    n = f.numel()
    w = torch.arange(n, dtype=torch.float64) % 7 + 1
    return {
        "shape": list(v.shape),
        "sum": f.sum().item() if n else 0.0,
        "wsum": (f * w).sum().item() if n else 0.0,
        "const": bool(n and bool((f == f[0]).all())),
        "first": f[0].item() if n else 0.0,
    }


def row_sources(v, s):
    """For each row of v, the index of the row of s it equals exactly, else -1."""
    if s is None or v.shape[1:] != s.shape[1:]:
        return None
    out = []
    for r in range(v.shape[0]):
        hits = [j for j in range(s.shape[0]) if torch.equal(v[r], s[j])]
        out.append(hits[0] if hits else -1)
    return out


def save(model, out):
    model.args = {"imgsz": 640}
    torch.save({"model": deepcopy(model).half(), "ema": None, "train_args": {"imgsz": 640},
                "version": "8.4.190", "date": "2026-12-07"}, out)


def load(source, cfg, nc, names, ch, remap, out=None):
    torch.manual_seed(0)
    weights, _ = load_checkpoint(source)
    records = []
    handler = logging.Handler()
    handler.emit = lambda rec: records.append(rec.getMessage())
    logging.getLogger("ultralytics").addHandler(handler)
    model = DetectionModel(weights.yaml if cfg == "-" else cfg, nc=nc, ch=ch, verbose=False)
    if remap and names:
        model.names = names
    model.load(weights, verbose=True)
    if out:
        save(model, out)
    src = weights.float().state_dict()
    tensors = {}
    for k, v in model.state_dict().items():
        s = src.get(k)
        e = fingerprint(v)
        e["same"] = bool(s is not None and s.shape == v.shape and torch.equal(s.float(), v.float()))
        if CLS_LOGIT.search(k) and v.dim() >= 1 and v.shape[0] == nc:
            rows = row_sources(v.float(), None if s is None else s.float())
            if rows is not None:
                e["rows"] = rows
        tensors[k] = e
    transferred = next((r for r in records if r.startswith("Transferred")), "")
    remapped = next((r for r in records if r.startswith("Remapped")), "")
    m = re.match(r"Transferred (\d+)/(\d+)", transferred)
    print(json.dumps({
        "transferred": int(m.group(1)) if m else -1,
        "total": int(m.group(2)) if m else -1,
        "transfer_log": transferred,
        "remap_log": remapped,
        "cls_hidden": int(model.model[-1].cv3[0][-1].in_channels),
        "tensors": tensors,
    }))


def make(yaml, nc, names, out, seed):
    torch.manual_seed(seed)
    model = DetectionModel(yaml, nc=nc, verbose=False)
    with torch.no_grad():
        for v in list(model.state_dict().values()):
            if v.is_floating_point():
                v.copy_(torch.randn_like(v) * 0.1 + (1.0 if v.dim() == 1 else 0.0))
    model.names = names
    save(model, out)
    print(json.dumps({"written": out}))


def main():
    if sys.argv[1] == "load":
        source, cfg, nc, names, ch, remap = sys.argv[2:8]
        names = {int(k): v for k, v in json.loads(names).items()}
        load(source, cfg, int(nc), names, int(ch), remap == "1", sys.argv[8] if len(sys.argv) > 8 else None)
    elif sys.argv[1] == "make":
        _, _, yaml, nc, names, out, seed = sys.argv
        make(yaml, int(nc), {int(k): v for k, v in json.loads(names).items()}, out, int(seed))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
