#pragma once
// What the destager (Destager.h) sees of the cache it cleans: the dirty lines,
// their locks, I/O to cache slots and the origin, and two notifications. The
// cache target implements it; a test can implement it over RAM devices to
// drive the destager on its own.
//
// Lines are volume line numbers, slots cache slots (LineTable.h). Completion
// callbacks run on the engine's thread, never inside the call that submits.
// Threading: the engine's thread only.

#include <cstddef>
#include <cstdint>

#include "cachedev/LineLocks.h"
#include "policies/ReplacementPolicy.h"
#include "tiering/core/BlockDevice.h"

namespace tierlab {

class DestageCache {
 public:
  virtual ~DestageCache() = default;

  // Dirty lines now (including those being destaged).
  virtual std::uint64_t DirtyLines() const = 0;
  // True while foreground writes wait for space that destage frees.
  virtual bool WritersWaiting() const = 0;
  // The slot holding `line` if the line is resident and dirty, else
  // LineTable::kNone (discarded or rewritten-and-invalidated since queued).
  virtual Slot DirtySlot(std::uint64_t line) const = 0;
  // True if slot `b` follows slot `a` on the same cache device, so one read
  // covers both.
  virtual bool SlotsAdjacent(Slot a, Slot b) const = 0;

  // Locks the lines [w->first, w->last] in w->lock_mode (kDestage: granted
  // once no write of them is in flight, held against discards and fills;
  // writes may start meanwhile). LineLocks semantics: true if held now, else
  // w->granted runs later. The waiter is owned by the caller and stays put
  // until UnlockLines.
  virtual bool LockLines(LockWaiter* w) = 0;
  virtual void UnlockLines(LockWaiter* w) = 0;
  // The line's write generation (LineLocks::Generation) while the caller
  // holds its lock: odd while a write is in flight; a change means a write
  // started since the earlier reading.
  virtual std::uint64_t WriteGeneration(std::uint64_t line) const = 0;

  // Reads `length` bytes starting at the beginning of slot `s` (spanning
  // adjacent slots). `data` is null in timing-only mode.
  virtual void ReadSlots(Slot s, std::uint64_t length, std::byte* data, IoCallback cb) = 0;
  virtual void WriteOrigin(std::uint64_t offset, std::uint64_t length, std::byte* data,
                           IoCallback cb) = 0;
  virtual void FlushOrigin(IoCallback cb) = 0;
  // False if the bytes read from slot `s` fail the metadata's checksum (a
  // write lost or torn below the cache): they must not reach the origin.
  virtual bool VerifyLineData(Slot s, const std::byte* data, std::uint64_t length) = 0;

  // `line` in slot `s` is now on the origin, durably: it turns clean.
  virtual void MarkClean(Slot s, std::uint64_t line) = 0;
  // A destage operation finished (either way): waiting writers may retry.
  virtual void OnDestageFinished() = 0;
};

}  // namespace tierlab
