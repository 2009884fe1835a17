// Device grammar and resolution. Pure logic, no LibTorch: query_backend() lives in
// torch_backend.cpp so that everything here can be unit-tested against any BackendInfo.
#include "yolo/core/device.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace yolo {
namespace {

std::string normalise(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '\'' || c == '"') continue;
    s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return s;
}

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Device kinds users bring from other toolkits. Each entry: prefixes that identify it, and the
// reason it is not a device here. The advice that follows is the same for all of them.
struct UnsupportedKind {
  std::vector<std::string_view> prefixes;
  std::string_view name;
  std::string_view why;
};

const std::vector<UnsupportedKind>& unsupported_kinds() {
  static const std::vector<UnsupportedKind> kinds = {
      {{"migraphx"},
       "MIGraphX",
       "MIGraphX is AMD's inference graph compiler (used through ONNX Runtime), not a LibTorch "
       "device; this product runs AMD GPUs through LibTorch's ROCm build, which already uses "
       "MIOpen/rocBLAS for the same hardware"},
      {{"directml", "dml"},
       "DirectML",
       "DirectML is a Windows DirectX 12 API; this product runs on Linux, where AMD GPUs are "
       "reached through ROCm"},
      {{"ryzenai", "ryzen", "npu", "vitis", "xdna"},
       "Ryzen AI NPU / Vitis AI",
       "the Ryzen AI NPU is only reachable through AMD's Vitis AI / ONNX Runtime stack, which "
       "LibTorch does not expose"},
      {{"mps"}, "Apple MPS", "MPS exists only on macOS with Apple silicon"},
      {{"rocm", "hip", "amd"},
       "a 'rocm'/'hip' device name",
       "ROCm builds of LibTorch expose AMD GPUs through the 'cuda' device type, so there is no "
       "separate ROCm device name"},
      {{"tpu", "xla", "vulkan", "intel", "xpu", "ipu", "hpu", "opencl", "metal"},
       "this accelerator type",
       "only CPUs and GPUs reached through LibTorch's CUDA/ROCm device are supported"},
  };
  return kinds;
}

[[noreturn]] void throw_unsupported(const std::string& text, const UnsupportedKind& kind) {
  throw DeviceError(fmt::format(
      "device='{}' is not supported: {} is not a device of this product, because {}. "
      "Use device=cpu, or device=0 / device=cuda:0 for a GPU (AMD GPUs through a ROCm build of "
      "LibTorch, NVIDIA GPUs through a CUDA build); `yolo-trainer checks` shows what this build "
      "sees.",
      text, kind.name, kind.why));
}

int parse_index(const std::string& token, const std::string& text) {
  if (token.empty() || token.size() > 3 ||
      !std::all_of(token.begin(), token.end(), [](char c) { return std::isdigit(c); })) {
    throw DeviceError(fmt::format(
        "device='{}' is not a valid device: '{}' is not a GPU index. Use device=cpu, device=0, "
        "device=0,1, device=cuda:0 or leave it empty for the best available device.",
        text, token));
  }
  return std::stoi(token);
}

}  // namespace

std::string BackendInfo::flavour_name() const {
  switch (flavour) {
    case Flavour::kCuda:
      return flavour_version.empty() ? "CUDA" : "CUDA " + flavour_version;
    case Flavour::kRocm:
      return flavour_version.empty() ? "ROCm/HIP" : "ROCm/HIP " + flavour_version;
    case Flavour::kCpu:
      break;
  }
  return "CPU";
}

std::string SelectedDevice::torch_string() const {
  return is_gpu ? fmt::format("cuda:{}", primary_index()) : std::string("cpu");
}

std::string SelectedDevice::describe(const BackendInfo& backend) const {
  if (!is_gpu) return "cpu";
  std::string out = fmt::format("cuda:{}", fmt::join(gpu_indices, ","));
  std::vector<std::string> names;
  for (int i : gpu_indices) {
    for (const auto& g : backend.gpus) {
      if (g.index == i) names.push_back(g.name);
    }
  }
  if (!names.empty()) out += fmt::format(" ({})", fmt::join(names, ", "));
  return out;
}

DeviceRequest parse_device(std::string_view text) {
  DeviceRequest req;
  req.text = std::string(text);
  std::string s = normalise(text);

  for (const auto& kind : unsupported_kinds()) {
    for (auto prefix : kind.prefixes) {
      if (starts_with(s, prefix)) throw_unsupported(req.text, kind);
    }
  }

  if (s.empty() || s == "-1" || s == "none" || s == "auto" || s == "[-1]") return req;
  if (s == "cpu") {
    req.kind = DeviceRequest::Kind::kCpu;
    return req;
  }
  if (s == "cuda" || s == "gpu") {
    req.kind = DeviceRequest::Kind::kGpu;
    req.gpu_indices = {0};
    return req;
  }
  if (starts_with(s, "cuda:")) s = s.substr(5);
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);

  req.kind = DeviceRequest::Kind::kGpu;
  std::set<int> seen;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string token =
        s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    // Ultralytics collapses duplicate and trailing commas; do the same.
    if (!token.empty()) {
      int index = parse_index(token, req.text);
      if (seen.insert(index).second) req.gpu_indices.push_back(index);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (req.gpu_indices.empty()) {
    throw DeviceError(fmt::format(
        "device='{}' names no device. Use device=cpu, device=0, device=0,1 or device=cuda:0.",
        req.text));
  }
  return req;
}

SelectedDevice resolve_device(const DeviceRequest& request, const BackendInfo& backend) {
  SelectedDevice out;
  const int count = static_cast<int>(backend.gpus.size());
  switch (request.kind) {
    case DeviceRequest::Kind::kCpu:
      return out;
    case DeviceRequest::Kind::kAuto:
      if (count > 0) {
        out.is_gpu = true;
        out.gpu_indices = {0};
      }
      return out;
    case DeviceRequest::Kind::kGpu:
      break;
  }
  for (int index : request.gpu_indices) {
    if (index < count) continue;
    std::string seen;
    if (count == 0 && !backend.cpu_part_of.empty()) {
      seen = fmt::format(
          "These programs link only the CPU part of LibTorch {} ({} build): they are the `cpu` "
          "package, which has no GPU support. Use device=cpu, or install the package built for "
          "your GPU (the rocm or cuda flavour, docs/deploy.md).",
          backend.torch_version, backend.cpu_part_of);
    } else if (count == 0) {
      seen = fmt::format(
          "This LibTorch ({} build, {}) sees no GPU{}. Use device=cpu, or build against a ROCm "
          "(AMD) or CUDA (NVIDIA) LibTorch as the README describes.",
          backend.flavour_name(), backend.torch_version,
          backend.flavour == BackendInfo::Flavour::kCpu
              ? ": it was built without GPU support"
              : " (check the driver and "
                "HIP_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES)");
    } else {
      std::vector<std::string> list;
      for (const auto& g : backend.gpus) list.push_back(fmt::format("{}: {}", g.index, g.name));
      seen =
          fmt::format("This LibTorch ({} build) sees {} GPU{}: {}. Valid values: device=0{}",
                      backend.flavour_name(), count, count == 1 ? "" : "s", fmt::join(list, "; "),
                      count > 1 ? fmt::format(" … device={}", count - 1) : std::string());
    }
    throw DeviceError(fmt::format("device='{}' requests GPU {}, which does not exist. {}",
                                  request.text, index, seen));
  }
  out.is_gpu = true;
  out.gpu_indices = request.gpu_indices;
  return out;
}

SelectedDevice select_device(std::string_view text) {
  DeviceRequest request = parse_device(text);  // reject bad strings before touching the GPU
  return resolve_device(request, query_backend());
}

}  // namespace yolo
