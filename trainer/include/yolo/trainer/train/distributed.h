// Data-parallel training on PyTorch's own distributed engine (c10d): one process per device,
// gradients all-reduced after each accumulation step, rank 0 validating and saving.
//
// Processes find each other through torchrun's variables -- RANK, LOCAL_RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT -- so several machines can train together (start one
// `yolo-trainer train ...` per process with those set, e.g. by torchrun or a scheduler). On one
// machine `device=0,1` (GPUs) or `device=cpu world=2` (CPU, for testing) starts the worker
// processes itself. GPUs use ProcessGroupNCCL (RCCL under ROCm) when LibTorch was built with it,
// else Gloo; CPUs use Gloo.
#pragma once

#include <torch/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace yolo {

struct DistributedEnv {
  int rank = -1;  // -1: not a distributed worker
  int local_rank = -1;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  bool active() const { return rank >= 0 && world_size > 1; }
  bool is_main() const { return rank <= 0; }
};

// Reads the torchrun variables; an unset RANK means a single process. Throws
// std::invalid_argument naming a malformed variable (non-numeric, rank >= world size).
DistributedEnv distributed_env_from_environment();

// A process group for one worker (RAII: destroyed with the trainer). Collectives block until
// every rank joins, up to `timeout`.
class ProcessGroup {
 public:
  ProcessGroup(const DistributedEnv& env, const c10::Device& device,
               std::chrono::milliseconds timeout = std::chrono::minutes(30));
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int world_size() const { return world_; }
  const std::string& backend() const { return backend_; }

  // Averages the gradients of these parameters over the ranks (one flattened buffer).
  void average_gradients(const std::vector<torch::Tensor>& params);
  // Copies rank `root`'s values of these tensors to every rank (in place).
  void broadcast(const std::vector<torch::Tensor>& tensors, int root = 0);
  // Sum of a number over the ranks.
  double sum(double value);
  // True on every rank when it is true on any rank (stop requests, early stopping).
  bool any(bool flag) { return sum(flag ? 1.0 : 0.0) > 0; }
  void barrier();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rank_, world_;
  std::string backend_;
  c10::Device device_;
};

// Starts `world` copies of this program (/proc/self/exe) with `args` and the torchrun variables
// (MASTER_ADDR 127.0.0.1, a free MASTER_PORT), forwards SIGINT/SIGTERM to them, and waits. If one
// fails, the others are stopped. Returns 0 when every worker succeeded, else the first failure's
// exit code.
int launch_local_workers(const std::vector<std::string>& args, int world);

// A free TCP port on 127.0.0.1 (bound and released).
int free_local_port();

}  // namespace yolo
