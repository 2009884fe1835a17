// Ultralytics' default inference thresholds, named once for every front end (predict, track's
// base, val, training's validation, the `yolo` element, yolo-monitor). Its cfg/default.yaml leaves
// `conf` unset: predict then keeps scores above 0.25, val above 0.001 (every box counts towards
// the precision-recall curve); `iou` 0.7 and `max_det` 300 are default.yaml's own, and
// test_config holds our config/default.yaml to these. No LibTorch here: the element's and the
// monitor's settings use it.
#pragma once

namespace yolo {

inline constexpr double kPredictConf = 0.25;
inline constexpr double kValConf = 0.001;
inline constexpr double kNmsIou = 0.7;
inline constexpr int kMaxDet = 300;

}  // namespace yolo
