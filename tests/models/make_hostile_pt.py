"""Writes torch.save files that an Ultralytics .pt reader must refuse, for test_ultralytics_pt.

    python make_hostile_pt.py OUT_DIR MARKER_FILE

Needs torch only (not Ultralytics): the Ultralytics class names are made here as stand-ins, the
way a pickle names them. Every file that would run code in Python's pickle creates MARKER_FILE
when run; the test checks that it never appears. Prints the files written as JSON.
"""

import collections
import json
import os
import sys
import types
import zipfile

import torch


def fake_module(name: str, classes: dict) -> None:
    """Registers a module under `name` holding nn.Module subclasses named as in `classes`."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    mod = sys.modules[name]
    for cls_name in classes:
        cls = type(cls_name, (torch.nn.Module,), {"__module__": name})
        setattr(mod, cls_name, cls)


# A tiny detection architecture in Ultralytics' YAML grammar (strides 8, 16, 32).
TINY_YAML = {
    "nc": 3,
    "backbone": [[-1, 1, "Conv", [8, 3, 2]], [-1, 1, "Conv", [8, 3, 2]], [-1, 1, "Conv", [16, 3, 2]],
                 [-1, 1, "Conv", [16, 3, 2]], [-1, 1, "Conv", [16, 3, 2]]],
    "head": [[[2, 3, 4], 1, "Detect", ["nc"]]],
    "yaml_file": "tiny.yaml",
}


class RunsCode:
    def __init__(self, fn, arg):
        self.fn, self.arg = fn, arg

    def __reduce__(self):
        return (self.fn, (self.arg,))


def main() -> None:
    out, marker = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    fake_module("ultralytics.nn.tasks", ["DetectionModel", "SegmentationModel", "PoseModel"])
    tasks = sys.modules["ultralytics.nn.tasks"]
    written = {}

    def save(name, obj):
        path = os.path.join(out, name)
        torch.save(obj, path)
        written[name.rsplit(".", 1)[0]] = path
        return path

    # Code execution through REDUCE: os.system (posix.system) and builtins.exec.
    save("os_system.pt", {"model": RunsCode(os.system, f"touch {marker}"), "date": "x"})
    save("builtins_exec.pt", {"model": RunsCode(exec, f"open({marker!r}, 'w')")})
    # A bare state dict: weights without an architecture (a module's, with its _metadata).
    save("state_dict.pt", torch.nn.Conv2d(1, 2, 1).state_dict())
    # Ultralytics models of other tasks.
    seg = tasks.SegmentationModel()
    seg.yaml = dict(TINY_YAML)
    save("segment.pt", {"model": seg, "train_args": {"task": "segment"}})
    save("pose.pt", {"model": tasks.PoseModel(), "train_args": {"task": "pose"}})
    # A detection model whose weights do not fit its own YAML (one conv, named model.0.conv).
    det = tasks.DetectionModel()
    det.yaml = dict(TINY_YAML)
    det.names = {0: "a", 1: "b", 2: "c"}
    det.stride = torch.tensor([8.0, 16.0, 32.0])
    det.model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3))
    path = save("wrong_weights.pt", {"model": det.half(), "train_args": {"imgsz": 64}})
    # A module tree of 40 levels, each sharing its one child twice through the pickle's memo:
    # 2^40 paths from a file of a few KB.
    chain = tasks.DetectionModel()
    chain.yaml, chain.names, chain.stride = dict(TINY_YAML), det.names, det.stride
    level = torch.nn.Module()
    for _ in range(40):
        up = torch.nn.Module()
        up.a, up.b = level, level
        level = up
    chain.model = level
    save("shared_children.pt", {"model": chain})
    # A tensor of 2^33 values viewing one stored value (stride 0): 32 GiB when copied.
    expanded = tasks.DetectionModel()
    expanded.yaml, expanded.names, expanded.stride = dict(TINY_YAML), det.names, det.stride
    expanded.register_buffer("big", torch.zeros(1).expand(2**33))
    save("stride0.pt", {"model": expanded})
    # The same file with a tensor record removed, and cut short.
    with zipfile.ZipFile(path) as src:
        names = src.namelist()
        tensor_record = next(n for n in names if "/data/" in n and not n.endswith("/"))
        with zipfile.ZipFile(os.path.join(out, "missing_tensor.pt"), "w") as dst:
            for n in names:
                if n != tensor_record:
                    dst.writestr(n, src.read(n))
    written["missing_tensor"] = os.path.join(out, "missing_tensor.pt")
    data = open(path, "rb").read()
    with open(os.path.join(out, "truncated.pt"), "wb") as f:
        f.write(data[: len(data) // 2])
    written["truncated"] = os.path.join(out, "truncated.pt")
    print(json.dumps(written))


if __name__ == "__main__":
    main()
