#pragma once
// The tier target: one volume over two or more child stacks ordered fast to
// slow (tier 0 = fastest), where every extent of the volume lives on exactly
// one tier and *moves* between tiers by heat (Storage Spaces tiers, ReFS
// real-time tiering). A cache (cachedev/) *copies* hot data and keeps the
// origin authoritative; here the map is the only truth and there is one copy.
//
// Data path. The volume is cut into extents (TierConfig::extent_size). The
// extent map (ExtentMap.h) gives each written extent a (tier, slot); a
// request is split into one child request per run of consecutive slots.
// Never-written or discarded extents read as zeros; the first write to an
// extent allocates it by the placement policy (fast-first / slow-first, or
// its pin). A freed slot still holds its last extent's data, so when data
// is carried the first write also writes zeros over the part of the new
// extent it does not cover (dm-thin's block zeroing), and requests to the
// extent wait until both are done; timing-only runs carry no data and skip
// it. A fixed-provisioned volume maps every extent at creation and, like
// dm-linear, reads what its devices hold until written. A discard that covers a whole extent unmaps
// it, frees its slot and forwards the discard to the tier; a partial one is forwarded.
//
// Migration. A pass (schedule: continuous or periodic; also run when a tier
// passes fill_threshold) ranks extents by decayed heat (ExtentHeat.h) and
// plans demotions of the coldest extents of a tier that is too full, then
// promotions of the hottest extents of the tier below, each displacing the
// coldest extent above if it is hotter by the hysteresis. A move is real I/O
// on the children: the extent is copied in migration_io_size chunks (read
// from the source slot, write to a newly allocated destination slot), within
// the budget (max_migration_ios chunks in flight, migration_bandwidth), and
// then the map switches to the destination.
//   - Reads during a copy go to the source.
//   - Writes during a copy go to the source and mark the chunks they touch;
//     when a copy round ends, marked chunks are copied again (re-copy), and
//     the map switches only after a round that saw no write and with no
//     write to the extent in flight. An extent written faster than a round
//     copies would never come clean: after max_recopy_rounds rounds the move
//     holds new writes to the extent (they wait inside the target, in
//     order) until the rounds for the writes already in flight are done and
//     the map has switched; then they go to the new place. A hold lasts at
//     most one round, i.e. at most one extent copy (TierStats::held_*).
//   - A discard of a whole extent under copy unmaps it and abandons the move.
//   - A freed slot (source after a switch, or a discarded extent) is reused
//     only after every request submitted before the free has completed
//     (epoch counting), so an in-flight read never sees another extent's data.
// Copies move data when the children require it or when a foreground write
// has carried data; in timing-only mode they move nullptr buffers that cost
// the same device time.
//
// Ownership: owns its tiers (the child stacks). Threading: the engine's
// thread. Failure: a child error fails the request that hit it (EIO passes
// up); a failed copy abandons the move (held writes are then released to
// the source). Writes that find no free slot fail with kNoSpace, which
// valid configs only see transiently and wait out (parked). The
// map is in memory only: after a restart a volume starts empty (no
// persistent metadata yet).

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/Expected.h"
#include "tiering/core/ObjectPool.h"
#include "tiering/tier/ExtentHeat.h"
#include "tiering/tier/ExtentMap.h"
#include "tiering/tier/TierConfig.h"
#include "tiering/tier/TierFreeSpace.h"

namespace tierlab {

struct TierUsage {
  std::uint64_t slots = 0;       // capacity in whole extents
  std::uint64_t free_slots = 0;  // slots neither mapped, copied to, nor awaiting reuse
  std::uint64_t extents = 0;     // extents of the volume mapped here
  std::uint64_t bytes = 0;       // extents * extent_size
  // Foreground I/O served by this tier (the pieces of volume requests).
  std::uint64_t read_ops = 0, read_bytes = 0;
  std::uint64_t write_ops = 0, write_bytes = 0;
};

struct TierStats {
  std::uint64_t extent_size = 0;
  std::uint64_t volume_extents = 0;
  std::vector<TierUsage> tiers;
  // Reads of unmapped extents, served as zeros by the target itself.
  std::uint64_t zero_read_ops = 0, zero_read_bytes = 0;
  // Zeros written over the part of a newly mapped extent its first write
  // did not cover (data-carrying runs only).
  std::uint64_t zero_fill_bytes = 0;
  std::uint64_t promotions = 0, promoted_bytes = 0;  // moved to a faster tier
  std::uint64_t demotions = 0, demoted_bytes = 0;    // moved to a slower tier
  std::uint64_t recopy_rounds = 0;                   // extra rounds caused by writes during a copy
  std::uint64_t migrations_abandoned = 0;            // discarded or failed
  // Moves whose final round held new writes (the extent was written faster
  // than a round copies it, max_recopy_rounds times in a row).
  std::uint64_t held_rounds = 0;
  std::uint64_t migration_errors = 0;  // copy I/Os that failed
  std::uint64_t migration_passes = 0;
  Nanos migration_busy_ns = 0;  // time with at least one move in progress
  Nanos max_move_ns = 0;        // longest single move, start to switch (or abandon)
  // Foreground requests that waited inside the target before reaching a
  // tier: writes held by a move's final round, writes parked until a slot
  // came free, and requests that waited for a new extent's first write
  // (data-carrying runs). Every other request goes straight to its tier.
  std::uint64_t held_ops = 0;
  Nanos held_ns = 0;                // total wait
  Nanos max_held_ns = 0;            // longest wait
  std::uint64_t map_intervals = 0;  // runs of consecutive slots in the extent map
  std::array<std::uint64_t, ExtentHeat::kBuckets> heat_histogram{};  // see ExtentHeat

  // Share of foreground ops / bytes (reads + writes) served by `tier`.
  double OpShare(std::size_t tier) const;
  double ByteShare(std::size_t tier) const;
};

class TierTarget final : public BlockDevice {
 public:
  // Validates `config` against the tiers (ValidateTierConfig) and builds the
  // target; the error names the field. Takes ownership of `tiers` (fast to
  // slow) either way.
  static Expected<std::unique_ptr<TierTarget>> Create(
      Engine& engine, std::string name, std::vector<std::unique_ptr<BlockDevice>> tiers,
      const TierConfig& config);
  ~TierTarget() override;

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return block_size_; }
  bool RequiresData() const override { return requires_data_; }
  std::vector<BlockDevice*> Children() const override;
  std::string Kind() const override { return "tier"; }

  const TierConfig& config() const { return config_; }
  TierStats tier_stats() const;
  // Maps every extent now, by the placement policy: fixed provisioning, as a
  // Storage Spaces fixed volume is laid out on its tiers at creation. Reads of
  // never-written data then cost device I/O instead of a zero fill (a thin
  // volume's). Returns false if the tiers ran out of space.
  bool ProvisionAll();
  // Where the extent holding byte `offset` lives; nullopt if unmapped.
  std::optional<ExtentPlacement> PlacementAt(std::uint64_t offset) const;
  // Runs a migration pass now, whatever the schedule (Optimize-Volume
  // -TierOptimize); returns the number of moves planned. Moves already
  // queued are not re-planned (returns 0 then).
  std::uint32_t OptimizeNow();
  // True while moves are queued or copying.
  bool migrating() const { return !queue_.empty() || !active_.empty(); }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  // Functional warming (BlockDevice::Warm; TierWarm.cc): heat as requests
  // add it (no decay: warming takes no time), extents mapped by the
  // placement policy on first write, whole-extent discards unmapped, and the
  // pieces passed to the tiers' Warm. Not counted in tier_stats().
  std::uint64_t WarmImpl(const IoRequest& req) override;
  // Migration passes planned as the schedule would plan them and applied at
  // once (no copy), until a pass moves nothing; then the tiers settle.
  // Returns the extents moved (and what the tiers placed).
  std::uint64_t WarmSettleImpl() override;

 private:
  struct Request;
  struct Migration;
  struct ChunkOp;
  struct Move {
    std::uint64_t extent;
    std::uint32_t from, to;
  };
  struct PendingFree {
    std::uint64_t epoch;
    std::uint32_t tier;
    std::uint64_t slot;
  };
  struct Parked {
    IoRequest req;
    IoCallback done;
    Nanos since;  // when the request first had to wait
  };
  enum class AllocResult { kOk, kWait, kNoSpace };
  static constexpr std::uint8_t kNoPin = 0xFF;
  static constexpr Nanos kNotHeld = -1;
  // Modelled cost of a request that touches only unmapped extents (a map
  // lookup and a zero fill), as a thin volume's metadata hit.
  static constexpr Nanos kUnmappedLatency = 2 * kMicro;

  TierTarget(Engine& engine, std::string name, std::vector<std::unique_ptr<BlockDevice>> tiers,
             const TierConfig& config, const std::vector<TierGeometry>& geometry);

  // Foreground path.
  // `held_since`: kNotHeld for a new request, else when it was first parked
  // or held (for the held_* stats).
  void Dispatch(const IoRequest& req, IoCallback done, Nanos held_since);
  // Maps the unmapped extents of [first, last]; appends each newly mapped
  // one to `fresh` when given.
  AllocResult EnsureMapped(std::uint64_t first, std::uint64_t last,
                           std::vector<std::uint64_t>* fresh = nullptr);
  void ZeroFill(Request* r, std::uint64_t extent);
  bool TouchesZeroing(std::uint64_t first, std::uint64_t last) const;
  void IssueReadWrite(Request* r);
  void IssueDiscard(Request* r);
  void PieceDone(Request* r, Status st);
  void Complete(Request* r);
  // Dispatches again what waits in `waiting` (parked_, zero_waiters_).
  void Redispatch(std::deque<Parked>& waiting);
  void NoteActivity();

  // Space.
  std::optional<std::uint32_t> ChooseTier(std::uint64_t extent) const;
  bool CanTakeForMigration(std::uint32_t tier) const;
  void MapExtent(std::uint64_t e, ExtentPlacement p);
  void UnmapExtent(std::uint64_t e);
  void DeferFree(std::uint32_t tier, std::uint64_t slot);
  void ReleaseDeferred();
  std::uint64_t ExtentBytes(std::uint64_t e) const;

  // Migration.
  void RequestPass(Nanos at);
  void RunPass();
  std::uint32_t Plan();
  void PumpMigrations();
  enum class StartResult { kStarted, kStale, kNoSpace };
  StartResult StartMove(const Move& m);
  bool IssueNextChunk(Migration* m);
  void ChunkReadDone(ChunkOp* op, Status st);
  void ChunkWriteDone(ChunkOp* op, Status st);
  void RoundEnd(Migration* m);
  void Retire(Migration* m, bool switched);
  void MarkDirty(std::uint64_t extent, std::uint64_t offset, std::uint64_t length);
  void AfterMigrationsDrain();
  Nanos NextPassTime() const;
  std::byte* TakeBuffer();
  // TierWarm.cc: a planned move applied at once; false if it cannot be now.
  bool WarmMove(const Move& m, bool* stale);

  std::vector<std::unique_ptr<BlockDevice>> tiers_;
  TierConfig config_;
  std::uint64_t size_ = 0;
  std::uint32_t block_size_ = 512;
  bool requires_data_ = false;
  std::uint64_t extent_size_ = 0;
  std::uint64_t extents_ = 0;
  std::uint32_t chunks_per_extent_ = 0;

  ExtentMap map_;
  ExtentHeat heat_;
  std::vector<TierFreeSpace> free_;
  std::vector<std::uint8_t> pin_;  // per extent: pinned tier or kNoPin
  // Per extent: foreground writes/discards in flight (a run may have 2^20
  // requests outstanding, all on one extent).
  std::vector<std::uint32_t> writes_in_flight_;
  std::vector<std::uint64_t> pin_reserve_;  // per tier: pinned extents not yet mapped
  std::uint64_t pin_reserve_total_ = 0;
  std::uint64_t unmapped_unpinned_ = 0;
  std::vector<TierUsage> usage_;
  TierStats counters_;  // the scalar counters of tier_stats()

  // Reuse of freed slots waits for the requests that might still use them.
  std::uint64_t epoch_ = 0;       // current epoch (== epoch_base_ + in_flight_by_epoch_.size() - 1)
  std::uint64_t epoch_base_ = 0;  // epoch of in_flight_by_epoch_.front()
  std::deque<std::uint32_t> in_flight_by_epoch_{0};
  std::deque<PendingFree> pending_frees_;
  std::deque<Parked> parked_;
  // Extents whose first write is still writing zeros around itself, and the
  // requests that touch them, waiting in arrival order.
  std::unordered_map<std::uint64_t, std::uint32_t> zeroing_;
  std::deque<Parked> zero_waiters_;
  std::vector<std::uint64_t> fresh_;  // EnsureMapped's scratch
  AlignedBuffer zeros_;               // allocated on the first zero fill

  // Migration state.
  bool move_data_ = false;   // copies carry buffers
  bool activity_ = false;    // foreground I/O since the last pass
  bool truncated_ = false;   // the last pass hit max_moves_per_pass
  bool batch_open_ = false;  // moves of the last pass not all finished
  std::uint64_t moved_in_batch_ = 0;
  bool pumping_ = false;  // PumpMigrations re-entrancy guard
  std::optional<TimerId> pass_timer_;
  Nanos pass_at_ = 0;
  std::optional<TimerId> pump_timer_;
  Nanos next_copy_at_ = 0;  // bandwidth budget: earliest start of the next chunk
  std::deque<Move> queue_;
  std::vector<std::unique_ptr<Migration>> active_;
  std::unordered_map<std::uint64_t, Migration*> migrating_;  // by extent
  std::uint32_t copy_ios_ = 0;                               // chunk copies in flight
  Nanos busy_since_ = 0;
  std::vector<AlignedBuffer> buffers_;
  std::vector<std::byte*> free_buffers_;

  ObjectPool<Request> requests_;
  ObjectPool<ChunkOp> chunk_ops_;

  // Functional warming: no pass is scheduled meanwhile (WarmSettle runs it).
  bool warming_ = false;
};

}  // namespace tierlab
