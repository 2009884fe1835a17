// Delays between retries of something that fails (a stream's rebuild, an MQTT reconnection):
// capped exponential with jitter.
//
//   attempt n (0-based) waits  base(n) = min(max, initial * 2^n)
//   drawn uniformly from       [base(n) * (1 - jitter), base(n)]
// Jitter only shortens a delay, so the cap holds exactly and cameras that failed together (a
// switch reboot) do not all reconnect in the same instant. reset() after a success starts
// again from `initial`. Not thread-safe: one per retrying thread.
#pragma once

#include <chrono>
#include <functional>

namespace yolo {

struct BackoffOptions {
  std::chrono::milliseconds initial{1000};  // first delay (> 0)
  std::chrono::milliseconds max{30000};     // cap (>= initial)
  double jitter = 0.2;                      // 0..1, fraction a delay may be shortened by
};

class Backoff {
 public:
  // Uniform in [0, 1). Tests inject a fixed sequence; the default is a seeded std::mt19937.
  using RandomSource = std::function<double()>;

  // Throws std::invalid_argument for options outside the ranges above.
  explicit Backoff(BackoffOptions options, RandomSource random = {});

  // The delay before the next attempt; each call counts one attempt.
  std::chrono::milliseconds next();
  // After a success: the next delay is `initial` again.
  void reset() { attempts_ = 0; }
  // Calls of next() since construction or the last reset().
  int attempts() const { return attempts_; }

 private:
  BackoffOptions options_;
  RandomSource random_;
  int attempts_ = 0;
};

}  // namespace yolo
