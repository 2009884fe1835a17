#!/usr/bin/env python3
"""A small real labelled set in Ultralytics' layout, from the photos inside the deepforest wheel.

  deepforest_dataset.py WHEEL OUT [--tile 320]

The deepforest 2.1.0 wheel (PyPI, MIT licence, (c) 2019 Ben Weinstein / weecology) ships four
NEON airborne RGB photos with tree crowns labelled as Pascal VOC boxes. The two large ones
(2299x2472 and 1249x1035 px) are cut into TILE x TILE tiles (whole tiles only); a box is kept
in a tile, clipped to it, when at least 60 % of its area falls inside. Every 4th tile goes to
val, with the two 400x400 photos (OSBS_029, SOAP_061). Labels are one class, "tree" (SOAP_061's
Alive/Dead are both trees). Deterministic: the same wheel gives the same files. Writes
OUT/images/{train,val}/*.png, OUT/labels/..., OUT/data.yaml and OUT/SOURCE.md, and prints one
JSON line with the counts.
"""
import argparse
import io
import json
import os
import xml.etree.ElementTree as ET
import zipfile

from PIL import Image

LARGE = ["2019_YELL_2_528000_4978000_image_crop2", "2019_YELL_2_541000_4977000_image_crop"]
SMALL = ["OSBS_029", "SOAP_061"]


def boxes_of(xml_bytes):
    root = ET.fromstring(xml_bytes)
    out = []
    for obj in root.iter("object"):
        b = obj.find("bndbox")
        out.append(tuple(float(b.find(k).text) for k in ("xmin", "ymin", "xmax", "ymax")))
    return out


def write(out, split, stem, image, boxes):
    w, h = image.size
    image.save(os.path.join(out, "images", split, stem + ".png"))
    with open(os.path.join(out, "labels", split, stem + ".txt"), "w") as f:
        for x1, y1, x2, y2 in boxes:
            f.write(f"0 {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wheel")
    ap.add_argument("out")
    ap.add_argument("--tile", type=int, default=320)
    a = ap.parse_args()
    for split in ("train", "val"):
        os.makedirs(os.path.join(a.out, "images", split), exist_ok=True)
        os.makedirs(os.path.join(a.out, "labels", split), exist_ok=True)
    counts = {"train": [0, 0], "val": [0, 0]}
    with zipfile.ZipFile(a.wheel) as z:
        def read(name):
            return z.read("deepforest/data/" + name)

        index = 0
        for stem in LARGE:
            image = Image.open(io.BytesIO(read(stem + ".png"))).convert("RGB")
            boxes = boxes_of(read(stem + ".xml"))
            w, h = image.size
            for ty in range(0, h - a.tile + 1, a.tile):
                for tx in range(0, w - a.tile + 1, a.tile):
                    kept = []
                    for x1, y1, x2, y2 in boxes:
                        cx1, cy1 = max(x1, tx), max(y1, ty)
                        cx2, cy2 = min(x2, tx + a.tile), min(y2, ty + a.tile)
                        if cx2 <= cx1 or cy2 <= cy1:
                            continue
                        if (cx2 - cx1) * (cy2 - cy1) < 0.6 * (x2 - x1) * (y2 - y1):
                            continue
                        kept.append((cx1 - tx, cy1 - ty, cx2 - tx, cy2 - ty))
                    split = "val" if index % 4 == 3 else "train"
                    index += 1
                    tile = image.crop((tx, ty, tx + a.tile, ty + a.tile))
                    write(a.out, split, f"{stem}_{ty}_{tx}", tile, kept)
                    counts[split][0] += 1
                    counts[split][1] += len(kept)
        for stem in SMALL:
            image = Image.open(io.BytesIO(read(stem + ".png"))).convert("RGB")
            boxes = boxes_of(read(stem + ".xml"))
            write(a.out, "val", stem, image, boxes)
            counts["val"][0] += 1
            counts["val"][1] += len(boxes)
        licence = z.read("deepforest-2.1.0.dist-info/licenses/LICENSE").decode()
    with open(os.path.join(a.out, "data.yaml"), "w") as f:
        f.write(f"path: {os.path.abspath(a.out)}\ntrain: images/train\nval: images/val\nnames:\n  0: tree\n")
    with open(os.path.join(a.out, "SOURCE.md"), "w") as f:
        f.write("Tiles of the labelled NEON airborne photos in the deepforest 2.1.0 wheel (PyPI),\n"
                "made by tools/parity/deepforest_dataset.py. The wheel's licence:\n\n" + licence)
    print(json.dumps({"train_images": counts["train"][0], "train_boxes": counts["train"][1],
                      "val_images": counts["val"][0], "val_boxes": counts["val"][1]}))


if __name__ == "__main__":
    main()
