#pragma once
// Whether a log-structured tier is living on its free-segment reserve
// (LogStructuredTarget.h): the cleaner keeps a share of segments free, and
// writes faster than the cleaner can free segments are taken at the disks'
// sequential rate until that reserve is spent, then at the pace cleaning
// sustains. Rounds taken while it drains look steady and are not: on the
// nimble-hybrid example's log, 52k writes a second while 410 free segments
// lasted against about 18k sustained. Sampled round by round, like the
// cache phases (CachePhases.h), so the runner's steady-state check can wait
// (RunOptions::absorbing).
//
// Threading: none; fed by the runner's round hook on the engine thread.

#include <cstdint>
#include <vector>

#include "tiering/targets/LogStructuredTarget.h"

namespace tierlab {

class LogReserveWatch {
 public:
  // A round's fall in free segments that, kept up, spends what is left
  // within this many rounds counts as draining.
  static constexpr std::uint32_t kHorizonRounds = 100;

  explicit LogReserveWatch(std::vector<const LogStructuredTarget*> logs);
  // Samples the logs' free segments at the end of a round.
  void Round();
  // In the last round some log's free segments fell at a pace that would
  // spend them within kHorizonRounds.
  bool draining() const { return draining_; }

 private:
  std::vector<const LogStructuredTarget*> logs_;
  std::vector<std::uint32_t> last_;  // free segments at the last round; empty before the first
  bool draining_ = false;
};

}  // namespace tierlab
