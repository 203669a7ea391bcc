#pragma once
// Preparation (the profile's `precondition`; docs/METHODOLOGY.md): what a
// job's region holds before the job runs, as VMFleet's fixed-size VHDX
// files and HCIBench's ZERO/RANDOM prep leave a disk before it is measured.
//
//   fill        every block of each job region written once, sequentially,
//               in the largest power of two up to 1 MiB that divides the
//               region (fio's and the prep tools' large sequential writes)
//   random:SIZE SIZE bytes (default: the region's size) written at uniform
//               random offsets, in the job's write block size
//
// Regions: each distinct region (job offset and size, or file) of the
// sections that ask for it, once, in the sections' order.
//
// The state it leaves is the state writing the data leaves: in a write-back
// cache, each write allocates and dirties lines as the write path does and
// destage is taken to keep up (down to the low watermark once the high one
// is reached), so the cache ends holding what it would hold once destage
// had caught up with the writes; the capacity tier holds the rest; a tier
// target has mapped every written extent by its placement policy and, once
// settled, moved them by the heat the writes gave them; a flash device with
// a write cliff has used up that much of its burst.
//
// How: on a timing-only stack, functionally (BlockDevice::Warm, then
// WarmSettle): no engine time passes. On a stack with data (--real, or a
// simulation with data) the writes are real, run as one section per region
// through RunSections at iodepth 16, so every block holds data a read can
// return; then the engine runs on until the stack's background work has
// caught up (no request reached a device for 20 ms and none is in flight
// below the volume, at most 60 s), so the
// job starts from the same state as on a timing-only stack rather than in
// the middle of the fill's destage.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "bench/lab/Runner.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/Engine.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct PreparationResult {
  bool functional = false;    // Warm (no time), or real writes
  std::uint64_t regions = 0;  // distinct regions prepared
  std::uint64_t bytes = 0;    // written in all
  std::uint64_t writes = 0;   // requests
  Nanos elapsed = 0;          // engine time the real writes and the settling took (0 if functional)
  Nanos settle = 0;           // of which waiting for the stack to catch up

  // {"fill" | "random[:SIZE]" as asked, "functional", "regions", "bytes",
  //  "writes", "elapsed_ns", "settle_ns"}
  nlohmann::json Json(const Profile& p) const;
};

// Prepares the regions of the sections whose profile has a precondition;
// nullopt when none has. `oracle` (may be null): what the volume holds, for
// a later verify. Errors: a region's job that cannot be built; a write that
// fails (kIo).
Expected<std::optional<PreparationResult>> PrepareRegions(Engine& engine, BlockDevice& volume,
                                                          const std::vector<SectionWork>& sections,
                                                          VerifyOracle* oracle);

}  // namespace tierlab
