// The inference engine: one TorchScript detection model on one device.
//
// Loads a checkpoint (ours or an Ultralytics TorchScript export) straight onto the device
// (anchors are baked into the trace, so the model is never moved after loading), in eval mode,
// FP16 on GPUs when asked, frozen for inference, and warmed up. Frames go through it in
// channels-last layout (oneDNN's and cuDNN's fast convolution layout) and, on CPUs that compute
// BF16 natively (AVX-512 BF16, AMX), in BF16. On the CPU each convolution and its SiLU run as
// one oneDNN op with its weights prepacked at load; in BF16 that graph computes in BF16 by
// itself, and BF16 autocast covers only what it does not fuse. docs/benchmarks.md has each
// lever's speed-up and its effect on mAP. On a GPU, with gpu_graphs, each input shape's pass is
// captured once as a CUDA/HIP graph and replayed. Input size, class names, stride and the
// end-to-end flag come from the file's metadata.
//
// Rectangular inputs (Ultralytics' rect): a file that carries its network (an Ultralytics .pt,
// a yolo-trainer training checkpoint) also runs at any other stride-multiple size; each new
// shape is traced and prepared like the first (freeze, fusion, prepacking, warm-up) on its first
// use or through prepare_shape(), and kept (the least recently used beyond kMaxExtraShapes is
// dropped). A fixed-shape export runs at its traced size only (rect() is false). All methods are
// thread-safe; forward passes are serialised, which is what one model instance on one device does
// anyway (the dynamic batcher is the way to share an engine between many callers). LibTorch only:
// frames reach it through preprocess_frames() (device_preprocess.h) or, from OpenCV images, through
// detect_images() (image_detect.h, the OpenCV edge).
#pragma once

#include <torch/script.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "yolo/models/checkpoint.h"
#include "yolo/runtime/letterbox_geometry.h"
#include "yolo/runtime/postprocess.h"

namespace yolo {

class GpuGraph;     // runtime/src/gpu_graph.h
class ShapeTracer;  // yolo/models/shape_tracer.h

struct EngineOptions {
  std::string device = "cpu";  // torch device string: "cpu", "cuda:0" (ROCm GPUs too)
  bool half = false;           // FP16 weights and inputs; GPU only
  bool freeze = true;          // torch::jit::freeze: parameters become constants, faster
  int warmup_runs = 2;         // forward passes at load time (graph optimisation, allocator)
  // BF16 autocast on the CPU: empty = where the CPU computes BF16 natively
  // (cpu_features().native_bf16()); true or false to force it on or off. CPU only.
  std::optional<bool> bf16;
  bool channels_last = true;  // input (and 4-D weights) in channels-last memory layout
  // CPU, frozen, channels-last: each convolution and the SiLU after it as one oneDNN op
  // (runtime/src/cpu_conv_fusion.h); false keeps LibTorch's separate ops.
  bool fuse_convolutions = true;
  // With fuse_convolutions: the fused convolutions' weights reordered once at load into the
  // blocked layout oneDNN's kernels read, instead of on every call.
  bool prepack_weights = true;
  // BF16 with the fusion: autocast even where the fused graph computes in BF16 by itself, which
  // only adds casts (measured by tools/bench/bench_inference.cpp).
  bool keep_autocast = false;
  // GPU: each input shape's forward pass captured once as a CUDA/HIP graph after
  // kGraphWarmupRuns plain runs, then replayed (runtime/src/gpu_graph.h). A shape whose capture
  // fails runs op by op, with a warning. Off by default until a GPU run has measured it
  // (tools/gpu-check.sh runs its test and its benchmark rows).
  bool gpu_graphs = false;
  // Models that can be traced again (an Ultralytics .pt; with `rect`, a training checkpoint) are
  // traced at this [h, w] (or [s]); empty = the size they were trained at. A fixed-shape export
  // keeps the size it was traced at.
  std::vector<int64_t> imgsz;
  // Accept other input sizes where the file allows it (rect()); false: only the traced size.
  bool rect = true;
};

class Engine {
 public:
  // Throws CheckpointError for unusable files and std::invalid_argument for bad options.
  Engine(const std::string& model_path, const EngineOptions& options);
  ~Engine();

  const ModelMetadata& metadata() const { return metadata_; }
  const c10::Device& device() const { return device_; }
  int64_t input_height() const { return metadata_.imgsz[0]; }
  int64_t input_width() const { return metadata_.imgsz[1]; }
  bool end2end() const { return metadata_.end2end; }
  const std::string& path() const { return path_; }
  // The arithmetic the forward pass runs in: "FP32", "BF16" (every convolution fused in BF16,
  // the graph computes in BF16 by itself), "BF16 autocast" or "FP16", with ", channels-last"
  // when that layout is used.
  std::string precision() const;

  // Whether inputs of other stride-multiple sizes than input_height() x input_width() run.
  bool rect() const { return tracer_ != nullptr; }
  // Whether an input of height x width runs (its own size, or with rect() a stride multiple).
  bool accepts(int64_t height, int64_t width) const;

  // Raw model output for (B, channels, H, W) float input in [0, 1] (any device; moved here):
  // (B, 4+nc, A) or, end-to-end, (B, K, 6), on the engine's device. Throws
  // std::invalid_argument when the shape does not fit the model (another size without rect(),
  // a size that is not a stride multiple).
  torch::Tensor forward(const torch::Tensor& input);
  // forward() for a batch of any size, run in chunks of the batch the model was exported with
  // (its metadata's `batch`), the last chunk padded with copies of its first image and the
  // padding's outputs dropped: what a model whose graph fixed its batch at export needs.
  torch::Tensor forward_in_traced_batches(const torch::Tensor& input);

  // The letterbox this model's input needs (its size and stride, Ultralytics' defaults). With
  // `rect` and rect(): the minimal stride-multiple rectangle (Ultralytics' LetterBox(auto=True)).
  LetterboxOptions letterbox_options(bool rect = false) const;

  // Traces and prepares the forward pass at height x width now rather than on the first input of
  // that size (a stream whose frame size is known). True when it was prepared now, false when it
  // already was (callers time the first apart from inference). Throws as forward() does for a
  // size it cannot run.
  bool prepare_shape(int64_t height, int64_t width);
  // The input sizes ([h, w]) prepared now, the traced size first.
  std::vector<std::vector<int64_t>> prepared_shapes() const;

  // Input shapes whose forward pass runs as a replayed GPU graph.
  int gpu_graphs_captured() const;

  static constexpr int kGraphWarmupRuns = 3;    // plain runs of a shape before its capture
  static constexpr size_t kMaxExtraShapes = 8;  // prepared sizes kept besides the traced one

 private:
  std::string path_;
  EngineOptions options_;
  c10::Device device_;
  bool bf16_ = false;  // resolved from options_.bf16 and the CPU
  // Whether the forward pass runs under BF16 autocast: with bf16_, unless the fused graph
  // computes in BF16 by itself (bf16_without_autocast in cpu_conv_fusion.h).
  bool autocast_ = false;  // the traced size's; precision() reports it
  ModelMetadata metadata_;
  // One input size's forward pass, ready to run.
  struct ShapeModule {
    torch::jit::Module module;
    bool autocast = false;  // runs under BF16 autocast (see autocast_)
    uint64_t last_use = 0;
  };
  std::map<std::pair<int64_t, int64_t>, ShapeModule> shapes_;  // (h, w); the traced size's stays
  uint64_t uses_ = 0;
  std::unique_ptr<ShapeTracer> tracer_;  // null: a fixed-shape file
  mutable std::mutex mutex_;
  // Per input shape: plain runs so far, then its graph (null: the capture failed).
  struct ShapeGraph {
    int runs = 0;
    std::shared_ptr<GpuGraph> graph;
    bool failed = false;
  };
  std::map<std::vector<int64_t>, ShapeGraph> graphs_;

  // Zeros at the model's exported batch, at height x width, on the device.
  torch::Tensor example_input(int64_t height, int64_t width) const;
  // Half, layout, freezing, fusion and warm-up of one size's module.
  ShapeModule prepare(torch::jit::Module module, int64_t height, int64_t width);
  void fuse_convolutions(ShapeModule& m, int64_t height, int64_t width);  // cpu_conv_fusion.h
  void warm_up(ShapeModule& m, const torch::Tensor& x);  // a run, turning autocast on if it must
  // The module for this input size, prepared if new (under mutex_); throws std::invalid_argument
  // for a size it cannot run.
  ShapeModule& module_for(int64_t height, int64_t width);
  void check_input(const torch::Tensor& input) const;
  torch::Tensor run_module(ShapeModule& m, const torch::Tensor& x);  // under mutex_
  // LibTorch's error of a forward pass on `input` as std::runtime_error naming the file and shape.
  [[noreturn]] void throw_run_failure(const c10::Error& e, const torch::Tensor& input) const;
};

}  // namespace yolo
