#pragma once
// One request submitted and the engine run until it is idle: the completion
// status, for tests that do I/O one request at a time (either engine).

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

}  // namespace tierlab::testing
