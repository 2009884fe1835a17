// Keeping LibTorch's CPU worker threads to the one thread that runs the model.
//
// With LibTorch's OpenMP backend every thread that runs a parallel op gets OpenMP worker threads
// of its own, which live as long as that thread. Once a process holds more of them than there are
// cores, libgomp stops letting idle workers spin between ops and parks them at once, and the
// model's thread then waits to wake its worker at every op: on a 2-core CPU one forward took
// 21 ms instead of 11 ms when another thread (the one that had loaded the model) kept its
// workers. So: threads that only do light tensor work (a frame's preprocessing, NMS, making a
// training batch) run their ops serially (SerialTorchOps), and work that needs the cores but
// happens once on a long-lived thread (loading a model) runs on a thread of its own, whose
// workers end with it (run_on_own_thread).
#pragma once

#include <future>
#include <type_traits>
#include <utility>

namespace yolo {

// While it lives, LibTorch ops called on this thread run on this thread alone. A no-op where
// LibTorch's intra-op backend is not OpenMP (its shared native pool does not multiply this way).
class SerialTorchOps {
 public:
  SerialTorchOps();
  ~SerialTorchOps();
  SerialTorchOps(const SerialTorchOps&) = delete;
  SerialTorchOps& operator=(const SerialTorchOps&) = delete;

  // Whether this thread's ops are serial now (false: the backend has no per-thread setting).
  bool active() const { return restore_ > 0; }

 private:
  int restore_ = 0;  // this thread's OpenMP thread count before; 0: nothing was changed
};

// Runs `fn` on a new thread, waits for it, and returns its result or rethrows its exception.
template <typename Fn>
auto run_on_own_thread(Fn&& fn) -> std::invoke_result_t<Fn> {
  return std::async(std::launch::async, std::forward<Fn>(fn)).get();
}

}  // namespace yolo
