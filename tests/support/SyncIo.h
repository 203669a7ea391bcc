#pragma once
// One request at a time, the engine run until it is idle after each: for
// tests that check a request's status or its completion time.

#include "tiering/core/BlockDevice.h"

namespace tierlab::testing {

inline Status SubmitAndRun(Engine& e, BlockDevice& d, IoOp op, std::uint64_t offset,
                           std::uint64_t length, std::byte* data = nullptr) {
  Status got = Status::kShutdown;
  IoRequest r;
  r.op = op;
  r.offset = offset;
  r.length = length;
  r.data = data;
  d.Submit(r, [&](Status st) { got = st; });
  e.Run();
  return got;
}

// A read of `length` bytes at offset 0 issued at `at` on the engine's
// clock (a SimEngine's), the engine run until idle: when it completed with
// kOk, or -1 if it did not. For tests that hold a target's completion times
// against what a model (a twin NodeCpu) says.
inline Nanos ReadCompletedAt(Engine& e, BlockDevice& d, Nanos at, std::uint64_t length,
                             std::byte* data = nullptr) {
  Nanos done = -1;
  e.ScheduleAt(at, [&] {
    IoRequest r;
    r.op = IoOp::kRead;
    r.length = length;
    r.data = data;
    d.Submit(r, [&](Status st) {
      if (st == Status::kOk) done = e.Now();
    });
  });
  e.Run();
  return done;
}

}  // namespace tierlab::testing
