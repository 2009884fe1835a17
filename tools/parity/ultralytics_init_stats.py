"""Ultralytics' freshly built model, summarised per tensor (dev/test only).

Builds YAML with nc classes in Ultralytics (DetectionModel, as `YOLO("yolo26n.yaml")` does before
training from scratch) and prints JSON {name: [numel, mean, std, min, max]} for every parameter
and buffer. tests/parity/test_init_parity.cpp compares our own initialisation with it.

    python ultralytics_init_stats.py YAML NC SEED
"""

import json
import os
import sys


def main() -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    import torch
    from ultralytics.nn.tasks import DetectionModel

    torch.manual_seed(int(sys.argv[3]))
    model = DetectionModel(sys.argv[1], nc=int(sys.argv[2]), verbose=False)
    out = {}
    for name, t in list(model.named_parameters()) + list(model.named_buffers()):
        f = t.detach().double().flatten()
        if f.numel() == 0:
            continue
        out[name] = [f.numel(), f.mean().item(), f.std().item() if f.numel() > 1 else 0.0,
                     f.min().item(), f.max().item()]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
