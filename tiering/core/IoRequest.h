#pragma once
// One block I/O request, as submitted to any BlockDevice (device or target).

#include <cstddef>
#include <cstdint>

#include "tiering/core/InlineFunction.h"
#include "tiering/core/Status.h"

namespace tierlab {

enum class IoOp : std::uint8_t { kRead, kWrite, kFlush, kDiscard };

inline constexpr std::uint32_t kIoFua = 1u << 0;  // write-through to stable media before completion

// Time on the engine's clock, in nanoseconds. Simulated time starts at 0; real
// time is CLOCK_MONOTONIC.
using Nanos = std::int64_t;
inline constexpr Nanos kMicro = 1000;
inline constexpr Nanos kMilli = 1000 * kMicro;
inline constexpr Nanos kSecond = 1000 * kMilli;

struct IoRequest {
  IoOp op = IoOp::kRead;
  std::uint32_t flags = 0;
  std::uint64_t offset = 0;  // bytes; flush ignores offset and length
  std::uint64_t length = 0;  // bytes
  // Read destination or write source, `length` bytes, owned by the caller and
  // valid until the completion runs. Null means timing-only: a simulated device
  // models the time and moves no data. Real devices require a buffer.
  std::byte* data = nullptr;

  bool fua() const { return (flags & kIoFua) != 0; }
  std::uint64_t end() const { return offset + length; }
};

// Called exactly once per submitted request, on the engine's thread, never
// from inside the Submit call that issued it (no re-entrancy).
using IoCallback = InlineFunction<void(Status), 48>;

const char* ToString(IoOp op);

}  // namespace tierlab
