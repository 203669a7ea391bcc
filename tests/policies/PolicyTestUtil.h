#pragma once
// Helpers shared by the policy tests: traces, a filter over keys, and running
// a trace through CacheSimulator.

#include <cstdint>
#include <random>
#include <unordered_set>
#include <vector>

#include "policies/CacheSimulator.h"
#include "policies/ReplacementPolicy.h"

namespace tierlab::policytest {

// The textbook page-reference string of Belady's anomaly.
inline std::vector<LineKey> BeladyTrace() {
  return {1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5};
}

// Skewed random keys in [0, range): small keys are much more popular.
inline std::vector<LineKey> SkewedTrace(std::size_t n, std::uint64_t range, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<LineKey> t;
  t.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = u(rng);
    t.push_back(static_cast<LineKey>(static_cast<double>(range) * x * x * x));
  }
  return t;
}

struct TraceResult {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::vector<bool> hit;  // per access
};

inline TraceResult RunTrace(CacheSimulator& sim, const std::vector<LineKey>& trace) {
  TraceResult r;
  for (LineKey k : trace) {
    const bool h = sim.Access(k) == CacheSimulator::Outcome::kHit;
    r.hit.push_back(h);
    (h ? r.hits : r.misses)++;
  }
  return r;
}

inline TraceResult RunTrace(ReplacementPolicy& policy, std::size_t capacity,
                            const std::vector<LineKey>& trace) {
  CacheSimulator sim(&policy, capacity);
  return RunTrace(sim, trace);
}

// A filter that rejects slots whose key is in `pinned`.
struct KeyFilter {
  const CacheSimulator* sim = nullptr;
  std::unordered_set<LineKey> pinned;

  static bool Accept(void* ctx, Slot s) {
    auto* self = static_cast<KeyFilter*>(ctx);
    const auto key = self->sim->KeyOf(s);
    return key && self->pinned.count(*key) == 0;
  }
  EvictFilter Filter() { return EvictFilter{&KeyFilter::Accept, this}; }
};

}  // namespace tierlab::policytest
