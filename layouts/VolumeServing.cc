// Drain and shutdown of a served stack (VolumeServing.h).

#include "layouts/VolumeServing.h"

#include <utility>

namespace tierlab {
namespace {

// Runs the engine until `done` is set (timers of the stack may keep it busy
// or let it go idle in between).
void RunUntilSet(RealEngine& engine, const bool& done) {
  while (!done) engine.RunUntil(engine.Now() + 50 * kMilli);
}

}  // namespace

void DrainAndCommit(BlockDevice& top, CacheTarget& cache,
                    std::function<void(std::uint64_t)> progress, std::function<void(Status)> done) {
  cache.Drain(std::move(progress), [&top, done = std::move(done)](Status st) {
    IoRequest f;
    f.op = IoOp::kFlush;
    top.Submit(f, [done, st](Status) { done(st); });
  });
}

StopResult StopServing(RealEngine& engine, BlockDevice& top, CacheTarget* cache, bool drain) {
  StopResult r;
  // Let requests still in flight finish, then make everything durable.
  bool idle = false;
  while (!idle) {
    engine.RunUntil(engine.Now() + 10 * kMilli);
    idle = top.in_flight() == 0;
  }
  if (cache != nullptr && drain) {
    bool done = false;
    cache->Drain(nullptr, [&](Status s) {
      r.destage = s;
      done = true;
    });
    RunUntilSet(engine, done);
  }
  bool flushed = false;
  IoRequest f;
  f.op = IoOp::kFlush;
  top.Submit(f, [&](Status st) {
    r.flush = st;
    flushed = true;
  });
  RunUntilSet(engine, flushed);
  return r;
}

}  // namespace tierlab
