#pragma once
// Inline deduplication and compression of 4 KiB blocks over one physical
// device, as VDO does on Linux: a volume of `logical_bytes` whose blocks are
// stored reduced on the child (ReductionMap.h has the bookkeeping).
//
// Write, per 4 KiB block:
//   zeros         -> mapped to nothing; no I/O (reads return zeros)
//   fingerprint   -> XXH3 64 (with dedupe). A hint match is verified: the
//                    stored copy is read (and decompressed) and compared
//                    byte for byte, as VDO reads before it shares; equal ->
//                    the block shares it, no write; different -> stored as
//                    new content (a hint mismatch)
//   compress      -> LZ4 or zstd (with compression); kept if it fits in
//                    `keep_compressed_max` bytes (vSAN keeps a block
//                    compressed only if it fits 2 KiB), then written as
//                    whole sectors of a pack block; otherwise written raw
// The write is acknowledged when every block's write (or verification) is
// done: reduction is inline, before the acknowledgement. Where a layout
// puts this target decides what that means: above a write-back cache it is
// inline (VDO, Nimble); below it, under the cache's destage, it reduces on
// destage (vSAN's space efficiency), and the acknowledgement is the
// cache's.
//
// Ordering: writes to one block complete in any order but the newest
// submitted wins (a sequence number per block in flight); a read racing a
// write returns the old or the new data, never a mix of stored blocks.
// Concurrent writes of one new content: the first is stored, the others
// wait for it (a table of fingerprints being stored, VDO's hash lock), then
// verify against it and share it.
//
// Data: every request carries a buffer (RequiresData): content is the point.
// In simulation the content comes from the workload's data description (the
// runner fills buffers as fio would, bench/workload/WriteData.h) and the
// child is a model with data; in real time the child is a file.
//
// CPU: in real time hashing and compression take the time they take. In
// simulation (`model_cpu`) each request waits for `cpu_threads` modelled
// cores for its blocks' measured costs (ReductionCodec.h), charged before
// its I/O for writes and after it for reads.
//
// Packing on a device with 4 KiB blocks (a file on most file systems): the
// map still packs 512-byte sectors, and the target keeps the open pack
// block's image in memory and writes it whole, one write in flight per pack
// block; fragments added meanwhile go with the next write, and each
// fragment's write completes when a write that carries it does. The space
// saved is the same; each fragment costs a 4 KiB write (reported in the
// child's counters) where a 512-byte device takes only its sectors.
//
// Discard unmaps (later reads return zeros; the blocks are freed when no
// other volume block shares them). Flush and FUA go to the child. Space:
// a write that finds the physical device full completes kNoSpace (a thin
// volume's ENOSPC). Nothing is persistent: the map lives in memory, so the
// target is for simulation and for real-time runs that start empty, not
// for volumes that must survive a restart.

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/ObjectPool.h"
#include "tiering/targets/ReductionCodec.h"
#include "tiering/targets/ReductionMap.h"

namespace tierlab {

struct ReductionConfig {
  bool dedupe = true;
  CompressionKind compression = CompressionKind::kLz4;
  int zstd_level = 1;
  // Keep a compressed block only if it takes at most this many bytes
  // (4096 - sector: any whole sector saved).
  std::uint32_t keep_compressed_max = 2048;
  std::uint64_t logical_bytes = 0;  // 0: the child's size (no overcommit)
  bool model_cpu = false;           // simulation: charge cpu, below
  std::uint32_t cpu_threads = 1;
  ReductionCpuCost cpu;  // per block; MeasuredCpuCost(compression) by default
};

struct ReductionStats {
  std::uint64_t logical_write_blocks = 0;  // 4 KiB blocks written (discards not counted)
  std::uint64_t zero_blocks = 0;           // of which all zeros
  std::uint64_t dedupe_hits = 0;           // shared an existing copy
  std::uint64_t hint_mismatches = 0;       // fingerprint matched, bytes did not
  std::uint64_t stored_compressed = 0;     // written compressed
  std::uint64_t stored_raw = 0;            // written raw (incompressible, or compression off)
  std::uint64_t verify_reads = 0;          // reads of a stored copy to confirm a match
  std::uint64_t no_space = 0;              // blocks refused: the physical device is full
  // CPU of fingerprints, compression and decompression: modelled in
  // simulation, measured (engine clock around the work) in real time.
  std::uint64_t cpu_ns = 0;
};

class DataReductionTarget final : public BlockDevice {
 public:
  DataReductionTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
                      ReductionConfig config);
  ~DataReductionTarget() override;

  // Empty if the configuration can work on this child, otherwise why not.
  std::string Check() const;

  std::uint64_t Size() const override { return logical_bytes_; }
  std::uint32_t BlockSize() const override { return ReductionMap::kBlock; }
  bool RequiresData() const override { return true; }
  std::vector<BlockDevice*> Children() const override { return {child_.get()}; }
  std::string Kind() const override { return "reduce"; }

  const ReductionConfig& config() const { return config_; }
  const ReductionStats& reduction_stats() const { return stats_; }
  ReductionMapStats map_stats() const { return map_.Stats(); }
  BlockDevice& child() const { return *child_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;

 private:
  // kWait: a block whose fingerprint a store in flight carries; it verifies
  // against that store once it lands (or stores itself if it fails).
  enum class BlockAction : std::uint8_t { kZero, kVerify, kStore, kWait };
  struct BlockWrite {
    std::uint64_t lba = 0;
    std::uint64_t seq = 0;
    std::uint64_t fingerprint = 0;
    std::uint32_t id = 0;  // verify: the candidate; store: the new block
    std::uint16_t compressed = 0;
    BlockAction action = BlockAction::kZero;
  };
  struct Op {
    IoCallback done;
    IoRequest req;
    Status status = Status::kOk;
    std::uint32_t remaining = 0;
    bool issued = false;             // IssueWrites has run: blocks act at once
    std::uint64_t decompress = 0;    // reads: compressed blocks to charge
    std::vector<BlockWrite> blocks;  // writes
    AlignedBuffer scratch;           // one 4 KiB slot per block
    AlignedBuffer plain;             // a verification's decompressed copy
  };

  Op* NewOp(const IoRequest& req, IoCallback done);
  void StartWrite(Op* op);
  void IssueWrites(Op* op);
  void Store(Op* op, std::size_t i);
  void Verified(Op* op, std::size_t i, Status st);
  void IssueVerify(Op* op, std::size_t i);
  // A store whose fingerprint others wait on is done (landed or not).
  void ReleaseWaiters(Op* op, std::size_t i, bool landed);
  void BlockDone(Op* op, std::size_t i, Status st);
  // Packing on a device with blocks larger than a sector: the fragment of
  // block i goes into its pack block's image, written whole.
  void StorePacked(Op* op, std::size_t i, const ReductionMap::Location& at);
  void WritePack(std::uint64_t pbn);
  // The child read that brings a stored block in, and where in it the block
  // starts (a fragment in a pack block read whole).
  void SpanOf(const ReductionMap::Location& at, IoRequest& r) const;
  std::uint64_t SkipOf(const ReductionMap::Location& at) const;
  void StartRead(Op* op);
  void ReadDone(Op* op, std::size_t i, std::uint32_t id, Status st);
  void Release(Op* op);
  // Runs `then` once `cost` of modelled CPU is done (at once in real time:
  // on the next engine turn, never inside Submit).
  void ChargeCpu(Nanos cost, Task then);
  std::uint64_t BeginBlockWrite(std::uint64_t lba);
  // Applies a finished block write if it is the newest for its block.
  void ApplyBlockWrite(const BlockWrite& w, std::uint32_t id);

  std::unique_ptr<BlockDevice> child_;
  ReductionConfig config_;
  std::uint64_t logical_bytes_;
  ReductionMap map_;
  BlockCompressor compressor_;
  ReductionStats stats_;
  ObjectPool<Op> ops_;
  struct InFlight {
    std::uint64_t newest = 0;
    std::uint32_t count = 0;
  };
  std::unordered_map<std::uint64_t, InFlight> in_flight_;
  std::uint64_t next_seq_ = 0;
  std::vector<Nanos> cpu_free_at_;
  bool direct_sectors_;  // the child takes 512-byte writes: fragments written alone
  struct Waiter {
    Op* op;
    std::size_t block;
  };
  struct Pack {
    AlignedBuffer image;          // what the block holds once its writes land
    std::vector<Waiter> queued;   // in the image, waiting for the next write
    std::vector<Waiter> writing;  // carried by the write in flight
    bool busy = false;
  };
  std::unordered_map<std::uint64_t, std::unique_ptr<Pack>> packs_;
  // Stores in flight by fingerprint, and the blocks of the same fingerprint
  // that came meanwhile (VDO's hash lock): without it, a content written
  // again before its first write lands (fio's dedupe "repeat" mode at any
  // depth) would be stored twice.
  struct Storing {
    Waiter owner;
    std::vector<Waiter> waiters;
  };
  std::unordered_map<std::uint64_t, Storing> storing_;
};

}  // namespace tierlab
