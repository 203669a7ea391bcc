#pragma once
// The result of an I/O, carried on every completion. Errors cross layer
// boundaries as values; nothing on the I/O path throws.

#include <cstdint>
#include <string_view>

namespace tierlab {

enum class Status : std::uint8_t {
  kOk = 0,
  kIoError,       // EIO: the medium or a device below failed
  kInvalid,       // EINVAL: out of range, misaligned, bad arguments
  kNoSpace,       // ENOSPC: no room (thin/tier targets)
  kNotSupported,  // EOPNOTSUPP: the device cannot do this op (e.g. discard)
  kShutdown,      // ESHUTDOWN: the device is closing; request not started
};

// Positive errno value for a status (EIO, EINVAL, ...); 0 for kOk.
int ToErrno(Status s);
// Maps a positive errno (as from libaio's negative res) to a status.
Status FromErrno(int err);
std::string_view ToString(Status s);

}  // namespace tierlab
