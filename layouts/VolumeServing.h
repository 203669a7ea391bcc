#pragma once
// The drain and shutdown sequence of a served stack (`tierlab serve`), as
// library calls: the server loop and its signals stay in cli/, what must
// happen to the data is here.
//
// Threading: the engine's thread; the calls that wait run the engine.

#include <cstdint>
#include <functional>

#include "cachedev/CacheTarget.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/RealEngine.h"

namespace tierlab {

// `tierlab flush` on a running server: destages every dirty line of `cache`,
// then flushes `top` so the clean state is committed too (a crash or
// `status` sees it). `progress` as CacheTarget::Drain; `done` gets the
// drain's status (the flush's own result does not change it).
void DrainAndCommit(BlockDevice& top, CacheTarget& cache,
                    std::function<void(std::uint64_t dirty_bytes)> progress,
                    std::function<void(Status)> done);

// What StopServing found.
struct StopResult {
  Status destage = Status::kOk;  // kOk also when no drain was asked for
  Status flush = Status::kOk;
};

// After the last client is gone: runs `engine` until `top` has nothing in
// flight, then, with `drain` and a cache, destages everything (a stack
// without persistent metadata must put its dirty lines on the origin), and
// flushes `top`. Both steps run even if the first failed.
StopResult StopServing(RealEngine& engine, BlockDevice& top, CacheTarget* cache, bool drain);

}  // namespace tierlab
