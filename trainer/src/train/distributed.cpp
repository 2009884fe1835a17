#include "yolo/trainer/train/distributed.h"

#include "yolo/core/stop_signal.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <torch/version.h>
#include <unistd.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <stdexcept>
#include <thread>

#if defined(YOLO_WITH_NCCL)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace yolo {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v, &end, 10);
  if (errno != 0 || *end != '\0' || x < 0 || x > 1 << 20)
    throw std::invalid_argument(
        fmt::format("environment variable {}='{}' is not a non-negative integer", name, v));
  return static_cast<int>(x);
}

}  // namespace

DistributedEnv distributed_env_from_environment() {
  DistributedEnv env;
  env.rank = env_int("RANK", -1);
  if (env.rank < 0) return env;
  env.world_size = env_int("WORLD_SIZE", 1);
  env.local_rank = env_int("LOCAL_RANK", env.rank);
  env.master_port = env_int("MASTER_PORT", 29500);
  if (const char* a = std::getenv("MASTER_ADDR"); a && *a) env.master_addr = a;
  if (env.rank >= env.world_size)
    throw std::invalid_argument(
        fmt::format("RANK={} must be smaller than WORLD_SIZE={}", env.rank, env.world_size));
  if (env.master_port < 1 || env.master_port > 65535)
    throw std::invalid_argument(fmt::format("MASTER_PORT={} is not a TCP port", env.master_port));
  return env;
}

// LibTorch 2.x: Gloo and NCCL are c10d::Backend implementations (ProcessGroup became the
// dispatcher above them); in 1.13 they derive from ProcessGroup. Both offer the collectives used
// here (allreduce, broadcast, barrier) with the same signatures.
#if TORCH_VERSION_MAJOR >= 2
using CollectiveBackend = c10d::Backend;
#else
using CollectiveBackend = c10d::ProcessGroup;
#endif

struct ProcessGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<CollectiveBackend> group;
};

ProcessGroup::ProcessGroup(const DistributedEnv& env, const c10::Device& device,
                           std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>()), rank_(env.rank), world_(env.world_size), device_(device) {
  c10d::TCPStoreOptions so;
  so.port = static_cast<std::uint16_t>(env.master_port);
  so.isServer = env.rank == 0;
  so.numWorkers = static_cast<std::size_t>(env.world_size);
  so.timeout = timeout;
  try {
    impl_->store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, so);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format(
        "rank {}: cannot reach the rendezvous at {}:{} ({}); check MASTER_ADDR/MASTER_PORT and "
        "that rank 0 is running",
        env.rank, env.master_addr, env.master_port, e.what()));
  }
#if defined(YOLO_WITH_NCCL)
  if (device.is_cuda()) {
    auto opts = c10d::ProcessGroupNCCL::Options::create();
    opts->timeout = timeout;
    impl_->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(impl_->store, rank_, world_, opts);
    backend_ = "nccl";
    return;
  }
#endif
  auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
  // Loopback for single-machine runs; the master's address family otherwise.
  opts->devices.push_back(env.master_addr == "127.0.0.1" || env.master_addr == "localhost"
                              ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                              : c10d::ProcessGroupGloo::createDefaultDevice());
  impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, rank_, world_, opts);
  backend_ = "gloo";
  if (device.is_cuda())
    spdlog::warn(
        "this LibTorch has no NCCL/RCCL process group; GPU gradients go through Gloo "
        "(slower)");
}

ProcessGroup::~ProcessGroup() = default;

void ProcessGroup::average_gradients(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> grads;
  for (const auto& p : params)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return;
  torch::NoGradGuard no_grad;
  // One flattened buffer: one collective per step instead of one per tensor.
  std::vector<torch::Tensor> flat{torch::cat(
      [&] {
        std::vector<torch::Tensor> v;
        for (const auto& g : grads) v.push_back(g.reshape({-1}).to(torch::kFloat));
        return v;
      }(),
      0)};
  impl_->group->allreduce(flat)->wait();
  flat[0].div_(world_);
  int64_t offset = 0;
  for (auto& g : grads) {
    const int64_t n = g.numel();
    g.copy_(flat[0].slice(0, offset, offset + n).view_as(g));
    offset += n;
  }
}

void ProcessGroup::broadcast(const std::vector<torch::Tensor>& tensors, int root) {
  torch::NoGradGuard no_grad;
  c10d::BroadcastOptions opts;
  opts.rootRank = root;
  for (const auto& t : tensors) {
    std::vector<torch::Tensor> one{t.is_contiguous() ? t : t.contiguous()};
    impl_->group->broadcast(one, opts)->wait();
    if (!t.is_contiguous()) t.copy_(one[0]);
  }
}

double ProcessGroup::sum(double value) {
  std::vector<torch::Tensor> v{torch::tensor({value}, torch::kDouble).to(device_)};
  if (device_.is_cuda()) v[0] = v[0].to(torch::kFloat);  // NCCL reduces floats everywhere
  impl_->group->allreduce(v)->wait();
  return v[0].cpu().to(torch::kDouble).item<double>();
}

void ProcessGroup::barrier() {
  impl_->group->barrier()->wait();
}

int free_local_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("cannot open a socket to find a free port");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  if (port < 0) throw std::runtime_error("cannot find a free TCP port on 127.0.0.1");
  return port;
}

int launch_local_workers(const std::vector<std::string>& args, int world) {
  const int port = free_local_port();
  std::vector<pid_t> children;
  std::vector<std::atomic<bool>> done(static_cast<size_t>(world));
  for (auto& d : done) d = false;
  std::mutex children_mutex;
  // Every Ctrl-C / SIGTERM goes to the workers, which stop cleanly (or at once on a second one).
  StopSignalWatcher watcher(
      [&](int sig) {
        std::lock_guard<std::mutex> lock(children_mutex);
        for (size_t i = 0; i < children.size(); ++i)
          if (!done[i]) ::kill(children[i], sig);
      },
      /*exit_on_second=*/false);

  for (int rank = 0; rank < world; ++rank) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      std::lock_guard<std::mutex> lock(children_mutex);
      for (pid_t c : children) ::kill(c, SIGTERM);
      throw std::runtime_error(
          fmt::format("cannot start worker {}: {}", rank, std::strerror(errno)));
    }
    if (pid == 0) {
      // Own process group: a terminal's Ctrl-C reaches the launcher only, which forwards it
      // once (a worker treats a second signal as "quit now").
      ::setpgid(0, 0);
      ::setenv("RANK", std::to_string(rank).c_str(), 1);
      ::setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
      ::setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
      ::setenv("MASTER_ADDR", "127.0.0.1", 1);
      ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      std::vector<std::string> argv_s{"yolo-trainer"};
      argv_s.insert(argv_s.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : argv_s) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv("/proc/self/exe", argv.data());
      std::_Exit(127);
    }
    std::lock_guard<std::mutex> lock(children_mutex);
    children.push_back(pid);
  }
  spdlog::info("DDP: started {} worker processes (rendezvous 127.0.0.1:{})", world, port);

  int first_failure = 0;
  size_t running = children.size();
  auto deadline_kill = std::chrono::steady_clock::time_point::max();
  while (running > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (size_t i = 0; i < children.size(); ++i) {
      if (done[i]) continue;
      int status = 0;
      if (::waitpid(children[i], &status, WNOHANG) != children[i]) continue;
      done[i] = true;
      --running;
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      if (code != 0 && first_failure == 0) {
        first_failure = code;
        spdlog::error("DDP: worker {} failed (exit {}); stopping the others", i, code);
        for (size_t j = 0; j < children.size(); ++j)
          if (!done[j]) ::kill(children[j], SIGTERM);
        deadline_kill = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      }
    }
    if (std::chrono::steady_clock::now() > deadline_kill) {
      for (size_t j = 0; j < children.size(); ++j)
        if (!done[j]) ::kill(children[j], SIGKILL);
      deadline_kill = std::chrono::steady_clock::time_point::max();
    }
  }
  return first_failure;
}

}  // namespace yolo
