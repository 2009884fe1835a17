"""Ultralytics reads a dataset folder (dev/test only): prints JSON {split: [images, instances]}.

Resolves the YAML with Ultralytics' check_det_dataset and builds its YOLODataset for each split,
which reads (or writes) Ultralytics' label cache beside the labels. Used by
tests/parity/test_dataset_sharing.cpp to show one folder serves both tools.

    python ultralytics_read_dataset.py DATA.yaml
"""

import json
import os
import sys


def main() -> None:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics.data import YOLODataset
    from ultralytics.data.utils import check_det_dataset

    data = check_det_dataset(sys.argv[1], autodownload=False)
    counts = {}
    for split in ("train", "val"):
        ds = YOLODataset(img_path=data[split], data=data, imgsz=64, augment=False, task="detect")
        counts[split] = [len(ds.labels), int(sum(len(label["cls"]) for label in ds.labels))]
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
