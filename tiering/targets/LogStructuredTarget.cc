#include "tiering/targets/LogStructuredTarget.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "tiering/core/Crc32c.h"
#include "tiering/targets/ParityTarget.h"

namespace tierlab {
namespace {

std::vector<std::unique_ptr<BlockDevice>> TwoChildren(std::unique_ptr<BlockDevice> nvram,
                                                      std::unique_ptr<BlockDevice> capacity) {
  std::vector<std::unique_ptr<BlockDevice>> v;
  v.push_back(std::move(nvram));
  v.push_back(std::move(capacity));
  return v;
}

}  // namespace

LogStructuredTarget::LogStructuredTarget(Engine& engine, std::string name,
                                         std::unique_ptr<BlockDevice> nvram,
                                         std::unique_ptr<BlockDevice> capacity,
                                         LogStructuredOptions options)
    : FanOutTarget(engine, std::move(name), TwoChildren(std::move(nvram), std::move(capacity))),
      options_(options),
      log_id_(options.log_id),
      usage_(0) {
  config_error_ = Configure();
}

std::string LogStructuredTarget::Configure() {
  BlockDevice& cap = *children_[1];
  if (kLogBlockBytes % children_[0]->BlockSize() != 0 || kLogBlockBytes % cap.BlockSize() != 0) {
    return ("the children's block sizes must divide 4096");
  }
  if (!(options_.usable > 0.0 && options_.usable < 1.0)) {
    return ("usable must be in (0, 1)");
  }
  if (!(options_.cleaner_start > 0.0 && options_.cleaner_start <= 1.0)) {
    return ("cleaner_start must be in (0, 1]");
  }
  if (options_.segment_bytes == 0 || options_.cleaner_reads_in_flight == 0 ||
      options_.segment_writes_in_flight == 0) {
    return ("segment_bytes, cleaner_reads_in_flight and segment_writes_in_flight must be > 0");
  }
  // Whole stripes of a parity array: a segment write then never reads.
  std::uint64_t unit = kLogBlockBytes;
  if (const auto* raid = dynamic_cast<const ParityTarget*>(&cap); raid != nullptr) {
    if (raid->Size() == 0) return ("the capacity array is not valid");
    unit = std::lcm(unit, static_cast<std::uint64_t>(raid->data_chunks()) * raid->chunk_bytes());
  }
  segment_bytes_ = (options_.segment_bytes + unit - 1) / unit * unit;
  const std::uint64_t segments = cap.Size() / segment_bytes_;
  const std::uint64_t segment_blocks = segment_bytes_ / kLogBlockBytes;
  header_blocks_ = LogSegmentHeaderBlocks(segment_blocks);
  if (header_blocks_ >= segment_blocks) return ("segment_bytes leaves no data slots");
  data_slots_ = static_cast<std::uint32_t>(segment_blocks - header_blocks_);
  if (segments * data_slots_ >= kUnmapped) {
    return ("more than 2^32 - 1 data slots: use larger segments or a smaller device");
  }
  const std::uint64_t writes = options_.segment_writes_in_flight;
  volume_blocks_ = static_cast<std::uint64_t>(
      std::floor(options_.usable * static_cast<double>(segments * data_slots_)));
  // The cleaner's worst case: one segment open, the writes in flight and
  // its reserve all hold no victim, and the live data fills every other
  // segment, so no victim would free anything.
  if (segments < writes + 3 || volume_blocks_ >= (segments - 2 - writes) * data_slots_) {
    return ("usable " + std::to_string(options_.usable) + " of " + std::to_string(segments) +
            " segments leaves the cleaner no room: at most " +
            std::to_string(segments < writes + 3 ? 0 : (segments - 2 - writes)) +
            " segments' data may be live");
  }
  nvram_unit_ = children_[0]->BlockSize();
  if (nvram_unit_ < kNvramRecordHeaderBytes) {
    return ("the NVRAM device's block size must be at least " +
            std::to_string(kNvramRecordHeaderBytes) + " bytes (a record header)");
  }
  nvram_base_ = kLogBlockBytes / nvram_unit_;
  nvram_units_ = children_[0]->Size() / nvram_unit_;
  if (nvram_units_ < nvram_base_ + 1 + kLogBlockBytes / nvram_unit_) {
    return (
        "the NVRAM device is smaller than its label and a record (a header and a 4 KiB "
        "block)");
  }
  nvram_units_ -= nvram_base_;
  if (volume_blocks_ == 0) return ("the volume would be empty");

  usage_ = SegmentUsage(static_cast<std::uint32_t>(segments));
  index_.assign(volume_blocks_, kUnmapped);
  owner_.assign(segments * data_slots_, kUnmapped);
  in_memory_.assign(segments, nullptr);
  segment_has_data_.assign(segments, false);
  size_ = volume_blocks_ * kLogBlockBytes;
  return {};
}

LogStructuredTarget::~LogStructuredTarget() {
  // A pending cleaner retry must not run on a destroyed target.
  if (cleaner_.backoff_timer != 0) engine().Cancel(cleaner_.backoff_timer);
  // The children first: a real device waits for its requests in the kernel
  // as it closes, and those read into or write from this target's segment
  // and cleaner buffers, freed after this body.
  children_.clear();
}

double LogStructuredTarget::IndexBytesPerBlock() const {
  if (volume_blocks_ == 0) return 0.0;
  return static_cast<double>((index_.size() + owner_.size()) * sizeof(std::uint32_t)) /
         static_cast<double>(volume_blocks_);
}

LogStructuredStats LogStructuredTarget::log_stats() const {
  LogStructuredStats s = stats_;
  s.index_memory_bytes = (index_.size() + owner_.size()) * sizeof(std::uint32_t) +
                         in_memory_.size() * sizeof(std::uintptr_t) + usage_.MemoryBytes();
  return s;
}

// ---- Dispatch ---------------------------------------------------------------

void LogStructuredTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  // The index is being rebuilt: a write would take a slot the recovered
  // segments may claim and have its index entry overwritten, a read would
  // see a half-built index.
  if (recovery_ != nullptr) {
    FinishAsync(std::move(done), Status::kInvalid);
    return;
  }
  switch (req.op) {
    case IoOp::kRead: SubmitRead(req, std::move(done)); return;
    case IoOp::kWrite: SubmitWrite(req, std::move(done)); return;
    case IoOp::kDiscard: SubmitDiscard(req, std::move(done)); return;
    case IoOp::kFlush:
      if (failed_) {
        FinishAsync(std::move(done), Status::kIoError);
        return;
      }
      SubmitToAll(req, std::move(done));
      return;
  }
}

void LogStructuredTarget::SubmitDiscard(const IoRequest& req, IoCallback done) {
  Unmap(req.offset / kLogBlockBytes, req.length / kLogBlockBytes);
  FinishAsync(std::move(done), Status::kOk);
}

void LogStructuredTarget::Unmap(std::uint64_t first, std::uint64_t blocks) {
  for (std::uint64_t b = first; b < first + blocks; ++b) {
    const std::uint32_t slot = index_[b];
    if (slot == kUnmapped) continue;
    usage_.RemoveLive(slot / data_slots_);
    index_[b] = kUnmapped;
  }
}

// ---- Reads --------------------------------------------------------------------

void LogStructuredTarget::SubmitRead(const IoRequest& req, IoCallback done) {
  SplitIo* s = StartSplit(std::move(done));
  s->remaining = 1;  // held until every piece is issued
  const std::uint64_t first = req.offset / kLogBlockBytes;
  const std::uint64_t blocks = req.length / kLogBlockBytes;
  // A run of consecutive slots of one sealed segment, read in one request.
  std::uint32_t run_slot = 0;
  std::uint64_t run_len = 0;
  std::byte* run_dst = nullptr;
  auto issue_run = [&] {
    if (run_len == 0) return;
    const std::uint32_t seg = run_slot / data_slots_;
    usage_.Pin(seg);
    ++s->remaining;
    capacity().Submit({IoOp::kRead, 0, SlotOffset(run_slot), run_len * kLogBlockBytes, run_dst},
                      [this, s, seg](Status st) {
                        if (usage_.Unpin(seg) && !waiting_.empty()) PumpWrites();
                        ChildDone(s, st);
                      });
    run_len = 0;
  };
  for (std::uint64_t i = 0; i < blocks; ++i) {
    std::byte* dst = req.data != nullptr ? req.data + i * kLogBlockBytes : nullptr;
    const std::uint32_t slot = index_[first + i];
    if (slot == kUnmapped) {
      issue_run();
      if (dst != nullptr) std::memset(dst, 0, kLogBlockBytes);
      continue;
    }
    const std::uint32_t seg = slot / data_slots_;
    if (OpenSegment* m = in_memory_[seg]; m != nullptr) {
      issue_run();
      if (dst != nullptr && m->has_data) {
        std::memcpy(dst, SlotMemory(m, slot % data_slots_), kLogBlockBytes);
      }
      continue;
    }
    if (run_len > 0 && slot == run_slot + run_len && seg == run_slot / data_slots_) {
      ++run_len;
      continue;
    }
    issue_run();
    run_slot = slot;
    run_len = 1;
    run_dst = dst;
  }
  issue_run();
  if (s->remaining > 1) {
    --s->remaining;  // a child read is out and completes the request
  } else {
    engine().Post([this, s] { ChildDone(s, Status::kOk); });
  }
}

// ---- Writes -------------------------------------------------------------------

void LogStructuredTarget::SubmitWrite(const IoRequest& req, IoCallback done) {
  if (failed_) {
    FinishAsync(std::move(done), Status::kIoError);
    return;
  }
  WriteCtx* w = writes_.Acquire();
  w->done = std::move(done);
  w->first_block = req.offset / kLogBlockBytes;
  w->blocks = req.length / kLogBlockBytes;
  w->data = req.data;
  w->flags = req.flags;
  const bool queue_ahead = !waiting_.empty();
  waiting_.push_back(w);
  if (queue_ahead) {
    w->waited = true;
    ++stats_.write_waits;
    return;  // in arrival order, behind the writes already waiting
  }
  PumpWrites();
}

void LogStructuredTarget::PumpWrites() {
  if (pumping_) return;
  pumping_ = true;
  while (!waiting_.empty()) {
    WriteCtx* w = waiting_.front();
    if (!AppendSome(w)) {
      if (!w->waited) {
        w->waited = true;
        ++stats_.write_waits;
      }
      break;
    }
    waiting_.pop_front();
  }
  pumping_ = false;
}

bool LogStructuredTarget::AppendSome(WriteCtx* w) {
  const std::uint64_t per_block = kLogBlockBytes / nvram_unit_;
  while (w->next < w->blocks) {
    if (failed_) {
      w->status = Status::kIoError;
      w->next = w->blocks;
      break;
    }
    if (!EnsureOpen(Who::kForeground)) {
      CleanerKick();
      return false;
    }
    std::uint64_t n =
        std::min(w->blocks - w->next, static_cast<std::uint64_t>(data_slots_ - open_->used));
    if (w->replay_end == 0) {
      // A record of at least one block, not wrapping round the ring: a tail
      // end too short for one is skipped.
      const std::uint64_t room = nvram_units_ - (nvram_head_ - NvramReleased());
      const std::uint64_t contiguous = nvram_units_ - nvram_head_ % nvram_units_;
      const std::uint64_t pad = contiguous < 1 + per_block ? contiguous : 0;
      if (room < pad + 1 + per_block) {
        // The NVRAM log is full of blocks whose segments have not committed:
        // send the open one out now rather than wait for it to fill. (If an
        // NVRAM write in flight holds the space, its completion frees it.)
        if (NvramReleased() == nvram_tail_ && open_->has_foreground &&
            writing_.size() < options_.segment_writes_in_flight) {
          Seal(true);
        }
        return false;
      }
      nvram_head_ += pad;
      n = std::min(n, (std::min(room - pad, pad != 0 ? nvram_units_ : contiguous) - 1) / per_block);
    }
    std::byte* src = w->data != nullptr ? w->data + w->next * kLogBlockBytes : nullptr;
    for (std::uint64_t i = 0; i < n; ++i) {
      AppendBlock(w->first_block + w->next + i,
                  src != nullptr ? src + i * kLogBlockBytes : nullptr);
    }
    open_->has_foreground = true;
    w->next += n;
    if (w->replay_end != 0) {
      // The record stays in the ring until this segment commits.
      open_->nvram_end = std::max(open_->nvram_end, w->replay_end);
      replayed_blocks_ += n;
    } else {
      stats_.user_bytes_written += n * kLogBlockBytes;
      WriteRecord(w, n, src);
    }
    if (open_->used == data_slots_) Seal(false);
  }
  if (w->pending == 0) {
    // Failed before any NVRAM write went out, or a replay: complete on the
    // next turn.
    ++w->pending;
    engine().Post([this, w] { NvramDone(w, Status::kOk); });
  }
  return true;
}

void LogStructuredTarget::WriteRecord(WriteCtx* w, std::uint64_t n, const std::byte* src) {
  const std::uint64_t units = 1 + n * (kLogBlockBytes / nvram_unit_);
  const std::uint64_t bytes = units * nvram_unit_;
  NvramWrite* rec = nvram_write_pool_.Reuse();  // keeps its staging buffer
  rec->write = w;
  rec->position = nvram_head_;
  rec->done = false;
  std::byte* data = nullptr;
  if (src != nullptr) {
    if (rec->staging.size() < bytes) rec->staging = AlignedBuffer(bytes);
    NvramRecordHeader h;
    h.log_id = log_id_;
    h.position = nvram_head_;
    h.sequence = open_->sequence;
    h.segment_offset = static_cast<std::uint32_t>(open_->used - n);
    h.blocks = static_cast<std::uint32_t>(n);
    h.first_volume_block = w->first_block + w->next - n;
    h.data_crc = Crc32c(0, src, n * kLogBlockBytes);
    h.unit_bytes = nvram_unit_;
    EncodeNvramRecordHeader(h, std::span<std::byte>(rec->staging.data(), nvram_unit_));
    std::memcpy(rec->staging.data() + nvram_unit_, src, n * kLogBlockBytes);
    data = rec->staging.data();
  }
  const std::uint64_t offset = (nvram_base_ + nvram_head_ % nvram_units_) * nvram_unit_;
  nvram_head_ += units;
  open_->nvram_end = nvram_head_;
  stats_.nvram_bytes_written += bytes;
  nvram_writes_.push_back(rec);
  ++w->pending;
  nvram().Submit({IoOp::kWrite, w->flags, offset, bytes, data},
                 [this, rec](Status st) { RecordDone(rec, st); });
}

void LogStructuredTarget::RecordDone(NvramWrite* rec, Status st) {
  rec->done = true;
  WriteCtx* w = rec->write;
  while (!nvram_writes_.empty() && nvram_writes_.front()->done) {
    nvram_write_pool_.Release(nvram_writes_.front());
    nvram_writes_.pop_front();
  }
  NvramDone(w, st);
  if (!waiting_.empty()) PumpWrites();  // the oldest write in flight may have held the space
}

std::uint64_t LogStructuredTarget::NvramReleased() const {
  return nvram_writes_.empty() ? nvram_tail_
                               : std::min(nvram_tail_, nvram_writes_.front()->position);
}

void LogStructuredTarget::NvramDone(WriteCtx* w, Status st) {
  if (st != Status::kOk && w->status == Status::kOk) w->status = st;
  if (--w->pending > 0 || w->next < w->blocks) return;
  if (w->replay_end != 0) {
    const Status replayed = w->status;
    writes_.Release(w);
    RecoverReplayed(replayed);
    return;
  }
  Finish(w->done, w->status);
  writes_.Release(w);
}

bool LogStructuredTarget::EnsureOpen(Who who) {
  if (open_ != nullptr) {
    // The cleaner's reserve segment holds only its copies: foreground
    // blocks there could keep the copies' victims from ever being freed.
    return who == Who::kCleaner || !open_->cleaner_only;
  }
  if (failed_ || writing_.size() >= options_.segment_writes_in_flight) return false;
  const std::uint32_t free = usage_.free_count();
  if (free < (who == Who::kForeground ? kCleanerReserve + 1 : 1)) return false;
  const std::uint32_t slot = usage_.TakeFree();
  OpenSegment* seg = segment_pool_.Reuse();  // keeps its buffer
  seg->slot = slot;
  seg->sequence = next_sequence_++;
  seg->used = 0;
  seg->has_data = false;
  seg->has_foreground = false;
  seg->cleaner_only = who == Who::kCleaner && free <= kCleanerReserve;
  seg->written = false;
  seg->attempts = 0;
  // Committing a segment releases the NVRAM log up to here; while recovery
  // replays records, up to the last one replayed into it (AppendSome).
  seg->nvram_end = recovery_ != nullptr ? nvram_tail_ : nvram_head_;
  seg->volume_blocks.clear();
  const auto first = static_cast<std::size_t>(slot) * data_slots_;
  std::fill(owner_.begin() + first, owner_.begin() + first + data_slots_, kUnmapped);
  in_memory_[slot] = seg;
  open_ = seg;
  return true;
}

void LogStructuredTarget::AppendBlock(std::uint64_t volume_block, const std::byte* src) {
  OpenSegment* seg = open_;
  const std::uint32_t slot = seg->slot * data_slots_ + seg->used;
  const std::uint32_t old = index_[volume_block];
  if (old != kUnmapped) usage_.RemoveLive(old / data_slots_);
  index_[volume_block] = slot;
  owner_[slot] = static_cast<std::uint32_t>(volume_block);
  usage_.AddLive(seg->slot);
  seg->volume_blocks.push_back(volume_block);
  if (src != nullptr) {
    if (seg->buffer.size() < segment_bytes_) seg->buffer = AlignedBuffer(segment_bytes_);
    std::memcpy(SlotMemory(seg, seg->used), src, kLogBlockBytes);
    seg->has_data = true;
  }
  ++seg->used;
}

void LogStructuredTarget::Seal(bool early) {
  OpenSegment* seg = open_;
  open_ = nullptr;
  if (early) ++stats_.segments_sealed_early;
  usage_.SetState(seg->slot, SegmentState::kWriting);
  if (seg->has_data) {
    const std::uint32_t data_crc =
        Crc32c(0, SlotMemory(seg, 0), static_cast<std::size_t>(seg->used) * kLogBlockBytes);
    EncodeLogSegmentHeader(
        log_id_, seg->sequence, data_slots_, data_crc, seg->volume_blocks, header_blocks_,
        std::span<std::byte>(seg->buffer.data(), header_blocks_ * kLogBlockBytes));
  }
  writing_.push_back(seg);
  SubmitSegment(seg);
}

void LogStructuredTarget::SubmitSegment(OpenSegment* seg) {
  // FUA: committing the segment frees its NVRAM log space for reuse.
  capacity().Submit({IoOp::kWrite, kIoFua, seg->slot * segment_bytes_, segment_bytes_,
                     seg->has_data ? seg->buffer.data() : nullptr},
                    [this, seg](Status st) { SegmentWritten(seg, st); });
}

void LogStructuredTarget::SegmentWritten(OpenSegment* seg, Status st) {
  if (st != Status::kOk) {
    ++stats_.segment_write_errors;
    if (++seg->attempts < 3) {
      SubmitSegment(seg);
      return;
    }
    // The segment stays in memory, so its blocks still read back, but
    // nothing after it can commit: stop taking writes.
    failed_ = true;
    PumpWrites();
    CheckDrain();
    return;
  }
  seg->written = true;
  ++stats_.segments_written;
  stats_.segment_bytes_written += segment_bytes_;
  while (!writing_.empty() && writing_.front()->written) {
    OpenSegment* head = writing_.front();
    writing_.pop_front();
    Commit(head);
  }
  FreePending();
  CleanerKick();
  PumpWrites();
  CheckDrain();
}

void LogStructuredTarget::Drain(std::function<void(Status)> done) {
  drain_waiters_.push_back(std::move(done));
  engine().Post([this] { CheckDrain(); });
}

void LogStructuredTarget::CheckDrain() {
  if (drain_waiters_.empty()) return;
  if (!failed_) {
    if (open_ != nullptr && open_->used > 0) {
      if (writing_.size() < options_.segment_writes_in_flight) Seal(true);
      return;  // the segment's completion checks again
    }
    if (!writing_.empty()) return;
  }
  std::vector<std::function<void(Status)>> waiters;
  waiters.swap(drain_waiters_);
  for (auto& w : waiters) w(failed_ ? Status::kIoError : Status::kOk);
}

void LogStructuredTarget::Commit(OpenSegment* seg) {
  usage_.SetState(seg->slot, SegmentState::kSealed);
  segment_has_data_[seg->slot] = seg->has_data;
  in_memory_[seg->slot] = nullptr;
  nvram_tail_ = std::max(nvram_tail_, seg->nvram_end);
  committed_sequence_ = seg->sequence;
  segment_pool_.Release(seg);
}

void LogStructuredTarget::FreePending() {
  while (!pending_free_.empty() && pending_free_.front().sequence <= committed_sequence_) {
    usage_.Release(pending_free_.front().victim);
    pending_free_.pop_front();
  }
}

}  // namespace tierlab
