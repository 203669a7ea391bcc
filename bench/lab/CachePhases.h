#pragma once
// The phases of a run as a cache's own counters show them (issue 17 item 3;
// docs/METHODOLOGY.md, "Phases"): each round of the run (the steady-state
// interval, or a twentieth of the run) is named by what the cache did in it,
// and consecutive rounds of one name are one phase:
//
//   throttled   writes waited for destage to free space: the write cache
//               is full and the run is bound by destage to capacity
//   absorbing   no write waited and dirty lines grew, by more than 1 % of
//               the cache or with no destage at all: the write cache takes
//               writes faster than it drains them, or without draining, and
//               will fill (what is measured then is not sustained)
//   destaging   destage wrote back, dirty lines stayed within 1 % of the
//               cache: destage keeps up with the writes (equilibrium)
//   warming     read misses promoted lines for more than 1 % of the reads:
//               the read cache is still filling
//   steady      none of these
//
// checked in that order (the first that holds names the round). The 1 %
// bounds are tierlab's choice: a cache that changes by less per round is at
// the resolution of a round. Rounds are classified from counter deltas and
// the dirty level, so the phases need no model of their own.
//
// Threading: none; a value type fed by the runner's round hook.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cachedev/CacheStats.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

// A round's name from the cache's counters at its start and end.
std::string ClassifyCacheRound(const CacheStats& before, const CacheStats& after);

class CachePhases {
 public:
  // Starts the first round at `now` with the cache's counters.
  CachePhases(Nanos now, const CacheStats& stats) : start_(now), last_(stats) {}
  // Ends a round at `now`.
  void Round(Nanos now, const CacheStats& stats);
  // [{"phase", "start_s", "end_s", "rounds"}], times from `origin`.
  nlohmann::json Json(Nanos origin) const;

  struct Phase {
    std::string name;
    Nanos start = 0, end = 0;
    std::uint32_t rounds = 0;
  };
  const std::vector<Phase>& phases() const { return phases_; }
  // In the last round ended, no write waited and dirty lines grew at a
  // pace that fills the cache within kFillHorizonRounds more rounds (the
  // round may be `absorbing`, or `destaging` with destage falling behind by
  // less than 1 % a round): rounds that look alike then are not its steady
  // state. (A slower rise, such as the last lines of a
  // working set that fits being dirtied, is left to the criterion.)
  static constexpr double kFillHorizonRounds = 100;
  bool filling() const { return filling_; }

 private:
  Nanos start_;
  CacheStats last_;
  std::vector<Phase> phases_;
  bool filling_ = false;
};

}  // namespace tierlab
