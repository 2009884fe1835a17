#include "yolo/runtime/engine.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "cpu_conv_fusion.h"
#include "gpu_graph.h"
#include "yolo/core/autocast_scope.h"
#include "yolo/core/cpu_features.h"
#include "yolo/core/stopwatch.h"
#include "yolo/models/shape_tracer.h"

namespace yolo {
namespace {

// 4-D weights (convolution kernels) in channels-last layout, before freezing folds them into the
// graph as constants: the convolutions then need no layout conversion of their weights per call.
void weights_to_channels_last(torch::jit::Module& module) {
  torch::NoGradGuard no_grad;
  for (torch::Tensor p : module.parameters(/*recurse=*/true)) {
    if (p.dim() == 4) p.set_data(p.contiguous(c10::MemoryFormat::ChannelsLast));
  }
}

}  // namespace

Engine::Engine(const std::string& model_path, const EngineOptions& options)
    : path_(model_path), options_(options), device_(options.device) {
  if (options_.half && !device_.is_cuda()) {
    throw std::invalid_argument(
        fmt::format("half=True needs a GPU (device=0 or cuda:0); {} runs FP32", device_.str()));
  }
  if (options_.bf16.value_or(false) && !device_.is_cpu()) {
    throw std::invalid_argument(fmt::format(
        "bf16=True is BF16 autocast on the CPU; on {} use half=True (FP16)", device_.str()));
  }
  bf16_ = device_.is_cpu() && options_.bf16.value_or(cpu_features().native_bf16());
  autocast_ = bf16_;
  if (bf16_ && !cpu_features().native_bf16()) {
    spdlog::warn(
        "bf16=True on a CPU without native BF16 (AVX-512 BF16 or AMX): emulated, usually slower "
        "than FP32");
  }
  // A file that carries its network can be traced at other sizes (its network is read when one
  // is first needed); a .pt is traced through the same tracer at its base size too, rather than
  // read twice.
  // The file is read from disk once; the tracer and the loader work on its bytes.
  const ModelFile file = open_model_file(model_path);
  if (options_.rect) tracer_ = ShapeTracer::open(file, device_);
  LoadedModel loaded;
  // A size given for a file that can be traced again is honoured, as Ultralytics honours imgsz
  // for a .pt.
  if (tracer_ && (tracer_->torch_save() || !options_.imgsz.empty())) {
    const auto [h, w] = tracer_->default_size();
    loaded = tracer_->trace(options_.imgsz.empty() ? h : options_.imgsz.front(),
                            options_.imgsz.empty() ? w : options_.imgsz.back());
  } else {
    loaded = load_torchscript(file, device_, options_.imgsz);
  }
  metadata_ = loaded.metadata;
  ShapeModule& base = shapes_[{input_height(), input_width()}] =
      prepare(loaded.module, input_height(), input_width());
  autocast_ = base.autocast;
  spdlog::debug("engine: '{}' on {} ({}x{}{}, {} classes, {}, {})", model_path, device_.str(),
                input_height(), input_width(), rect() ? ", other sizes traced when used" : "",
                metadata_.names.size(), metadata_.end2end ? "end-to-end" : "NMS", precision());
}

Engine::~Engine() = default;

Engine::ShapeModule Engine::prepare(torch::jit::Module module, int64_t height, int64_t width) {
  ShapeModule m;
  m.module = std::move(module);
  m.autocast = bf16_;
  if (options_.half) m.module.to(torch::kHalf);
  m.module.eval();
  if (options_.channels_last) weights_to_channels_last(m.module);
  if (options_.freeze) {
    try {
      m.module = torch::jit::freeze(m.module);
      // With channels-last only: on NCHW tensors oneDNN's op reorders around every call and
      // was slower than LibTorch's own path (tools/bench/bench_inference.cpp).
      if (options_.fuse_convolutions && options_.channels_last && device_.is_cpu()) {
        fuse_convolutions(m, height, width);
      }
    } catch (const c10::Error& e) {
      // Some exports cannot be frozen; they still run, only a little slower.
      spdlog::warn("'{}': could not freeze the model ({}); running it unfrozen", path_,
                   std::string(e.what_without_backtrace()).substr(0, 200));
    }
  }
  // The warm-up runs take the path real frames take (layout, autocast): the profiling executor
  // specialises the graph to what it sees in them.
  const torch::Tensor dummy = example_input(height, width);
  for (int i = 0; i < options_.warmup_runs; ++i) warm_up(m, dummy);
  return m;
}

void Engine::warm_up(ShapeModule& m, const torch::Tensor& x) {
  c10::InferenceMode guard;
  const torch::Tensor in =
      options_.channels_last ? x.contiguous(c10::MemoryFormat::ChannelsLast) : x;
  auto run = [&] {
    try {
      run_module(m, in);
    } catch (const c10::Error& e) {
      throw_run_failure(e, x);
    }
  };
  try {
    run();
  } catch (const std::runtime_error& e) {
    // bf16_without_autocast() reads the graph; a BF16 activation meeting an FP32 tensor it
    // could not see shows here, and autocast's casts cover it.
    if (m.autocast || !bf16_) throw;
    spdlog::debug("engine: '{}' needs BF16 autocast after all: {}", path_, e.what());
    m.autocast = true;
    run();
  }
}

torch::Tensor Engine::example_input(int64_t height, int64_t width) const {
  // The batch the model was exported for is the one every call runs at
  // (forward_in_traced_batches), so warm-up and the prepack probe see that shape.
  return torch::zeros(
      {std::max<int64_t>(1, metadata_.batch), metadata_.channels, height, width},
      torch::TensorOptions().device(device_).dtype(options_.half ? torch::kHalf : torch::kFloat));
}

std::string Engine::precision() const {
  const char* arithmetic = options_.half ? "FP16"
                           : autocast_   ? "BF16 autocast"
                           : bf16_       ? "BF16"
                                         : "FP32";
  return std::string(arithmetic) + (options_.channels_last ? ", channels-last" : "");
}

bool Engine::accepts(int64_t height, int64_t width) const {
  if (height == input_height() && width == input_width()) return true;
  return rect() && height >= metadata_.stride && width >= metadata_.stride &&
         height % metadata_.stride == 0 && width % metadata_.stride == 0;
}

void Engine::check_input(const torch::Tensor& input) const {
  if (input.dim() == 4 && input.size(1) == metadata_.channels &&
      accepts(input.size(2), input.size(3)))
    return;
  if (rect()) {
    throw std::invalid_argument(fmt::format(
        "'{}' takes input (B, {}, H, W) with H and W multiples of its stride {} but got [{}]; "
        "letterbox frames with the engine's letterbox_options()",
        path_, metadata_.channels, metadata_.stride, fmt::join(input.sizes().vec(), ", ")));
  }
  throw std::invalid_argument(fmt::format(
      "'{}' takes input (B, {}, {}, {}) but got [{}]; letterbox frames to the model's size "
      "(it was exported at imgsz {}x{})",
      path_, metadata_.channels, input_height(), input_width(),
      fmt::join(input.sizes().vec(), ", "), input_height(), input_width()));
}

Engine::ShapeModule& Engine::module_for(int64_t height, int64_t width) {
  auto it = shapes_.find({height, width});
  if (it == shapes_.end()) {
    if (shapes_.size() > kMaxExtraShapes) {
      // The least recently used size besides the traced one, with its GPU graphs.
      auto oldest = shapes_.end();
      for (auto s = shapes_.begin(); s != shapes_.end(); ++s) {
        if (s->first == std::make_pair(input_height(), input_width())) continue;
        if (oldest == shapes_.end() || s->second.last_use < oldest->second.last_use) oldest = s;
      }
      for (auto g = graphs_.begin(); g != graphs_.end();) {
        const bool same = g->first.size() == 4 && g->first[2] == oldest->first.first &&
                          g->first[3] == oldest->first.second;
        g = same ? graphs_.erase(g) : std::next(g);
      }
      shapes_.erase(oldest);
    }
    const auto t0 = std::chrono::steady_clock::now();
    LoadedModel traced;
    try {
      traced = tracer_->trace(height, width);
    } catch (const CheckpointError& e) {
      throw std::invalid_argument(e.what());
    }
    it =
        shapes_.emplace(std::make_pair(height, width), prepare(traced.module, height, width)).first;
    spdlog::debug("engine: '{}' traced and prepared at {}x{} in {:.2f} s", path_, height, width,
                  seconds_since(t0));
  }
  it->second.last_use = ++uses_;
  return it->second;
}

bool Engine::prepare_shape(int64_t height, int64_t width) {
  check_input(torch::empty({0, metadata_.channels, height, width}, torch::kMeta));
  std::lock_guard<std::mutex> lock(mutex_);
  const bool fresh = shapes_.count({height, width}) == 0;
  module_for(height, width);
  return fresh;
}

std::vector<std::vector<int64_t>> Engine::prepared_shapes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::vector<int64_t>> out{{input_height(), input_width()}};
  for (const auto& [hw, m] : shapes_)
    if (hw != std::make_pair(input_height(), input_width())) out.push_back({hw.first, hw.second});
  return out;
}

torch::Tensor Engine::forward(const torch::Tensor& input) {
  check_input(input);
  c10::InferenceMode guard;
  torch::Tensor x =
      input.to(device_, options_.half ? torch::kHalf : torch::kFloat, /*non_blocking=*/true);
  if (options_.channels_last) x = x.contiguous(c10::MemoryFormat::ChannelsLast);
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    ShapeModule& m = module_for(x.size(2), x.size(3));
    torch::Tensor out = run_module(m, x);
    // Postprocessing reads FP32 (or the FP16 the caller asked for), never BF16.
    return out.scalar_type() == torch::kBFloat16 ? out.to(torch::kFloat) : out;
  } catch (const c10::Error& e) {
    throw_run_failure(e, input);
  }
}

void Engine::throw_run_failure(const c10::Error& e, const torch::Tensor& input) const {
  const std::string what = e.what_without_backtrace();
  throw std::runtime_error(fmt::format("'{}' failed on input [{}]: {}", path_,
                                       fmt::join(input.sizes().vec(), ", "),
                                       what.substr(0, what.find('\n'))));
}

void Engine::fuse_convolutions(ShapeModule& m, int64_t height, int64_t width) {
  // On a copy, so that a rewrite that fails halfway leaves the frozen module as it was.
  torch::jit::Module fused = m.module.clone();
  try {
    const CpuConvFusion n = fuse_cpu_convolutions(fused, bf16_);
    m.module = fused;
    m.autocast = bf16_ && (options_.keep_autocast || !bf16_without_autocast(m.module));
    spdlog::debug("engine: {} convolutions fused with their SiLU, {} more on oneDNN's op",
                  n.with_silu, n.plain);
  } catch (const std::exception& e) {
    spdlog::warn("'{}': could not fuse the convolutions ({}); running LibTorch's own ops", path_,
                 std::string(e.what()).substr(0, 200));
    return;
  }
  if (!options_.prepack_weights) return;
  try {
    // Packed for the exported batch at this size, the frames' shape; a failure leaves each
    // convolution with its weight packed or plain, both of which run. The probe run is under
    // autocast in BF16 whatever autocast_ says: the sizes do not depend on it, and with it any
    // graph runs that runs at all.
    AutocastScope autocast(c10::DeviceType::CPU, at::kBFloat16, bf16_);
    const torch::Tensor x =
        example_input(height, width).contiguous(c10::MemoryFormat::ChannelsLast);
    spdlog::debug("engine: {} convolution weights prepacked for oneDNN",
                  prepack_cpu_convolution_weights(m.module, x));
  } catch (const std::exception& e) {
    spdlog::warn(
        "'{}': could not prepack the convolution weights ({}); oneDNN reorders them per "
        "call",
        path_, std::string(e.what()).substr(0, 200));
  }
}

torch::Tensor Engine::run_module(ShapeModule& m, const torch::Tensor& x) {
  if (options_.gpu_graphs && device_.is_cuda() && GpuGraph::compiled_in()) {
    ShapeGraph& shape = graphs_[x.sizes().vec()];
    if (shape.graph) return shape.graph->run(x);
    if (!shape.failed && ++shape.runs > kGraphWarmupRuns) {
      try {
        shape.graph = std::make_shared<GpuGraph>(m.module, x);
        return shape.graph->run(x);
      } catch (const std::exception& e) {
        shape.failed = true;
        spdlog::warn("'{}': input [{}] runs op by op: {}", path_, fmt::join(x.sizes().vec(), ", "),
                     e.what());
      }
    }
  }
  // BF16 autocast for this forward pass on this thread (autocast state is thread-local).
  AutocastScope autocast(c10::DeviceType::CPU, at::kBFloat16, m.autocast);
  return m.module.forward({x}).toTensor();
}

int Engine::gpu_graphs_captured() const {
  std::lock_guard<std::mutex> lock(mutex_);
  int n = 0;
  for (const auto& [shape, g] : graphs_) n += g.graph ? 1 : 0;
  return n;
}

torch::Tensor Engine::forward_in_traced_batches(const torch::Tensor& input) {
  const int64_t traced = std::max<int64_t>(1, metadata_.batch);
  // Anything not a batch to split (a wrong shape, which forward() names, or an empty batch) goes
  // straight through.
  if (input.dim() != 4 || input.size(0) == traced || input.size(0) == 0) return forward(input);
  std::vector<torch::Tensor> outs;
  for (int64_t i = 0; i < input.size(0); i += traced) {
    const int64_t n = std::min(traced, input.size(0) - i);
    torch::Tensor chunk = input.slice(0, i, i + n);
    if (n < traced)
      chunk = torch::cat({chunk, chunk.slice(0, 0, 1).expand({traced - n, -1, -1, -1})});
    outs.push_back(forward(chunk).slice(0, 0, n));
  }
  return outs.size() == 1 ? outs.front() : torch::cat(outs, 0);
}

LetterboxOptions Engine::letterbox_options(bool rect) const {
  LetterboxOptions lb;
  lb.auto_stride = rect && this->rect();
  lb.height = static_cast<int>(input_height());
  lb.width = static_cast<int>(input_width());
  lb.stride = static_cast<int>(metadata_.stride);
  return lb;
}

}  // namespace yolo
