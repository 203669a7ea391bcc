#pragma once
// Fast warm-up (the profile's `warmup=fast`; docs/METHODOLOGY.md): before
// the timed run, the jobs' own request streams drive the stack's state with
// no timing (BlockDevice::Warm), the way architectural simulators warm
// caches functionally before a detailed sample. A cache that would take
// 15 simulated minutes (and as many wall minutes) to fill is filled in the
// time it takes to look its lines up; the timed ramp that follows lets the
// queues settle.
//
// Streams: each job's JobStream, built as the runner builds it (same
// profile, files and seeds), so warm-up sees the requests the timed run
// would have seen from its start. Jobs take one request each in turn, as
// jobs running at equal rates would; end-of-job conditions do not apply (a
// stream wraps at its region's end). The timed run then continues each
// job's stream where warm-up left it (SectionWork::streams), as a job goes
// on after fio's ramp_time: had it started its stream afresh, it would
// replay the very requests that warmed the cache, and a skewed or large
// working set would hit on blocks its real continuation has not touched
// yet. The exception is a job that ends after one pass (not time_based)
// whose stream completed a pass in warm-up: it starts afresh, to do its
// whole pass.
//
// Windows: `window` accesses each, W = the blocks of the jobs' regions
// together (their union, in the smallest block size), clamped to
// [kMinWindow, kMaxWindow] (256 Ki to 4 Mi): about one access per block,
// the time constant of a cache filling under uniform random access; capped
// at 4 Mi accesses, the lines of a 16 GiB cache of 4 KiB lines, since a
// region far larger than the cache turns over the cache, not the region,
// in a window. After each window the
// stack settles (BlockDevice::WarmSettle: pending fills land, tiers run
// their migration passes). Converged when the lines and extents placed in a
// window no longer clearly differ from those of the window before:
//   |p[k-1] - p[k]| <= max(kRelativeDrop * p[k-1], 3 * sqrt(p[k-1] + p[k]))
// (the change is within 5 %, or within three standard deviations of two
// Poisson counts), or p[k] = 0. A rise counts as a change: destage starting
// at the high watermark makes room for new placements. A working set that fits the cache converges
// when new lines stop arriving; one that does not, when promotions and
// evictions reach their steady rate. Capped at kMaxWindows windows: a state
// that still moves by then (a zipf tail in a cache larger than the region
// keeps finding new lines for hours) is reported as not converged.
//
// Fill pass: a read cache whose working set fits holds, after a long run,
// every block the jobs can touch (each has a chance each access), yet a
// skewed stream takes hours to visit its cold blocks (VMFleet's General
// mix sends 1% of its reads to 85% of the region: after 10 M accesses
// nine cold lines in ten are still missing, where a 30-minute warm-up has
// them all). So when the union of the jobs' regions fits in `fill_within`
// bytes (the read cache's capacity; 0: no fill), warm-up first reads it
// once, sequentially, functionally, and the windows that follow order the
// lines by the stream's own recency and frequency.
//
// On a cluster (SectionWork::clients) every job's requests, and its part of
// the fill, go through its own client's view, as its timed requests will:
// a read warms the node it reads from, not the first client's.
//
// Only on stacks that do not RequiresData() (the contract of Warm): a
// volume with data is warmed by running, and FunctionalWarmup says so.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/lab/Runner.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct WarmupResult {
  static constexpr std::uint64_t kMinWindow = std::uint64_t{1} << 18;
  static constexpr std::uint64_t kMaxWindow = std::uint64_t{1} << 22;
  static constexpr std::uint32_t kMaxWindows = 32;
  static constexpr double kRelativeDrop = 0.05;

  std::uint64_t window = 0;           // accesses per window
  std::uint64_t accesses = 0;         // in all
  std::vector<std::uint64_t> placed;  // lines and extents placed, per window
  std::uint64_t filled_bytes = 0;     // read by the fill pass (0: none)
  bool converged = false;
  // Set when no warm-up ran though one was asked for, and why.
  std::optional<std::string> skipped;

  // {"mode": "fast", "accesses", "window", "windows", "placed": [...],
  //  "converged"} or {"mode": "fast", "skipped": why}.
  nlohmann::json Json() const;
};

// The convergence test above, on two successive windows' placements.
bool WarmupConverged(std::uint64_t previous, std::uint64_t current);

// Warms `volume` with the jobs of the sections whose profile has
// warmup=fast; nullopt when none has. Errors: a job's stream that cannot be
// built (as RunSections would report it; exit code 2).
Expected<std::optional<WarmupResult>> FunctionalWarmup(BlockDevice& volume,
                                                       std::vector<SectionWork>& sections,
                                                       std::uint64_t fill_within = 0);

}  // namespace tierlab
