#include "cpu_conv_fusion.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/subgraph_matcher.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/subgraph_rewrite.h>
#include <torch/csrc/jit/runtime/interpreter.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "yolo/core/device.h"

namespace yolo {
namespace {

using torch::jit::Match;
using torch::jit::Value;
using ValueMap = std::unordered_map<std::string, Value*>;

constexpr const char* kFusedOp = "mkldnn::_convolution_pointwise";
// The reorder that torch.compile's freezing runs on a convolution's weight, and the graph node
// that holds an opaque oneDNN tensor (optimize_for_inference's; prim::Constant cannot).
constexpr const char* kReorderWeight = "mkldnn::_reorder_convolution_weight";
constexpr const char* kOneDnnConstant = "prim::ConstantMKLDNNTensor";

// The two spellings of a 2-D convolution in TorchScript graphs: traced models (Ultralytics'
// exports and ours) have aten::_convolution, scripted ones aten::conv2d.
const char* kConvolution = R"(
  %y = aten::_convolution(%x, %w, %b, %stride, %padding, %dilation, %transposed, %out_pad, %groups, %benchmark, %deterministic, %cudnn, %tf32))";
const char* kConvolutionArgs =
    "%x, %w, %b, %stride, %padding, %dilation, %transposed, %out_pad, %groups, %benchmark, "
    "%deterministic, %cudnn, %tf32";
const char* kConv2d = R"(
  %y = aten::conv2d(%x, %w, %b, %stride, %padding, %dilation, %groups))";
const char* kConv2dArgs = "%x, %w, %b, %stride, %padding, %dilation, %groups";

std::string pattern(const char* args, const char* conv, bool silu) {
  return std::string("graph(") + args + "):" + conv +
         (silu ? "\n  %r = aten::silu(%y)\n  return (%r)" : "\n  return (%y)");
}

std::string replacement(const char* args, bool silu, bool bf16) {
  std::string g = std::string("graph(") + args + "):\n" +
                  "  %attr : str = prim::Constant[value=\"" + (silu ? "swish" : "none") +
                  "\"]()\n" + "  %none : NoneType = prim::Constant()\n" +
                  "  %scalars : Scalar?[] = prim::ListConstruct()\n";
  std::string input = "%x";
  if (bf16) {
    g += "  %bf16 : int = prim::Constant[value=" + std::to_string(static_cast<int>(at::kBFloat16)) +
         "]()\n"
         "  %false : bool = prim::Constant[value=0]()\n"
         "  %xb = aten::to(%x, %bf16, %false, %false, %none)\n";
    input = "%xb";
  }
  return g + "  %r = " + kFusedOp + "(" + input +
         ", %w, %b, %padding, %stride, %dilation, %groups, %attr, %scalars, %none)\n"
         "  return (%r)";
}

std::optional<c10::IValue> constant(const Match& match, const ValueMap& vmap, const char* name) {
  return torch::jit::toIValue(match.values_map.at(vmap.at(name)));
}

bool is_4d_cpu_tensor(const std::optional<c10::IValue>& v) {
  return v && v->isTensor() && v->toTensor().dim() == 4 && v->toTensor().device().is_cpu();
}

// What the fused op takes: a constant 4-D CPU weight, a constant or absent bias, integer lists
// for stride, padding and dilation (not conv2d's padding="same"), and no transposition.
bool fusable(const Match& match, const ValueMap& vmap) {
  if (!is_4d_cpu_tensor(constant(match, vmap, "w"))) return false;
  const auto b = constant(match, vmap, "b");
  if (!b || !(b->isNone() || b->isTensor())) return false;
  for (const char* list : {"stride", "padding", "dilation"}) {
    const auto v = constant(match, vmap, list);
    if (!v || !v->isIntList()) return false;
  }
  const auto groups = constant(match, vmap, "groups");
  if (!groups || !groups->isInt()) return false;
  if (vmap.count("transposed")) {
    const auto t = constant(match, vmap, "transposed");
    if (!t || !t->isBool() || t->toBool()) return false;
  }
  // With a SiLU (%r), it must be the convolution's only user, or the plain output is still needed.
  return vmap.count("r") == 0 || match.values_map.at(vmap.at("y"))->uses().size() == 1;
}

int count_nodes(const torch::jit::Graph& graph, const char* kind) {
  const c10::Symbol symbol = c10::Symbol::fromQualString(kind);
  int n = 0;
  for (const torch::jit::Node* node : graph.nodes()) n += node->kind() == symbol ? 1 : 0;
  return n;
}

// Weights and biases of the fused convolutions as BF16 constants.
void constants_to_bf16(torch::jit::Graph& graph) {
  const c10::Symbol fused = c10::Symbol::fromQualString(kFusedOp);
  for (torch::jit::Node* node : graph.nodes()) {
    if (node->kind() != fused) continue;
    for (size_t i : {1, 2}) {
      const auto v = torch::jit::toIValue(node->input(i));
      if (!v || !v->isTensor()) continue;
      torch::jit::WithInsertPoint guard(node);
      node->replaceInput(i, graph.insertConstant(v->toTensor().to(at::kBFloat16)));
    }
  }
}

std::optional<c10::OperatorHandle> reorder_weight_op() {
  return c10::Dispatcher::singleton().findSchema({kReorderWeight, ""});
}

// The fused convolutions whose weight is still a plain constant, in graph order.
std::vector<torch::jit::Node*> unpacked_convolutions(torch::jit::Graph& graph) {
  const c10::Symbol op = c10::Symbol::fromQualString(kFusedOp);
  std::vector<torch::jit::Node*> convs;
  for (torch::jit::Node* node : graph.nodes()) {
    if (node->kind() == op && node->input(1)->node()->kind() == torch::jit::prim::Constant)
      convs.push_back(node);
  }
  return convs;
}

// The input size each of those convolutions sees when `module` runs on `example`, found by
// running a copy of the graph that also returns them.
std::vector<c10::IValue> convolution_input_sizes(const torch::jit::Module& module,
                                                 const at::Tensor& example) {
  std::shared_ptr<torch::jit::Graph> probe = module.get_method("forward").graph()->copy();
  const size_t outputs = probe->outputs().size();
  for (torch::jit::Node* conv : unpacked_convolutions(*probe)) {
    torch::jit::WithInsertPoint guard(conv);
    probe->registerOutput(probe->insert(torch::jit::aten::size, {conv->input(0)}));
  }
  torch::jit::Stack stack{module._ivalue(), example};
  c10::InferenceMode inference;
  torch::jit::InterpreterState(torch::jit::Code(probe, "convolution_input_sizes")).run(stack);
  return {stack.begin() + static_cast<std::ptrdiff_t>(outputs), stack.end()};
}

// The weight in the blocked layout oneDNN's kernel reads for this input size, as the op would
// reorder it on every call. The layout depends on the input size (oneDNN picks the kernel by
// it): without one, 8 % of yolo26n's time at 320 px went on reorders that remained.
at::Tensor packed_weight(const c10::OperatorHandle& reorder, const torch::jit::Node& conv,
                         const c10::IValue& input_size) {
  torch::jit::Stack stack{*torch::jit::toIValue(conv.input(1)),  // weight
                          *torch::jit::toIValue(conv.input(3)),  // padding
                          *torch::jit::toIValue(conv.input(4)),  // stride
                          *torch::jit::toIValue(conv.input(5)),  // dilation
                          *torch::jit::toIValue(conv.input(6)),  // groups
                          input_size};
  reorder.callBoxed(stack);
  return stack.at(0).toTensor();
}

}  // namespace

int prepack_cpu_convolution_weights(torch::jit::Module& fused, const at::Tensor& example) {
  const std::optional<c10::OperatorHandle> reorder = reorder_weight_op();
  if (!reorder) return 0;
  const std::vector<c10::IValue> sizes = convolution_input_sizes(fused, example);
  std::shared_ptr<torch::jit::Graph> graph = fused.get_method("forward").graph();
  const std::vector<torch::jit::Node*> convs = unpacked_convolutions(*graph);
  TORCH_CHECK(sizes.size() == convs.size(), "found ", sizes.size(), " convolution inputs for ",
              convs.size(), " convolutions");
  const c10::Symbol holder = c10::Symbol::fromQualString(kOneDnnConstant);
  for (size_t i = 0; i < convs.size(); ++i) {
    torch::jit::Node* constant = graph->create(holder);
    constant->t_(torch::jit::attr::value, packed_weight(*reorder, *convs[i], sizes[i]));
    constant->insertBefore(convs[i]);
    convs[i]->replaceInput(1, constant->output());
  }
  torch::jit::EliminateDeadCode(graph);
  return static_cast<int>(convs.size());
}

bool bf16_without_autocast(const torch::jit::Module& fused) {
  // The ops autocast casts to BF16 on the CPU that take weights.
  static const std::unordered_set<std::string> kWeighted = {"aten::_convolution",
                                                            "aten::conv1d",
                                                            "aten::conv2d",
                                                            "aten::conv3d",
                                                            "aten::conv_transpose1d",
                                                            "aten::conv_transpose2d",
                                                            "aten::conv_transpose3d",
                                                            "aten::linear",
                                                            "aten::matmul",
                                                            "aten::mm",
                                                            "aten::bmm",
                                                            "aten::addmm",
                                                            "aten::baddbmm",
                                                            "aten::addbmm",
                                                            "aten::prelu"};
  const auto is_constant_tensor = [](const torch::jit::Value* v) {
    return v->node()->kind() == torch::jit::prim::Constant &&
           v->type()->cast<c10::TensorType>() != nullptr;
  };
  for (const torch::jit::Node* node : fused.get_method("forward").graph()->nodes()) {
    if (kWeighted.count(node->kind().toQualString()) &&
        std::any_of(node->inputs().begin(), node->inputs().end(), is_constant_tensor))
      return false;
  }
  return true;
}

bool cpu_conv_fusion_available() {
  return has_onednn_fused_conv();
}

CpuConvFusion fuse_cpu_convolutions(torch::jit::Module& frozen, bool bf16) {
  CpuConvFusion report;
  if (!cpu_conv_fusion_available()) return report;
  std::shared_ptr<torch::jit::Graph> graph = frozen.get_method("forward").graph();
  const auto rewrite = [&](bool silu) {
    const int before = count_nodes(*graph, kFusedOp);
    for (const auto& [args, conv] :
         {std::pair{kConvolutionArgs, kConvolution}, std::pair{kConv2dArgs, kConv2d}}) {
      torch::jit::SubgraphRewriter rewriter;
      rewriter.RegisterRewritePattern(pattern(args, conv, silu), replacement(args, silu, bf16));
      rewriter.runOnGraph(graph, fusable);
    }
    return count_nodes(*graph, kFusedOp) - before;
  };
  report.with_silu = rewrite(true);  // first, so that the plain pattern does not take their convs
  report.plain = rewrite(false);
  if (bf16) constants_to_bf16(*graph);
  torch::jit::EliminateDeadCode(graph);
  return report;
}

}  // namespace yolo
