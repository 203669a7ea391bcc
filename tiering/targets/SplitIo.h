#pragma once
// Fan-out/fan-in for targets: a parent request becomes N child requests and
// completes, once, when the last child does, with the first error seen.

#include <cstdint>

#include "tiering/core/IoRequest.h"
#include "tiering/core/ObjectPool.h"

namespace tierlab {

struct SplitIo {
  IoCallback done;
  std::uint32_t remaining = 0;
  Status status = Status::kOk;

  // Records a child's status; returns true when this was the last child.
  bool ChildDone(Status s) {
    if (status == Status::kOk && s != Status::kOk) status = s;
    return --remaining == 0;
  }
};

using SplitIoPool = ObjectPool<SplitIo>;

}  // namespace tierlab
