"""Scores validation cases with Ultralytics' own metric functions: the oracle of
tests/parity/test_metrics_parity.cpp (test/dev only).

    python ultralytics_metrics.py CASES.json OUT.json

Input: {"cases": [{"nc": N, "images": [{"labels": [[cls, x1, y1, x2, y2], ...],
                                         "preds": [[x1, y1, x2, y2, conf, cls], ...]}, ...]}, ...]}
Coordinates and confidences are float32 values written exactly. An image's predictions come in
NMS's output order (descending confidence), as DetectionValidator receives them.

Each image goes through what DetectionValidator.update_metrics does with a prediction and its
labels: box_iou (utils/metrics.py), BaseValidator.match_predictions (engine/validator.py),
DetMetrics.update_stats; then DetMetrics.process, and ConfusionMatrix.process_batch (detect, IoU
0.45) at its default conf 0.25 and at validation's 0.001, as DetectionValidator passes it.

ap_per_class sorts all predictions with np.argsort(-conf), whose order of equal confidences NumPy
leaves unspecified (introsort, or SIMD sorts on AVX-512 machines). Each case is therefore scored
twice: as Ultralytics runs ("default") and with that one sort made stable ("stable", the order
a stable sort keeps: the order given). Where the two differ the tie order changed Ultralytics'
own result.

Output: {"cases": [{"default": R, "stable": R, "confusion": [...], "confusion_val": [...]}, ...]}
with the matrices row-major and
R = {"p", "r", "map50", "map75", "map", "ap50": [...], "ap": [...], "classes": [...]}.
"""

import json
import sys


def main() -> None:
    import numpy as np
    import torch

    import ultralytics.utils.metrics as metrics
    from ultralytics.engine.validator import BaseValidator
    from ultralytics.utils.metrics import ConfusionMatrix, DetMetrics, box_iou

    cases_path, out_path = sys.argv[1], sys.argv[2]
    with open(cases_path) as f:
        cases = json.load(f)["cases"]

    class Matcher:  # what match_predictions reads of the validator
        iouv = torch.linspace(0.5, 0.95, 10)

    matcher = Matcher()
    default_argsort = np.argsort

    def stable_argsort(a, *args, **kwargs):
        kwargs.setdefault("kind", "stable")
        return default_argsort(a, *args, **kwargs)

    def per_image(image):
        labels = torch.tensor(image["labels"], dtype=torch.float32).reshape(-1, 5)
        preds = torch.tensor(image["preds"], dtype=torch.float32).reshape(-1, 6)
        true_cls, true_boxes = labels[:, 0], labels[:, 1:5]
        pred_boxes, conf, pred_cls = preds[:, :4], preds[:, 4], preds[:, 5]
        if labels.shape[0] == 0 or preds.shape[0] == 0:  # DetectionValidator._process_batch
            tp = np.zeros((preds.shape[0], 10), dtype=bool)
        else:
            iou = box_iou(true_boxes, pred_boxes)
            tp = BaseValidator.match_predictions(matcher, pred_cls, true_cls, iou).cpu().numpy()
        cls = true_cls.numpy()
        no_pred = preds.shape[0] == 0
        stat = {
            "tp": tp,
            "target_cls": cls,
            "target_img": np.unique(cls),
            "conf": np.zeros(0) if no_pred else conf.numpy(),
            "pred_cls": np.zeros(0) if no_pred else pred_cls.numpy(),
            "im_name": "image.jpg",
        }
        detections = {"bboxes": pred_boxes, "conf": conf, "cls": pred_cls}
        return stat, detections, {"cls": true_cls, "bboxes": true_boxes}

    def score(case, stats):
        m = DetMetrics(names={i: str(i) for i in range(case["nc"])})
        for stat in stats:
            m.update_stats(stat)
        m.process()
        box = m.box
        return {
            "p": float(box.mp),
            "r": float(box.mr),
            "map50": float(box.map50),
            "map75": float(box.map75),
            "map": float(box.map),
            "ap50": [float(v) for v in box.ap50],
            "ap": [float(v) for v in box.ap],
            "classes": [int(c) for c in box.ap_class_index],
        }

    out = []
    for case in cases:
        prepared = [per_image(image) for image in case["images"]]
        stats = [p[0] for p in prepared]
        result = {"default": score(case, stats)}
        metrics.np.argsort = stable_argsort  # ap_per_class's sort only: metrics.np is numpy
        try:
            result["stable"] = score(case, stats)
        finally:
            metrics.np.argsort = default_argsort
        for key, conf in (("confusion", 0.25), ("confusion_val", 0.001)):
            cm = ConfusionMatrix(names={i: str(i) for i in range(case["nc"])}, task="detect")
            for _, detections, batch in prepared:
                cm.process_batch(detections, batch, conf=conf)
            result[key] = cm.matrix.astype(int).flatten().tolist()
        out.append(result)
    with open(out_path, "w") as f:
        json.dump({"cases": out}, f)
    print(json.dumps({"cases": len(out)}))


if __name__ == "__main__":
    main()
