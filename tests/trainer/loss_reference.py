"""An independent reference of Ultralytics 8.4's v8DetectionLoss with its TaskAlignedAssigner,
written in Python from shared/reference/ultralytics-yolo-facts.md section 3, to check the C++
loss on identical inputs (tests/trainer/test_loss.cpp, DetectionLoss.MatchesPythonReference).

    /usr/bin/python3 loss_reference.py CASE.pt

CASE.pt (torch::pickle_save of a dict) holds the inputs -- pred_dist (B, A, 4*reg_max) logits,
pred_scores (B, A, nc) logits, anchors (A, 2) grid units, strides (A, 1), targets (N, 6) rows of
image, class, cx, cy, w, h normalised, imgsz (h, w), settings (nc, reg_max, topk, topk2) -- and
what the C++ loss computed: items (3), total, grad_dist, grad_scores. Prints the
largest differences and exits 1 when any exceeds its tolerance.
"""
import math
import sys

import torch
import torch.nn.functional as F


def ciou(b1, b2, eps=1e-7):
    """CIoU of xyxy boxes b1 and b2 (broadcast), as bbox_iou(..., CIoU=True)."""
    b1x1, b1y1, b1x2, b1y2 = b1.unbind(-1)
    b2x1, b2y1, b2x2, b2y2 = b2.unbind(-1)
    w1, h1 = b1x2 - b1x1, b1y2 - b1y1 + eps
    w2, h2 = b2x2 - b2x1, b2y2 - b2y1 + eps
    inter = (torch.minimum(b1x2, b2x2) - torch.maximum(b1x1, b2x1)).clamp(min=0) * (
        torch.minimum(b1y2, b2y2) - torch.maximum(b1y1, b2y1)
    ).clamp(min=0)
    union = w1 * h1 + w2 * h2 - inter + eps
    iou = inter / union
    cw = torch.maximum(b1x2, b2x2) - torch.minimum(b1x1, b2x1)
    ch = torch.maximum(b1y2, b2y2) - torch.minimum(b1y1, b2y1)
    c2 = cw**2 + ch**2 + eps
    rho2 = ((b2x1 + b2x2 - b1x1 - b1x2) ** 2 + (b2y1 + b2y2 - b1y1 - b1y2) ** 2) / 4
    v = (4 / math.pi**2) * (torch.atan(w2 / h2) - torch.atan(w1 / h1)) ** 2
    with torch.no_grad():
        alpha = v / (v - iou + (1 + eps))
    return iou - (rho2 / c2 + v * alpha)


def assign(scores, pboxes, anchors, labels, gboxes, valid, nc, topk, topk2, strides, eps=1e-9):
    """TaskAlignedAssigner (alpha 0.5, beta 6): scores (B, A, nc) probabilities, pboxes (B, A, 4)
    and gboxes (B, M, 4) xyxy pixels, anchors (A, 2) pixels, labels (B, M), valid (B, M) bool.
    Written per box with loops: slow, but nothing is shared with the vectorised C++."""
    B, A, _ = scores.shape
    M = gboxes.shape[1]
    target_labels = torch.zeros(B, A, dtype=torch.long)
    target_boxes = torch.zeros(B, A, 4)
    target_scores = torch.zeros(B, A, nc)
    fg = torch.zeros(B, A, dtype=torch.bool)
    for b in range(B):
        align = torch.zeros(M, A)
        overlap = torch.zeros(M, A)
        pos = torch.zeros(M, A, dtype=torch.bool)
        for m in range(M):
            if not valid[b, m]:
                continue
            x1, y1, x2, y2 = gboxes[b, m].tolist()
            cx, cy, w, h = (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1
            # 8.4.190: a side under the second stride is widened to it (test only).
            if w < strides[1]:
                w = strides[1]
            if h < strides[1]:
                h = strides[1]
            lt = torch.tensor([cx - w / 2, cy - h / 2])
            rb = torch.tensor([cx + w / 2, cy + h / 2])
            inside = torch.cat([anchors - lt, rb - anchors], 1).min(1).values > eps
            iou = ciou(gboxes[b, m].expand(A, 4), pboxes[b]).clamp(min=0)
            score = scores[b, :, labels[b, m]]
            metric = torch.where(inside, score**0.5 * iou**6, torch.zeros(A))
            overlap[m] = torch.where(inside, iou, torch.zeros(A))
            align[m] = metric
            k = min(topk, A)
            top = torch.topk(metric, k).indices
            chosen = torch.zeros(A, dtype=torch.bool)
            chosen[top] = True
            pos[m] = chosen & inside
        # an anchor claimed by several boxes keeps the one with the highest IoU
        claims = pos.sum(0)
        for a in range(A):
            if claims[a] > 1:
                best = int(overlap[:, a].argmax())
                pos[:, a] = False
                pos[best, a] = True
        if topk2 != topk:
            for m in range(M):
                masked = align[m] * pos[m]
                keep = torch.zeros(A, dtype=torch.bool)
                keep[torch.topk(masked, min(topk2, A)).indices] = True
                pos[m] &= keep
        for a in range(A):
            owners = pos[:, a].nonzero().flatten()
            if len(owners) == 0:
                continue
            m = int(owners[0])
            fg[b, a] = True
            target_labels[b, a] = int(labels[b, m])
            target_boxes[b, a] = gboxes[b, m]
        # soft targets: alignment scaled so that each box's best anchor gets its best IoU
        norm = torch.zeros(A)
        for m in range(M):
            if not pos[m].any():
                continue
            a_m = align[m] * pos[m]
            o_m = overlap[m] * pos[m]
            norm = torch.maximum(norm, a_m * o_m.max() / (a_m.max() + eps))
        for a in range(A):
            if fg[b, a]:
                target_scores[b, a, target_labels[b, a]] = norm[a]
    return target_labels, target_boxes, target_scores, fg


def reference_loss(case):
    nc, reg_max, topk, topk2 = (int(v) for v in case["settings"].tolist())
    pred_dist = case["pred_dist"].clone().requires_grad_(True)
    pred_scores = case["pred_scores"].clone().requires_grad_(True)
    anchors, strides = case["anchors"], case["strides"]
    h, w = (float(v) for v in case["imgsz"].tolist())
    targets = case["targets"]
    B, A, _ = pred_scores.shape
    counts = [int((targets[:, 0] == b).sum()) for b in range(B)]
    M = max(counts + [0])
    labels = torch.zeros(B, M, dtype=torch.long)
    gboxes = torch.zeros(B, M, 4)
    valid = torch.zeros(B, M, dtype=torch.bool)
    slot = [0] * B
    for row in targets.tolist():
        b = int(row[0])
        cx, cy, bw, bh = row[2] * w, row[3] * h, row[4] * w, row[5] * h
        labels[b, slot[b]] = int(row[1])
        gboxes[b, slot[b]] = torch.tensor([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2])
        valid[b, slot[b]] = True
        slot[b] += 1
    proj = torch.arange(reg_max, dtype=torch.float32)
    dist = pred_dist.view(B, A, 4, reg_max).softmax(3).matmul(proj)
    pboxes = torch.cat([anchors - dist[..., :2], anchors + dist[..., 2:]], -1)  # grid units
    stride_values = sorted({float(s) for s in strides.flatten().tolist()})
    _, tboxes, tscores, fg = assign(
        pred_scores.detach().sigmoid(),
        pboxes.detach() * strides,
        anchors * strides,
        labels,
        gboxes,
        valid,
        nc,
        topk,
        topk2,
        stride_values,
    )
    tsum = max(float(tscores.sum()), 1.0)
    cls = F.binary_cross_entropy_with_logits(pred_scores, tscores, reduction="none").sum() / tsum
    box = torch.zeros(())
    dfl = torch.zeros(())
    if fg.any():
        weight = tscores.sum(-1)[fg].unsqueeze(-1)
        tgrid = tboxes / strides
        iou = ciou(pboxes[fg], tgrid[fg]).unsqueeze(-1)
        box = ((1.0 - iou) * weight).sum() / tsum
        ltrb = torch.cat([anchors - tgrid[..., :2], tgrid[..., 2:] - anchors], -1)
        ltrb = ltrb.clamp(0, reg_max - 1 - 0.01)[fg].view(-1)
        logits = pred_dist[fg].view(-1, reg_max)
        left = ltrb.long()
        wl = (left + 1).float() - ltrb
        per_side = F.cross_entropy(logits, left, reduction="none") * wl + F.cross_entropy(
            logits, left + 1, reduction="none"
        ) * (1 - wl)
        dfl = (per_side.view(-1, 4).mean(-1, keepdim=True) * weight).sum() / tsum
    items = torch.stack([box * 7.5, cls * 0.5, dfl * 1.5])
    total = items.sum() * B
    total.backward()
    return items.detach(), total.detach(), pred_dist.grad, pred_scores.grad, fg


def main():
    # torch::pickle_save writes a dict whose type tags torch >= 2.6's weights_only loader refuses;
    # the file is the test's own, so the full unpickler is safe here.
    case = torch.load(sys.argv[1], weights_only=False)
    items, total, grad_dist, grad_scores, fg = reference_loss(case)
    # Element-wise: |ours - reference| <= 1e-4 * (1 + |reference|), reported as the worst ratio.
    def worst(ours, ref):
        return ((ours - ref).abs() / (1e-4 * (1 + ref.abs()))).max().item()

    checks = [
        ("loss items", worst(case["items"], items)),
        ("total", worst(case["total"].reshape(()), total)),
        ("grad pred_dist", worst(case["grad_dist"], grad_dist)),
        ("grad pred_scores", worst(case["grad_scores"], grad_scores)),
    ]
    print(f"reference items {items.tolist()} total {total.item():.6f}, foreground {int(fg.sum())}")
    ok = True
    for name, ratio in checks:
        print(f"{name}: worst difference {ratio:.3g} of its tolerance")
        ok &= ratio <= 1.0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
