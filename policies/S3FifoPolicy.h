#pragma once
// S3-FIFO (Yang et al., SOSP'23): three FIFO queues.
//   S  small FIFO, 10% of capacity: every new line enters here;
//   M  main FIFO, the rest, with a 2-bit access counter per line (0..3);
//   G  ghost FIFO of keys evicted from S, as many entries as M (90% of
//      capacity, libCacheSim's ghost-size-ratio 0.9).
// A miss whose key is in G goes straight to M. A hit only increments the
// counter (saturating at 3): no list is touched on the hit path.
// Eviction (Algorithm 1 of the paper): while |S| >= 10% of capacity, look at
// S's oldest line: with counter >= 2 (the paper's "freq > 1", libCacheSim's
// move-to-main-threshold=2) it moves to M with its counter cleared, otherwise
// it is evicted and its key enters G. Otherwise evict from M: a line with a
// non-zero counter is reinserted at M's head with the counter decremented;
// the first line with counter 0 is the victim (no ghost).
// This is the paper's original variant: new lines enter S even while the
// cache is not yet full.
//
// One-hit wonders and scans die in S, so lines that made it to M survive a
// scan. Evict(filter): rejected slots stay in place with their counter
// unchanged; at most kEvictScanLimit rejections in total; if the preferred
// queue has no evictable line the other queue is searched.
// Memory per slot: links 8 + key 8 + state 1 bytes, plus G.

#include <vector>

#include "policies/GhostList.h"
#include "policies/ReplacementPolicy.h"
#include "policies/SlotLists.h"

namespace tierlab {

class S3FifoPolicy final : public ReplacementPolicy {
 public:
  // libCacheSim's parameters, by its names with underscores
  // ("s3fifo:small_size_ratio=0.2,move_to_main_threshold=1").
  struct Params {
    double small_size_ratio = 0.1;  // S's share of the capacity, 0 < r < 1
    // G's entries as a share of the capacity; 0 = as many as M holds
    // (capacity - |S| target), the paper's setting.
    double ghost_size_ratio = 0;
    unsigned move_to_main_threshold = 2;  // counter an S line needs to move to M, 1..3
  };

  explicit S3FifoPolicy(std::size_t capacity) : S3FifoPolicy(capacity, Params{}) {}
  S3FifoPolicy(std::size_t capacity, const Params& params);

  void Insert(Slot s, LineKey key) override;
  void Touch(Slot s) override;
  void Remove(Slot s) override;
  std::optional<Slot> Evict(EvictFilter filter = {}) override;

  std::size_t Size() const override { return lists_.Size(kSmall) + lists_.Size(kMain); }
  std::size_t MemoryBytes() const override;
  std::string Name() const override { return "s3fifo"; }

  std::size_t SmallSize() const { return lists_.Size(kSmall); }
  std::size_t MainSize() const { return lists_.Size(kMain); }
  std::size_t GhostSize() const { return ghost_.Size(); }

 private:
  static constexpr unsigned kSmall = 0;
  static constexpr unsigned kMain = 1;
  static constexpr std::uint8_t kFreqMask = 3;
  static constexpr std::uint8_t kInMain = 4;

  std::optional<Slot> EvictSmall(EvictFilter filter, std::size_t* rejected);
  std::optional<Slot> EvictMain(EvictFilter filter, std::size_t* rejected);

  unsigned move_to_main_threshold_;
  std::size_t small_target_;
  std::size_t ghost_target_;
  SlotLists lists_;  // S, M; front = oldest
  std::vector<LineKey> keys_;
  std::vector<std::uint8_t> state_;  // counter | kInMain
  GhostList ghost_;
};

}  // namespace tierlab
