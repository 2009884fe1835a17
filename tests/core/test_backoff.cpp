// Backoff: doubling from initial to the cap, jitter only ever shortening a delay, reset after a
// success, and bad options refused.
#include <gtest/gtest.h>

#include <vector>

#include "yolo/core/backoff.h"

using namespace std::chrono_literals;
using yolo::Backoff;
using yolo::BackoffOptions;

namespace {

std::vector<long> delays(Backoff& b, int n) {
  std::vector<long> out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<long>(b.next().count()));
  return out;
}

}  // namespace

// With a random source at 0 the delays are the plain capped doubling.
TEST(Backoff, DoublesUpToTheCap) {
  Backoff b({100ms, 1000ms, 0.5}, [] { return 0.0; });
  EXPECT_EQ(delays(b, 7), (std::vector<long>{100, 200, 400, 800, 1000, 1000, 1000}));
  EXPECT_EQ(b.attempts(), 7);
}

// Jitter shortens by up to the fraction, never lengthens: the cap holds.
TEST(Backoff, JitterShortensWithinTheFraction) {
  Backoff low({100ms, 1000ms, 0.5}, [] { return 0.999999; });
  EXPECT_EQ(delays(low, 6), (std::vector<long>{50, 100, 200, 400, 500, 500}));
  Backoff half({1000ms, 1000ms, 0.2}, [] { return 0.5; });
  EXPECT_EQ(half.next(), 900ms);
  // The default random source stays inside [d * (1 - jitter), d].
  Backoff real({1000ms, 8000ms, 0.25});
  for (int i = 0; i < 3; ++i) real.next();  // 1, 2, 4 s: below the cap
  for (int i = 0; i < 200; ++i) {
    const auto d = real.next();
    EXPECT_GE(d, 6000ms);
    EXPECT_LE(d, 8000ms);
  }
}

// A sequence of draws is applied in order (the source is really consulted per delay).
TEST(Backoff, UsesTheInjectedSource) {
  std::vector<double> draws = {0.0, 1.0, 0.5};
  size_t i = 0;
  Backoff b({1000ms, 10000ms, 1.0}, [&] { return draws[i++ % draws.size()]; });
  EXPECT_EQ(delays(b, 3), (std::vector<long>{1000, 0, 2000}));
}

// reset() after a success starts over at initial.
TEST(Backoff, ResetStartsOver) {
  Backoff b({10ms, 80ms, 0}, {});
  delays(b, 5);
  b.reset();
  EXPECT_EQ(b.attempts(), 0);
  EXPECT_EQ(b.next(), 10ms);
  EXPECT_EQ(b.next(), 20ms);
}

// Many attempts do not overflow.
TEST(Backoff, ManyAttemptsStayAtTheCap) {
  Backoff b({1ms, 30000ms, 0}, {});
  for (int i = 0; i < 1000; ++i) b.next();
  EXPECT_EQ(b.next(), 30000ms);
}

TEST(Backoff, RefusesBadOptions) {
  EXPECT_THROW(Backoff(BackoffOptions{0ms, 10ms, 0}), std::invalid_argument);
  EXPECT_THROW(Backoff(BackoffOptions{20ms, 10ms, 0}), std::invalid_argument);
  EXPECT_THROW(Backoff(BackoffOptions{10ms, 10ms, 1.5}), std::invalid_argument);
  EXPECT_THROW(Backoff(BackoffOptions{10ms, 10ms, -0.1}), std::invalid_argument);
}
