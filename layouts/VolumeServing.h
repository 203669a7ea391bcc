#pragma once
// What `tierlab serve` and `tierlab flush` do to a served stack's data, as
// library calls: the server loop, its signals and what is printed stay in
// cli/. Building a layout for serving, the drain and commit of a flush
// request, the stop after the last client, and a flush asked of a running
// server by another process.
//
// Threading: the engine's thread; the calls that wait run the engine.

#include <cstdint>
#include <functional>
#include <string>

#include "cachedev/CacheTarget.h"
#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "layouts/VolumeStore.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/RealEngine.h"

namespace tierlab {

// `tierlab serve LAYOUT`: the layout built on real devices; those without
// paths are files in `dir` (made if missing), kept at exit so that the next
// serve finds the same data. Errors as BuildVolume's.
Expected<Volume> BuildLayoutForServing(RealEngine& engine, const LayoutSpec& layout,
                                       const std::string& dir);

// `tierlab flush` on a running server: destages every dirty line of `cache`,
// then flushes `top` so the clean state is committed too (a crash or
// `status` sees it). `progress` as CacheTarget::Drain; `done` gets the
// drain's status (the flush's own result does not change it).
void DrainAndCommit(BlockDevice& top, CacheTarget& cache,
                    std::function<void(std::uint64_t dirty_bytes)> progress,
                    std::function<void(Status)> done);

// What DrainAndFlush and StopServing found.
struct StopResult {
  Status destage = Status::kOk;  // kOk also when no drain was asked for
  Status flush = Status::kOk;
};

// With a cache, destages everything (`progress` as CacheTarget::Drain, may
// be empty); then flushes `top`. Runs `engine` until both are done; the
// flush runs even if the destage failed.
StopResult DrainAndFlush(RealEngine& engine, BlockDevice& top, CacheTarget* cache,
                         std::function<void(std::uint64_t dirty_bytes)> progress);

// After the last client is gone: runs `engine` until `top` has nothing in
// flight, then DrainAndFlush, with the drain only if `drain` (a stack
// without persistent metadata must put its dirty lines on the origin).
StopResult StopServing(RealEngine& engine, BlockDevice& top, CacheTarget* cache, bool drain);

// `tierlab flush` of a volume that server `pid` holds: asks it (SIGUSR1)
// to destage everything and waits until its serve.json counts one more
// completed drain. `opening` is called first if the server does not serve
// yet (no serve.json of it); `progress` with the dirty bytes of each status
// read. Gives up (kIo) when the server exits, or shows no progress (no
// status update, no CPU time) for `stall_timeout` seconds: a stopped or hung
// server is reported, never waited on forever.
struct ServedFlushHooks {
  std::function<void()> opening;
  std::function<void(std::uint64_t dirty_bytes)> progress;
};
Expected<void> FlushServedVolume(const VolumeInfo& info, int pid, double stall_timeout,
                                 const ServedFlushHooks& hooks);

}  // namespace tierlab
