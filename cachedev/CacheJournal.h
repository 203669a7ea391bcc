#pragma once
// The online metadata journal of a running volume: a CacheMetadataSink that
// records every dirty/clean transition of the cache target and every data
// checksum (the format: MetadataFormat.h), and commits them on every flush
// (dm-cache commits on FLUSH/FUA too). Unlike dm-cache, recovery
// (MetadataRecovery.h) knows exactly which lines are dirty: nothing is
// assumed dirty, nothing acknowledged-and-flushed is lost. The contract is in
// docs/DURABILITY.md.
//
// Commit (a flush, or in the background when destaged slots wait to be
// reused): snapshot the records, flush every cache device (the data of the
// dirty lines becomes durable before any record naming them), then write the
// journal blocks with FUA — or, when the ring is full, a whole checkpoint to
// the inactive copy with FUA. One commit runs at a time; flushes arriving
// meanwhile share the next one (group commit).
//
// Threading: engine thread only. Ownership: borrows the target and its cache
// devices; destroy it after the target has no request in flight.

#include <cstdint>
#include <memory>
#include <vector>

#include "cachedev/CacheMetadataSink.h"
#include "cachedev/MetadataFormat.h"
#include "cachedev/MetadataRecovery.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/Expected.h"

namespace tierlab {

class CacheTarget;
class BlockDevice;

class CacheJournal final : public CacheMetadataSink {
 public:
  // Attaches to `target` (SetMetadataSink) with the state `m` recovered and
  // re-checkpointed by the caller (generation `m.generation`, journal from
  // `m.next_seq`), and restores its dirty lines into the target.
  static Expected<std::unique_ptr<CacheJournal>> Attach(CacheTarget& target, RecoveredMetadata m);
  ~CacheJournal() override;

  void OnLineData(Slot slot, std::uint64_t line, std::uint64_t offset, const std::byte* data,
                  std::uint64_t length) override;
  void OnLineDirty(Slot slot, std::uint64_t line) override;
  bool VerifyLineData(Slot slot, std::uint64_t offset, const std::byte* data,
                      std::uint64_t length) override;
  void OnLineClean(Slot slot, std::uint64_t line) override;
  void OnLineInvalidated(Slot slot, std::uint64_t line) override;
  bool SlotReusable(Slot slot) const override;
  void Commit(IoCallback done) override;

  // The durable state plus every record not committed yet: what a final
  // checkpoint may write once the cache devices are flushed and no request
  // is in flight (CloseVolume).
  std::vector<std::uint32_t> FinalState() const;
  // The data checksums that go with FinalState().
  std::vector<std::uint32_t> FinalCrcs() const;
  const Superblock& superblock() const { return sb_; }
  std::uint64_t generation() const { return generation_; }
  std::uint64_t next_seq() const { return next_seq_; }
  std::uint64_t durable_dirty() const { return durable_dirty_; }
  std::uint64_t commits() const { return commits_; }
  std::uint64_t checkpoints() const { return checkpoints_; }
  std::uint64_t journal_bytes_written() const { return journal_bytes_written_; }
  // Sectors that failed VerifyLineData (lost or torn writes seen live).
  std::uint64_t data_errors() const { return data_errors_; }

 private:
  using Record = JournalRecord;

  CacheJournal(CacheTarget& target, RecoveredMetadata m);
  void Append(Slot slot, std::uint32_t line, std::uint32_t sector = kNoSector,
              std::uint32_t crc = kNoCrc);
  void ScheduleBackgroundCommit();
  void StartCommit();
  void OnDevicesFlushed(Status st);
  void WriteJournal();
  void WriteCheckpointAsync();
  void OnWritten(Status st);
  void FinishCommit(Status st);

  CacheTarget& target_;
  BlockDevice& meta_dev_;
  Superblock sb_;
  std::uint64_t generation_;
  std::uint64_t next_seq_;
  std::uint64_t checkpoint_seq_;            // first seq of the current generation
  std::vector<std::uint32_t> durable_;      // per slot
  std::vector<std::uint32_t> durable_crc_;  // per slot and sector
  std::vector<std::uint32_t> live_crc_;     // the same with every record applied
  std::vector<std::uint64_t> touched_;      // per slot: index+1 of its latest record
  std::vector<Record> pending_;
  std::uint64_t pending_base_ = 0;  // global index of pending_[0]
  std::uint64_t durable_dirty_ = 0;

  // Commit in flight.
  bool committing_ = false;
  bool bg_scheduled_ = false;
  bool want_reuse_ = false;  // a slot waits for a commit to be reusable
  std::size_t batch_n_ = 0;  // records in the commit
  std::uint32_t batch_pending_ = 0;
  Status batch_status_ = Status::kOk;
  bool batch_is_checkpoint_ = false;
  std::uint64_t batch_blocks_ = 0;
  std::vector<IoCallback> waiting_;   // flushes for the next commit
  std::vector<IoCallback> in_batch_;  // flushes the running commit answers
  AlignedBuffer buf_;

  std::uint64_t commits_ = 0;
  std::uint64_t checkpoints_ = 0;
  std::uint64_t journal_bytes_written_ = 0;
  std::uint64_t data_errors_ = 0;
};

}  // namespace tierlab
