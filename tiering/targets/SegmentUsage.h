#pragma once
// The segment usage table of a log-structured target (LogStructuredTarget):
// per segment slot on the capacity device, its state, how many of its data
// slots still hold the newest copy of a volume block (live), and how many
// reads are in flight to it (pins); the free list; and the cleaner's choice
// of victim. Pure bookkeeping, no I/O.
//
// Life of a segment slot:
//   kFree ──open──► kOpen ──seal──► kWriting ──write done──► kSealed
//     ▲                                                        │ cleaner picks it
//     └──── release (once no read is pinned to it) ◄──── kCleaning
//
// Victim choice is greedy: the sealed segment with the fewest live blocks
// (ties: the lowest slot), the choice that frees a segment for the least
// copying now. Cost-benefit (LFS: weigh free space by age) does better when
// writes are skewed, because cold segments are cleaned before they are
// nearly empty; under uniform random writes the two agree, and greedy keeps
// the table free of ages.

#include <cstdint>
#include <deque>
#include <vector>

namespace tierlab {

enum class SegmentState : std::uint8_t { kFree, kOpen, kWriting, kSealed, kCleaning };

class SegmentUsage {
 public:
  static constexpr std::uint32_t kNone = ~0u;

  // Every segment starts free; the free list hands them out in slot order,
  // so a new volume's log runs sequentially across the device.
  explicit SegmentUsage(std::uint32_t segments);

  std::uint32_t segments() const { return static_cast<std::uint32_t>(state_.size()); }
  SegmentState state(std::uint32_t s) const { return state_[s]; }
  void SetState(std::uint32_t s, SegmentState st) { state_[s] = st; }
  std::uint32_t live(std::uint32_t s) const { return live_[s]; }
  void AddLive(std::uint32_t s) { ++live_[s]; }
  void RemoveLive(std::uint32_t s) { --live_[s]; }

  std::uint32_t free_count() const { return static_cast<std::uint32_t>(free_.size()); }
  // Takes the oldest free segment and marks it kOpen; kNone if none is free.
  std::uint32_t TakeFree();
  // Returns a segment to the free list if no read is pinned to it; otherwise
  // it is freed by the Unpin that releases the last read. Its live count
  // must be 0 (the cleaner moved or dropped every block).
  void Release(std::uint32_t s);
  // Segments released but held by pinned reads.
  std::uint32_t draining() const { return draining_; }

  // A read of the segment's data on the capacity device is in flight: the
  // slot must not be rewritten under it.
  void Pin(std::uint32_t s) { ++pins_[s]; }
  // True if this freed a released segment.
  bool Unpin(std::uint32_t s);

  // After recovery: the segments in `in_use` are kSealed, the others free
  // (in slot order). Live counts are kept as they were set.
  void Rebuild(const std::vector<bool>& in_use);

  // The greedy victim: the kSealed segment with the fewest live blocks,
  // kNone if there is no sealed segment.
  std::uint32_t PickVictim() const;

  // Bytes of memory this table holds.
  std::uint64_t MemoryBytes() const;

 private:
  std::vector<SegmentState> state_;
  std::vector<std::uint32_t> live_;
  std::vector<std::uint32_t> pins_;
  std::vector<bool> release_when_unpinned_;
  std::deque<std::uint32_t> free_;
  std::uint32_t draining_ = 0;
};

}  // namespace tierlab
