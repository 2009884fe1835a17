"""Ultralytics' own `val` of a TorchScript model, as the oracle for our val (dev/test only).

    python ultralytics_val.py MODEL DATA.yaml IMGSZ [RECT]

RECT (default 0) is Ultralytics' `rect`: 1 gives its val's default for a .pt (rectangular
batches); a TorchScript file always validates square there.

Prints {"p", "r", "map50", "map", "instances"} as JSON on its last line.
"""

import json
import os
import sys


def main() -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO

    model, data, imgsz = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rect = len(sys.argv) > 4 and sys.argv[4] not in ("0", "False", "false")
    r = YOLO(model, task="detect").val(data=data, imgsz=imgsz, batch=8, device="cpu", rect=rect,
                                      plots=False, verbose=False, project=os.getcwd(),
                                      name="ultralytics_val", exist_ok=True)
    print(json.dumps({"p": float(r.box.mp), "r": float(r.box.mr), "map50": float(r.box.map50),
                      "map": float(r.box.map), "instances": int(r.nt_per_class.sum())}))


if __name__ == "__main__":
    main()
