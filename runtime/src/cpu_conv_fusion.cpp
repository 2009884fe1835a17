#include "cpu_conv_fusion.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/subgraph_matcher.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/subgraph_rewrite.h>

#include <string>
#include <unordered_map>

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

// The weight in the blocked layout oneDNN's convolution kernel reads, as the op would reorder it
// on every call. With no input size given, oneDNN picks the layout from the weight's shape and
// the convolution's parameters, which is what it picks for real inputs of any size here; where it
// would not, the op reorders from this layout as it did from the plain one, so the result holds.
at::Tensor packed_weight(const c10::OperatorHandle& reorder, const torch::jit::Node& conv) {
  torch::jit::Stack stack{*torch::jit::toIValue(conv.input(1)),  // weight
                          *torch::jit::toIValue(conv.input(3)),  // padding
                          *torch::jit::toIValue(conv.input(4)),  // stride
                          *torch::jit::toIValue(conv.input(5)),  // dilation
                          *torch::jit::toIValue(conv.input(6)),  // groups
                          c10::IValue()};                        // input size: none
  reorder.callBoxed(stack);
  return stack.at(0).toTensor();
}

}  // namespace

int prepack_cpu_convolution_weights(torch::jit::Module& fused) {
  const std::optional<c10::OperatorHandle> reorder = reorder_weight_op();
  if (!reorder) return 0;
  std::shared_ptr<torch::jit::Graph> graph = fused.get_method("forward").graph();
  const c10::Symbol op = c10::Symbol::fromQualString(kFusedOp);
  const c10::Symbol holder = c10::Symbol::fromQualString(kOneDnnConstant);
  int packed = 0;
  for (torch::jit::Node* conv : graph->nodes()) {
    if (conv->kind() != op || conv->input(1)->node()->kind() != torch::jit::prim::Constant)
      continue;
    torch::jit::Node* constant = graph->create(holder);
    constant->t_(torch::jit::attr::value, packed_weight(*reorder, *conv));
    constant->insertBefore(conv);
    conv->replaceInput(1, constant->output());
    ++packed;
  }
  torch::jit::EliminateDeadCode(graph);
  return packed;
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
