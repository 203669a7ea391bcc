#pragma once
// A log-structured volume over two children, in the manner of Nimble's CASL
// (../shared/research/CLUSTER-MODELS.md §4): every write is acknowledged from
// an NVRAM log and reaches the capacity device later as part of one large
// sequential segment write, so random writes cost the disks full-stripe
// writes instead of read-modify-write.
//
// Children (owned):
//   nvram     the write-acknowledgement log: any device; its first 4 KiB
//             hold the log's label, the rest is a circular log of records
//             (a record is one write request's blocks behind a header of
//             one device block: LogSegmentFormat.h). Whether it is
//             mirrored is the caller's business (pass a MirrorTarget, or a
//             mirror across a NetworkHopTarget for a standby controller).
//   capacity  where segments live, typically a ParityTarget of disks. It is
//             cut into segment slots of `segment_bytes`; if it is a
//             ParityTarget the segment is rounded up to whole stripes, so
//             every segment write is a full-stripe write (no parity reads).
//
// Geometry. The target's block size is 4 KiB. A segment is H header blocks
// (LogSegmentFormat.h: sequence number and the volume block of each slot)
// and D = segment_blocks - H data slots. The volume offers
// floor(usable * segments * D) blocks; the rest is the cleaner's room.
// A configuration where the cleaner could be left without room (volume
// blocks >= (segments - 2 - segment_writes_in_flight) * D: one segment
// open, the writes in flight and one reserved for the cleaner all full of
// live data) is refused: Size() is 0, every request but flush fails
// kInvalid, and config_error() says why.
//
// Write. The request's blocks are appended, in order, to the open segment
// in memory (the index points at them at once) and to the NVRAM log (one
// record, one child write, per piece that fits the open segment and the
// ring without wrapping); the request completes when its NVRAM writes have. When the open segment
// is full it is sealed: its header is filled in and the whole segment goes to the next free slot of
// the capacity device in one write (FUA: the NVRAM space it frees must not
// be needed again). A segment write completing commits the segment (they
// commit in sealing order): its NVRAM log space is released (up to the
// first NVRAM write still in flight: a late write must not land on a newer
// record) and it is read from the capacity device from then on. If the NVRAM log would overrun,
// the open segment is sealed early (padded: the write still covers whole
// stripes) and writes wait for the space. Writes wait, in arrival order,
// also while no free segment is left beyond the cleaner's reserve or
// `segment_writes_in_flight` segments are being written; they never fail
// for want of space.
//
// Flush goes to both children: acknowledged writes are in the NVRAM log,
// committed segments on the capacity device. It does not force the open
// segment out (NVRAM holds it; a partial segment would waste the disks'
// time and space).
//
// Read. Per block, the newest copy: never written (or discarded) reads
// zeros without I/O; a block in the open segment or one being written is
// copied from the segment's memory (the controller's DRAM); otherwise it is
// read from its slot on the capacity device, consecutive slots in one child
// read. A segment slot with a read in flight is not reused until the read
// completes.
//
// Index. Volume block -> slot (segment * D + offset), a flat array of
// 4-byte entries, and its reverse (slot -> volume block, 4 bytes a slot),
// which tells the cleaner which blocks of a segment are live without
// reading its header: IndexBytesPerBlock() (about 4 + 4 / usable). Up to
// 2^32 - 1 slots (16 TiB of capacity); a larger capacity is refused.
//
// Cleaner. While free segments (counting those already cleaned and waiting
// for their copies to commit) are below max(3, (1 - cleaner_start) *
// segments), it picks the sealed segment with the fewest live blocks
// (SegmentUsage: greedy), reads its live blocks (runs of consecutive slots,
// through dead gaps up to cleaner_read_gap_bytes, at most
// cleaner_reads_in_flight reads at a time, competing with foreground reads
// at the capacity device), appends those still live to the
// log, and frees the segment once the segment holding the last copy has
// committed (before that, the old copy is the only durable one). One
// segment is kept for the cleaner: foreground writes do not take the last
// free segment, and do not append to a segment opened from it. When the
// cleaner stops with a partly filled segment holding its copies and writes
// waiting, it seals the segment early, so the copies commit and the
// victims' slots come free.
//
// Discard unmaps the blocks (they read zeros; their slots are dead to the
// cleaner) and completes without child I/O.
//
// Warm (functional warming, timing-only stacks) places written blocks as
// writes would, committing each full segment at once and cleaning as the
// cleaner would have kept up (LogWarm.cc), so a run can start on a written
// volume whose segments are as fragmented as its writes left them. It
// returns the blocks it placed, written and copied by the cleaner: a
// steady count once the cleaner copies at its steady rate. A log is
// steady only once it has been written round (SNIA's random
// preconditioning, twice the volume or more); the warmer alone cannot
// tell a log that has not been from one that has.
//
// Errors. A failed NVRAM write fails the request. A failed segment write is
// retried twice; then the target fails: the segment stays in memory (its
// data still reads back), later segments cannot commit, and every later
// write and flush completes kIoError. A failed cleaner read counts an
// error and returns the victim to the sealed pool (its blocks read from
// where they are); the cleaner tries again after a backoff that doubles
// from 1 ms to 128 ms. After 16 failed rounds in a row the target fails
// as above, so waiting writes end (kIoError) rather than wait for space
// that cannot come. Nothing acknowledged is lost or read back wrong.
//
// Data. Requests with buffers move data (the segment's memory holds the
// bytes, the cleaner reads into a buffer of its own); requests without
// (timing-only simulation) make the same child requests without buffers. A
// stack is used one way or the other, not both.
//
// Shutdown and recovery. Drain() seals the open segment and waits until no
// segment is in memory: the capacity device alone then holds the volume.
// Recover() opens the log on its devices (LogRecovery.cc): it reads the
// NVRAM label; without one the devices hold no log, so it writes a label
// and the volume starts empty; with one it rebuilds a new target's index
// after a crash or a Drain. It reads every segment slot (the whole
// capacity device: recovery time grows with it) and keeps the segments of
// this log (the label's id) whose header and data CRCs match (LogSegmentFormat.h;
// a torn segment write fails them), applying their slot lists in sequence
// order, the newest copy of a block winning. A slot freed by the cleaner
// and not yet reused still holds a valid old segment: its blocks all have
// newer copies (the cleaner frees a victim only after its copies commit),
// so they lose, and the slot is sealed with no live blocks, the cleaner's
// cheapest victim. Then it scans the NVRAM ring for this log's records
// whose CRCs match. A record whose segment is not on the capacity device
// (not yet written, or torn) holds acknowledged blocks that exist nowhere
// else: each block newer than its copy on the capacity device is replayed,
// appended to a new open segment as a write is (no second NVRAM write: the
// record stays in the ring, its space held, until that segment commits).
// Older records (their segment committed, its slot cleaned and reused)
// lose to the newer copies. Recovery holds only the replayed blocks in
// memory. Not recovered: discards (not logged: a discarded block comes
// back with its last written data).

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/ObjectPool.h"
#include "tiering/targets/FanOutTarget.h"
#include "tiering/targets/LogSegmentFormat.h"
#include "tiering/targets/SegmentUsage.h"

namespace tierlab {

struct LogStructuredOptions {
  // Segment size on the capacity device, header included; rounded up to a
  // multiple of 4 KiB and of a ParityTarget's stripe. Nimble hybrid: 4.5 MiB.
  std::uint64_t segment_bytes = 4608 * 1024;
  // The volume's size as a fraction of the capacity's data slots, (0, 1).
  double usable = 0.8;
  // The cleaner runs while more than this fraction of segments is in use.
  // Segments it keeps free are spare space the live data cannot spread
  // over, so a lower start costs write amplification (at 80% usable,
  // keeping 15% free leaves the data 5% to spread into); a higher one
  // leaves less slack for a burst of writes. At least 3 are kept free.
  double cleaner_start = 0.95;
  // Cleaner reads in flight at once (its share of the capacity device).
  std::uint32_t cleaner_reads_in_flight = 4;
  // The cleaner reads a victim's live blocks in runs of up to 4.5 MiB,
  // reading through gaps of dead blocks up to this long: a disk passes
  // 1 MiB in about the time of a seek. 0 (flash): live blocks only.
  std::uint64_t cleaner_read_gap_bytes = 1024 * 1024;
  // Sealed segments being written at once; the next segment fills in
  // memory meanwhile.
  std::uint32_t segment_writes_in_flight = 2;
  // Written into the label, every segment and every NVRAM record;
  // recovery ignores what carries another id (a device reused from another
  // log). Non-zero: Recover() refuses a label with another id (a
  // persistent volume derives it from its UUID). 0: Recover() adopts the
  // label's id, or labels new devices with a random one.
  std::uint64_t log_id = 0;
};

// The target's counters, beside each child's DeviceStats.
struct LogStructuredStats {
  std::uint64_t user_bytes_written = 0;     // bytes of write requests accepted
  std::uint64_t nvram_bytes_written = 0;    // bytes written to the NVRAM log, headers included
  std::uint64_t segment_bytes_written = 0;  // capacity bytes written (headers, padding)
  std::uint64_t segments_written = 0;
  std::uint64_t segments_sealed_early = 0;  // padded: NVRAM full, or the cleaner's copies
  std::uint64_t cleaner_bytes_read = 0;
  std::uint64_t cleaner_bytes_written = 0;  // live blocks copied forward
  std::uint64_t segments_cleaned = 0;
  std::uint64_t write_waits = 0;  // writes that waited for NVRAM space or a segment
  std::uint64_t segment_write_errors = 0;
  std::uint64_t cleaner_errors = 0;
  std::uint64_t index_memory_bytes = 0;  // index, reverse map and usage table

  // Capacity bytes written per user byte written.
  double WriteAmplification() const {
    return user_bytes_written == 0 ? 0.0
                                   : static_cast<double>(segment_bytes_written) /
                                         static_cast<double>(user_bytes_written);
  }
  // Data blocks written to segments (user and cleaner copies) per user
  // block: the figure cleaning models predict, without headers and padding.
  double CleanerWriteAmplification() const {
    return user_bytes_written == 0
               ? 0.0
               : static_cast<double>(user_bytes_written + cleaner_bytes_written) /
                     static_cast<double>(user_bytes_written);
  }
};

class LogStructuredTarget final : public FanOutTarget {
 public:
  LogStructuredTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> nvram,
                      std::unique_ptr<BlockDevice> capacity, LogStructuredOptions options);
  ~LogStructuredTarget() override;

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return kLogBlockBytes; }
  std::string Kind() const override { return "log"; }

  // Why the configuration was refused; empty if it was not.
  const std::string& config_error() const { return config_error_; }
  BlockDevice& nvram() const { return *children_[0]; }
  BlockDevice& capacity() const { return *children_[1]; }
  // The effective segment size (after rounding), header included.
  std::uint64_t segment_bytes() const { return segment_bytes_; }
  std::uint32_t segments() const { return usage_.segments(); }
  std::uint32_t header_blocks() const { return header_blocks_; }
  std::uint32_t data_slots() const { return data_slots_; }
  std::uint32_t free_segments() const { return usage_.free_count(); }
  bool failed() const { return failed_; }
  // Index memory per volume block, bytes (forward and reverse maps).
  double IndexBytesPerBlock() const;
  LogStructuredStats log_stats() const;

  // Seals the open segment and runs `done` (on the engine's thread, never
  // inside the call) once no segment is open or being written: kOk, or
  // kIoError if the target has failed. Writes submitted meanwhile may
  // delay it.
  void Drain(std::function<void(Status)> done);
  // On a new target that has taken no request: rebuilds the index and the
  // usage table from the segments on the capacity device (above). `done`
  // runs once with kOk, or the first read error (the target is then
  // unusable). Reads whole segments, one at a time. Requests submitted
  // before `done` runs complete kInvalid without doing anything.
  void Recover(std::function<void(Status)> done);
  // Why Recover() refused the devices (kInvalid), or empty.
  const std::string& recovery_error() const { return recovery_error_; }
  // The log's id: the options', or the label's once recovered.
  std::uint64_t log_id() const { return log_id_; }
  // Segments Recover() found valid, and those it skipped (a header that
  // decodes but data whose CRC does not match: a torn write).
  std::uint32_t recovered_segments() const { return recovered_; }
  std::uint32_t skipped_segments() const { return skipped_; }
  // NVRAM records Recover() found valid, and the blocks it replayed from
  // them (acknowledged writes whose segment had not reached the disks).
  std::uint64_t nvram_records_found() const { return records_found_; }
  std::uint64_t replayed_blocks() const { return replayed_blocks_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  std::uint64_t WarmImpl(const IoRequest& req) override;

 private:
  static constexpr std::uint32_t kUnmapped = ~0u;
  static constexpr std::uint32_t kCleanerReserve = 1;
  enum class Who : std::uint8_t { kForeground, kCleaner };

  // A segment in memory: open (filling) or sealed and being written.
  struct OpenSegment {
    std::uint32_t slot = 0;       // segment slot on the capacity device
    std::uint64_t sequence = 0;   // order of opening = order of commit
    std::uint32_t used = 0;       // data slots filled
    bool has_data = false;        // some block carried bytes
    bool has_foreground = false;  // holds blocks backed by the NVRAM log
    bool cleaner_only = false;    // opened from the cleaner's reserve
    bool written = false;         // the capacity write completed
    std::uint32_t attempts = 0;
    std::uint64_t nvram_end = 0;               // NVRAM log position after its last record
    AlignedBuffer buffer;                      // header and data slots
    std::vector<std::uint64_t> volume_blocks;  // per used slot, for the header
  };

  struct WriteCtx {
    IoCallback done;
    std::uint64_t first_block = 0;
    std::uint64_t blocks = 0;
    std::uint64_t next = 0;  // blocks appended so far
    std::byte* data = nullptr;
    std::uint32_t flags = 0;
    std::uint32_t pending = 0;  // NVRAM writes in flight
    bool waited = false;
    // Recovery's replay of an NVRAM record ending at this position (0: a
    // client's write): appended without an NVRAM write of its own.
    std::uint64_t replay_end = 0;
    Status status = Status::kOk;
  };

  // One NVRAM record being written.
  struct NvramWrite {
    WriteCtx* write = nullptr;
    std::uint64_t position = 0;  // first unit
    bool done = false;
    AlignedBuffer staging;  // with data: the header unit and the blocks
  };

  struct Cleaner {
    bool active = false;
    std::uint32_t victim = 0;
    std::vector<std::uint32_t> live;  // offsets in the victim, ascending
    std::size_t next_read = 0;        // index into live of the next run to read
    std::uint32_t reads_in_flight = 0;
    std::size_t next_copy = 0;  // index into live of the next block to append
    bool copying = false;
    bool with_data = false;
    std::uint64_t last_sequence = 0;  // segment holding the newest copy
    Status status = Status::kOk;
    AlignedBuffer scratch;       // with data: D blocks, at their offsets
    std::uint32_t failures = 0;  // rounds in a row that failed a read
    TimerId backoff_timer = 0;   // pending retry after a failure, or 0
  };

  struct PendingFree {
    std::uint64_t sequence;  // free once this segment has committed
    std::uint32_t victim;
  };

  // Checks the options against the children and sets the geometry; the
  // reason it refuses, or empty.
  std::string Configure();

  std::uint64_t SlotOffset(std::uint32_t slot) const {
    return static_cast<std::uint64_t>(slot / data_slots_) * segment_bytes_ +
           (header_blocks_ + slot % data_slots_) * kLogBlockBytes;
  }
  std::byte* SlotMemory(OpenSegment* seg, std::uint32_t offset) const {
    return seg->buffer.data() + (header_blocks_ + offset) * kLogBlockBytes;
  }

  void SubmitRead(const IoRequest& req, IoCallback done);
  void SubmitWrite(const IoRequest& req, IoCallback done);
  void SubmitDiscard(const IoRequest& req, IoCallback done);

  // Appends what the waiting writes can, oldest first.
  void PumpWrites();
  // Appends as much of `w` as there is room for; true if all of it is.
  bool AppendSome(WriteCtx* w);
  // Writes the record of the `n` blocks just appended for `w`, at the head.
  void WriteRecord(WriteCtx* w, std::uint64_t n, const std::byte* src);
  void RecordDone(NvramWrite* rec, Status st);
  void NvramDone(WriteCtx* w, Status st);
  // NVRAM units no longer needed: committed, and no write in flight below.
  std::uint64_t NvramReleased() const;
  // Makes sure there is an open segment `who` may append to.
  bool EnsureOpen(Who who);
  // Puts `volume_block` in the open segment's next slot (`src`: its bytes).
  void AppendBlock(std::uint64_t volume_block, const std::byte* src);
  void Seal(bool early);
  void SubmitSegment(OpenSegment* seg);
  void SegmentWritten(OpenSegment* seg, Status st);
  void Commit(OpenSegment* seg);
  void FreePending();

  void CheckDrain();
  // Unmaps [first, first + blocks): they read zeros, their slots are dead.
  void Unmap(std::uint64_t first, std::uint64_t blocks);
  // Functional warming (LogWarm.cc): an open segment `who` may append to,
  // cleaning first for the foreground (blocks copied added to `*copied`);
  // commits the open segment at once.
  bool WarmOpen(Who who, std::uint64_t* copied);
  void WarmClean(std::uint64_t* copied);
  void WarmCommitOpen();
  // Recovery (LogRecovery.cc).
  void RecoverLabel(Status st);
  void RecoverNext();
  void RecoverRead(Status st);
  void RecoverApply();
  void RecoverScanNvram();
  void RecoverScanned(Status st);
  void RecoverPickReplay();
  void RecoverReadReplay();
  void RecoverReplay();
  void RecoverReplayed(Status st);
  void RecoverEnd(Status st);

  // The cleaner (LogCleaner.cc).
  std::uint32_t CleanBelow() const;
  void CleanerKick();
  void CleanerStart(std::uint32_t victim);
  void CleanerReadMore();
  void CleanerReadDone(Status st, std::uint64_t bytes);
  void CleanerCopy();
  void CleanerEnd();
  // The cleaner has nothing to do: seal a partial segment of its copies if
  // writes wait for the slots it would free.
  void CleanerIdle();

  LogStructuredOptions options_;
  std::string config_error_;
  std::uint64_t segment_bytes_ = 0;
  std::uint32_t header_blocks_ = 0;
  std::uint32_t data_slots_ = 0;
  std::uint64_t volume_blocks_ = 0;
  std::uint64_t size_ = 0;
  std::uint64_t log_id_ = 0;
  // The NVRAM ring, in units of the NVRAM device's block size, after the
  // label's `nvram_base_` units.
  std::uint32_t nvram_unit_ = 0;
  std::uint64_t nvram_base_ = 0;
  std::uint64_t nvram_units_ = 0;
  std::uint64_t nvram_head_ = 0;          // units ever used (records and padding)
  std::uint64_t nvram_tail_ = 0;          // units whose segments have committed
  std::deque<NvramWrite*> nvram_writes_;  // in position order; done ones until the oldest is
  ObjectPool<NvramWrite> nvram_write_pool_;

  std::vector<std::uint32_t> index_;  // volume block -> slot, or kUnmapped
  std::vector<std::uint32_t> owner_;  // slot -> volume block it was written for
  SegmentUsage usage_;
  std::vector<OpenSegment*> in_memory_;  // per segment slot: its memory, or null
  std::vector<bool> segment_has_data_;   // per segment slot: written with bytes

  OpenSegment* open_ = nullptr;
  std::deque<OpenSegment*> writing_;  // sealed, in sequence order
  std::uint64_t next_sequence_ = 1;
  std::uint64_t committed_sequence_ = 0;
  ObjectPool<OpenSegment> segment_pool_;
  ObjectPool<WriteCtx> writes_;
  std::deque<WriteCtx*> waiting_;
  bool pumping_ = false;
  bool failed_ = false;

  Cleaner cleaner_;
  std::deque<PendingFree> pending_free_;
  std::vector<std::function<void(Status)>> drain_waiters_;

  struct FoundSegment {
    std::uint64_t sequence;
    std::uint32_t slot;
    std::vector<std::uint64_t> volume_blocks;
  };
  struct FoundRecord {
    std::uint64_t position;
    std::uint64_t sequence;
    std::uint32_t segment_offset;
    std::uint32_t blocks;
    std::uint64_t first_volume_block;
    std::uint32_t data_crc;
    std::vector<std::uint32_t> replay;  // offsets in the record of the blocks to replay
  };
  struct Recovery {
    std::function<void(Status)> done;
    std::uint32_t next = 0;  // segment slot being read
    AlignedBuffer buffer;    // one segment, then an NVRAM scan chunk
    std::vector<FoundSegment> found;
    std::vector<std::uint64_t> slot_sequence;  // per segment slot: the applied segment's
    std::uint64_t scan_at = 0;                 // NVRAM unit the next scan chunk starts at
    std::vector<FoundRecord> records;
    std::size_t next_record = 0;             // the next record to read for replay
    std::vector<AlignedBuffer> replay_data;  // per record replayed, its blocks
    std::uint64_t replays_pending = 0;
    Status replay_status = Status::kOk;
  };
  std::unique_ptr<Recovery> recovery_;
  std::string recovery_error_;
  std::uint32_t recovered_ = 0;
  std::uint32_t skipped_ = 0;
  std::uint64_t records_found_ = 0;
  std::uint64_t replayed_blocks_ = 0;
  LogStructuredStats stats_;
};

}  // namespace tierlab
