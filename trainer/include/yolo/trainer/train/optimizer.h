// Optimisers of the trainer: SGD (Nesterov), Adam, AdamW and MuSGD (Muon's orthogonalised update
// for >= 2-D weights combined with SGD; Ultralytics' optim/muon.py), over Ultralytics' parameter
// groups (decayed weights, BatchNorm weights, biases, and with MuSGD the muon group).
//
// Why not torch::optim: LibTorch 1.13 has no MuSGD, and the trainer changes every group's lr and
// momentum each warm-up iteration and must save and restore the whole state by parameter name
// for resume and DDP. One small implementation of the four update rules keeps that uniform.
#pragma once

#include <torch/types.h>

#include <map>
#include <string>
#include <vector>

namespace torch::nn {
class Module;
}

namespace yolo {

enum class OptimizerKind { kSGD, kAdam, kAdamW, kMuSGD };

// "SGD", "Adam", "AdamW", "MuSGD" (case-insensitive) -> kind; throws std::invalid_argument
// listing the supported names otherwise.
OptimizerKind parse_optimizer_kind(const std::string& name);
std::string optimizer_name(OptimizerKind kind);

struct ParamGroup {
  std::string name;  // "weight", "bn", "bias", "muon"; "+cls" suffix: the head's class branch
  std::vector<std::string> param_names;
  std::vector<torch::Tensor> params;
  double lr = 0.01;          // current learning rate (set every iteration by the schedule)
  double initial_lr = 0.01;  // the schedule's base value for this group
  double momentum = 0.937;   // SGD momentum / Adam beta1
  double weight_decay = 0;
  bool use_muon = false;
};

struct OptimizerSettings {
  double beta2 = 0.999, eps = 1e-8;  // Adam family
  double muon_scale = 0.2;           // MuSGD: weight of the Muon update
  double sgd_scale = 1.0;            // MuSGD: weight of the SGD update in the muon group
  int newton_schulz_steps = 5;
};

// The optimiser `optimizer=auto` picks (Ultralytics 8.4.14): MuSGD (lr 0.01, momentum 0.9) for
// more than 10,000 iterations, else AdamW with lr round(0.002 * 5 / (4 + nc), 6), momentum 0.9.
struct AutoChoice {
  OptimizerKind kind;
  double lr, momentum;
};
AutoChoice auto_optimizer(int64_t iterations, int64_t nc);

// Ultralytics' build_optimizer grouping of the trainable parameters of `model`: with MuSGD all
// >= 2-D parameters form the muon group; otherwise biases -> "bias", BatchNorm weights -> "bn",
// everything else -> "weight" (decayed). With MuSGD every group is split again: parameters of
// the detect head's class branch at layer index 23 ("23" and "cv3" in the name) get lr x 3.
std::vector<ParamGroup> make_param_groups(const torch::nn::Module& model, OptimizerKind kind,
                                          double lr, double momentum, double weight_decay);

class Optimizer {
 public:
  Optimizer(OptimizerKind kind, std::vector<ParamGroup> groups, OptimizerSettings settings = {});

  void zero_grad();
  void step();

  OptimizerKind kind() const { return kind_; }
  std::vector<ParamGroup>& groups() { return groups_; }
  const std::vector<ParamGroup>& groups() const { return groups_; }
  // Whether the groups' momentum is warmed up (SGD family; Adam keeps its betas).
  bool has_momentum() const {
    return kind_ == OptimizerKind::kSGD || kind_ == OptimizerKind::kMuSGD;
  }

  // Per-parameter state by "<param name>/<slot>" (momentum buffers, Adam moments, step counts)
  // and the groups' hyperparameters, for checkpoints; load_state throws std::runtime_error when
  // the state does not fit these groups.
  std::map<std::string, torch::Tensor> state() const;
  void load_state(const std::map<std::string, torch::Tensor>& state);

 private:
  struct Slot {
    torch::Tensor momentum;  // SGD buffer / Adam exp_avg
    torch::Tensor second;    // Adam exp_avg_sq / MuSGD's Muon momentum
    int64_t steps = 0;
  };
  void sgd_update(ParamGroup& g, torch::Tensor& p, Slot& s, double scale);
  void adam_update(ParamGroup& g, torch::Tensor& p, Slot& s);
  void muon_update(ParamGroup& g, torch::Tensor& p, Slot& s);

  OptimizerKind kind_;
  std::vector<ParamGroup> groups_;
  OptimizerSettings settings_;
  std::vector<std::vector<Slot>> slots_;  // [group][param]
};

// Muon's quintic Newton-Schulz iteration: an approximately orthogonal matrix with the row/column
// space of `g` (2-D). bfloat16 on GPUs as Ultralytics does; float32 on the CPU, where bfloat16
// matrix products are slow and no more faithful.
torch::Tensor newton_schulz_orthogonalize(const torch::Tensor& g, int steps = 5);

}  // namespace yolo
