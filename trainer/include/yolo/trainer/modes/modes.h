// The yolo-trainer modes beyond argument handling. Each takes the validated settings and the
// selected device and returns the process exit code; errors are thrown (ConfigError for bad
// settings, ModelError/CheckpointError for bad model files) and reported by main.
#pragma once

namespace yolo {

class Config;
struct SelectedDevice;

// `info`: per-layer table, parameters, gradients, GFLOPs of the unfused and fused model.
int run_info_mode(const Config& cfg);

// `synth`: write the synthetic dataset (and video) described by dir/images/imgsz/nc/seed/video.
int run_synth_mode(const Config& cfg);

// `export`: trace the fused model to a TorchScript checkpoint with metadata.
int run_export_mode(const Config& cfg, const SelectedDevice& device);
// `val`: metrics of a checkpoint on a dataset split, through the runtime Engine.
int run_val_mode(const Config& cfg, const SelectedDevice& device);

// `predict`: detections for images, folders, globs, lists, videos and streams, saved under
// runs/detect/predict*; 0 when any frame was processed, 1 when nothing could be read.
int run_predict_mode(const Config& cfg, const SelectedDevice& device);
// `track`: predict with a tracker (tracker=botsort.yaml): detections carry track ids; saved under
// runs/detect/track*.
int run_track_mode(const Config& cfg, const SelectedDevice& device);

}  // namespace yolo
