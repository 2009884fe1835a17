// Random helpers for the generator. Our own uniform draws on top of std::mt19937_64 rather than
// std::uniform_*_distribution, whose output differs between standard libraries: the same seed
// must give the same dataset wherever it is built.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace yolo::synth {

// SplitMix64 finaliser: turns structured seeds (seed, stream, index) into well-spread ones.
inline uint64_t mix_seed(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Independent streams per (seed, stream, index): stream separates train, val and video.
inline uint64_t stream_seed(uint64_t seed, uint64_t stream, uint64_t index) {
  return mix_seed(mix_seed(mix_seed(seed) ^ stream) ^ index);
}

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}

  uint64_t next() { return engine_(); }
  // Uniform in [0, 1), 53 random bits.
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  // Uniform integer in [lo, hi] (inclusive); the tiny modulo bias is irrelevant here.
  int uniform_int(int lo, int hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<int>(engine_() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool chance(double p) { return unit() < p; }
  // Log-uniform in [lo, hi], lo > 0: sizes spread evenly over scales.
  double log_uniform(double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace yolo::synth
