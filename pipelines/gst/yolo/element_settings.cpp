#include "element_settings.h"

namespace yolo::gst {

const PropertyTable<ElementSettings>& yolo_properties() {
  using S = ElementSettings;
  constexpr Change ready = Change::kReady, playing = Change::kPlaying;
  const InferenceNames& n = kInferenceNames;
  static const PropertyTable<S> table =
      PropertyTable<S>()
          // What the model is and how its detections are filtered.
          .text("model", "Model",
                "Detection model: a yolo-trainer checkpoint (best.pt), an Ultralytics "
                "TorchScript export (.torchscript) or an Ultralytics .pt. Required",
                &S::model, ready, EmptyText::kNull)
          .text(n.device.element, "Device",
                "Inference device: \"cpu\", \"0\" or \"cuda:0\" (AMD GPUs through ROCm LibTorch "
                "too); empty picks GPU 0 when there is one, else the CPU",
                &S::device, ready)
          .real(n.conf.element, "Confidence threshold",
                "Keep detections whose confidence is above this", &S::conf, kConfRange.lo,
                kConfRange.hi, playing)
          .real(n.iou.element, "IoU threshold",
                "Non-maximum suppression removes boxes overlapping a better one of the same class "
                "by more than this IoU (not used by end-to-end YOLO26 models)",
                &S::iou, kIouRange.lo, kIouRange.hi, playing)
          .integer(n.max_det.element, "Max detections", "Detections kept per frame", &S::max_det,
                   static_cast<int>(kMaxDetRange.lo), static_cast<int>(kMaxDetRange.hi), playing)
          .text(n.classes.element, "Classes",
                "Only these classes: comma-separated ids or names (\"0,2\", \"person,car\"); "
                "empty keeps all",
                &S::classes, playing)
          .flag(n.half.element, "Half precision", "Run the model in FP16 (GPU devices only)",
                &S::half, ready)
          .flag(n.rect.element, "Rectangular input",
                "Letterbox the stream's frames to their smallest stride-multiple rectangle "
                "(1920x1080 at 640: 640x384) where the model runs any size (a .pt or a training "
                "checkpoint; a fixed-shape export stays square), as Ultralytics' rect; false: the "
                "square input",
                &S::rect, ready)
          .text(n.bf16.element, "BF16 autocast",
                "BF16 autocast on the CPU: auto (where the CPU computes BF16 natively: AVX-512 "
                "BF16, AMX), true, or false (FP32)",
                &S::bf16, ready)
          // How frames are batched and what the element does with its results.
          .count("batch-size", "Batch size",
                 "Frames per model call, from this element and every element sharing its "
                 "model-instance-id (the first element to start sets it)",
                 &S::batch_size, 1, ElementSettings::kMaxBatch, ready)
          .count("batch-timeout", "Batch timeout",
                 "Longest wait, in microseconds, for a batch to fill before a partial batch runs; "
                 "added to the latency the element reports when batch-size > 1",
                 &S::batch_timeout_us, 0, ElementSettings::kMaxBatchTimeoutUs, ready)
          .text("model-instance-id", "Model instance id",
                "Elements of one process with the same id share one loaded model and are batched "
                "together; empty: a model of this element's own",
                &S::model_instance_id, ready)
          .count("inference-interval", "Inference interval",
                 "Run the model on every Nth frame; the frames in between pass through without "
                 "ROI metas and are not published (with draw=true they show the latest "
                 "detections)",
                 &S::inference_interval, 1, 1'000'000, playing)
          .text("stream-id", "Stream id",
                "Name of this stream in results, messages, metrics and the HTTP API; empty: the "
                "element's name",
                &S::stream_id, ready)
          .integer("http-port", "HTTP port",
                   "Serve detections, snapshots and metrics over HTTP on this port (see "
                   "docs/http-api.md); elements using the same port share one server. 0: off; "
                   "-1: any free port",
                   &S::http_port, -1, 65535, ready)
          .text("http-address", "HTTP address",
                "Address the HTTP endpoint binds (0.0.0.0: every interface)", &S::http_address,
                ready)
          .count("snapshot-interval", "Snapshot interval",
                 "With http-port: keep the latest frame for snapshot.jpg at most this often, in "
                 "milliseconds (each keep converts a frame); 0: no snapshots",
                 &S::snapshot_interval_ms, 0, G_MAXUINT, playing)
          .count("model-check-interval", "Model check interval",
                 "How often, in milliseconds, the model file is checked for replacement (e.g. a "
                 "new best.pt renamed over it); a replaced model is loaded in the background and "
                 "swapped in without stopping the stream. 0: never",
                 &S::model_check_interval_ms, 0, G_MAXUINT, ready)
          .flag("draw", "Draw", "Draw boxes and labels onto the frames", &S::draw, playing)
          .flag("post-messages", "Post messages",
                "Post an element message \"yolo-detections\" on the bus for every inferred frame",
                &S::post_messages, playing);
  return table;
}

std::vector<std::string> ElementSettings::problems() const {
  // The rows' ranges (the inference rows' are InferenceSettings'), and bf16's choices.
  std::vector<std::string> out = yolo_properties().problems(*this);
  if (std::string p = bf16_problem(SettingFront::kElement); !p.empty()) out.push_back(std::move(p));
  return out;
}

}  // namespace yolo::gst
