#pragma once
// Observer of the cache target's line state, for persistent metadata
// (CacheJournal.h). The cache target calls it on every transition that
// changes what must survive a crash — a line turning dirty, a dirty line
// turning clean or being dropped — asks it before overwriting a slot with
// other data, and hands it every flush.
//
// Only dirty lines need to be durable: a clean line's data is also on the
// origin, so recovery may forget it (the cache restarts cold for clean lines).
//
// The ordering rule the sink enforces through SlotReusable(): a slot whose
// durable state says "dirty line L" must not receive other data until a
// commit recorded that L left it; otherwise a crash would replay the mapping
// and serve the new data as L.
//
// Threading: every call comes from the cache target's engine thread. The
// callbacks must not call back into the target synchronously (except
// OnMetadataCommitted from a completion).

#include <cstddef>
#include <cstdint>

#include "policies/ReplacementPolicy.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

class CacheMetadataSink {
 public:
  virtual ~CacheMetadataSink() = default;
  // Volume line `line` in `slot` turned dirty: a write-back write of it
  // completed on the cache device and is about to be acknowledged.
  virtual void OnLineDirty(Slot slot, std::uint64_t line) = 0;
  // A write-back write of volume line `line` in `slot` completed on the cache
  // device: `data` is the `length` bytes it wrote at `offset` within the line
  // (valid during the call only). Called just before OnLineDirty (or, for a
  // line dirty already, instead of it), so the sink can record checksums of
  // the data the slot must hold (MetadataFormat.h). Not called without data.
  // `data` null: those bytes are not known (two writes of them were in flight
  // together, and either may be on the device), so no checksum of them is.
  virtual void OnLineData(Slot /*slot*/, std::uint64_t /*line*/, std::uint64_t /*offset*/,
                          const std::byte* /*data*/, std::uint64_t /*length*/) {}
  // Whether `length` bytes read at `offset` within the dirty line in `slot`
  // match what the sink recorded through OnLineData (sectors it has no
  // checksum for pass). False: the cache device lost or tore a write; the
  // target fails the read (or the destage) rather than pass the data on.
  virtual bool VerifyLineData(Slot /*slot*/, std::uint64_t /*offset*/, const std::byte* /*data*/,
                              std::uint64_t /*length*/) {
    return true;
  }
  // The dirty line in `slot` was destaged: the origin holds it (flushed).
  virtual void OnLineClean(Slot slot, std::uint64_t line) = 0;
  // The dirty line in `slot` was dropped (discard, write error).
  virtual void OnLineInvalidated(Slot slot, std::uint64_t line) = 0;
  // False while the slot's durable state may still name a dirty line that
  // the slot no longer holds: the target must not put other data there yet.
  virtual bool SlotReusable(Slot slot) const = 0;
  // A flush: makes the data of every write completed so far and every
  // transition reported so far durable (flushing the cache devices), then
  // calls `done` on a later engine turn.
  virtual void Commit(IoCallback done) = 0;
};

}  // namespace tierlab
