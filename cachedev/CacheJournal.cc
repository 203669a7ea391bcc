// The online journal (CacheJournal.h): records, group commit, journal
// blocks and checkpoints written through the cache device.

#include "cachedev/CacheJournal.h"

#include <algorithm>

#include "cachedev/CacheTarget.h"
#include "tiering/core/Crc32c.h"

namespace tierlab {

Expected<std::unique_ptr<CacheJournal>> CacheJournal::Attach(CacheTarget& target,
                                                             RecoveredMetadata m) {
  const MetadataGeometry& g = m.sb.geo;
  if (target.line_size() != g.line_size) {
    return MakeError("cache line size " + std::to_string(target.line_size()) +
                     " differs from the metadata's " + std::to_string(g.line_size));
  }
  if (target.capacity_lines() > g.slots) {
    return MakeError("cache capacity " + std::to_string(target.capacity_lines()) +
                     " lines exceeds the metadata's " + std::to_string(g.slots));
  }
  if (target.config().metadata_reserve != g.reserve) {
    return MakeError("cache metadata_reserve differs from the superblock's");
  }
  std::vector<std::pair<Slot, std::uint64_t>> lines;
  for (std::uint64_t s = 0; s < m.dirty.size(); ++s) {
    if (m.dirty[s] != kNotDirty) lines.emplace_back(static_cast<Slot>(s), m.dirty[s]);
  }
  std::unique_ptr<CacheJournal> j(new CacheJournal(target, std::move(m)));
  target.SetMetadataSink(j.get());
  if (target.RestoreDirtyLines(lines) != Status::kOk) {
    target.SetMetadataSink(nullptr);
    return MakeError("the recovered line map does not fit the cache (run tierlab check --repair)",
                     ErrorKind::kInconsistent);
  }
  return j;
}

CacheJournal::CacheJournal(CacheTarget& target, RecoveredMetadata m)
    : target_(target),
      meta_dev_(target.cache_device(0)),
      sb_(std::move(m.sb)),
      generation_(m.generation),
      next_seq_(m.next_seq),
      checkpoint_seq_(m.next_seq),
      durable_(std::move(m.dirty)),
      durable_crc_(std::move(m.crc)),
      touched_(durable_.size(), 0) {
  durable_.resize(sb_.geo.slots, kNotDirty);
  touched_.resize(sb_.geo.slots, 0);
  durable_crc_.resize(sb_.geo.slots * sb_.geo.sectors_per_line(), kNoCrc);
  live_crc_ = durable_crc_;
  for (std::uint32_t v : durable_) durable_dirty_ += v != kNotDirty;
}

CacheJournal::~CacheJournal() {
  target_.SetMetadataSink(nullptr);
}

void CacheJournal::Append(Slot slot, std::uint32_t line, std::uint32_t sector, std::uint32_t crc) {
  pending_.push_back(Record{slot, line, sector, crc});
  touched_[slot] = pending_base_ + pending_.size();
  const std::uint64_t spl = sb_.geo.sectors_per_line();
  if (line == kNotDirty) {
    std::fill_n(live_crc_.begin() + static_cast<std::ptrdiff_t>(slot * spl), spl, kNoCrc);
  } else if (sector != kNoSector) {
    live_crc_[slot * spl + sector] = crc;
  }
}

bool CacheJournal::VerifyLineData(Slot slot, std::uint64_t offset, const std::byte* data,
                                  std::uint64_t length) {
  const std::uint64_t sec = sb_.geo.sector_bytes;
  const std::uint64_t spl = sb_.geo.sectors_per_line();
  const std::uint64_t end = offset + length;
  bool ok = true;
  for (std::uint64_t k = (offset + sec - 1) / sec; (k + 1) * sec <= end && k < spl; ++k) {
    const std::uint32_t want = live_crc_[slot * spl + k];
    if (want == kNoCrc) continue;
    if (Crc32c(0, data + (k * sec - offset), sec) != want) {
      ++data_errors_;
      ok = false;
    }
  }
  return ok;
}

void CacheJournal::OnLineData(Slot slot, std::uint64_t line, std::uint64_t offset,
                              const std::byte* data, std::uint64_t length) {
  const std::uint64_t sec = sb_.geo.sector_bytes;
  const std::uint64_t end = offset + length;
  for (std::uint64_t k = offset / sec; k * sec < end; ++k) {
    const std::uint64_t b = k * sec;
    // A sector covered in part: its other bytes are not at hand, so its
    // checksum is no longer known.
    std::uint32_t crc = kNoCrc;
    if (data != nullptr && b >= offset && b + sec <= end) {
      crc = Crc32c(0, data + (b - offset), sec);
    }
    Append(slot, static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(k), crc);
  }
}

void CacheJournal::OnLineDirty(Slot slot, std::uint64_t line) {
  // A record of OnLineData for this write maps the slot already.
  const std::uint64_t t = touched_[slot];
  if (t > pending_base_ && pending_[t - pending_base_ - 1].line == line) return;
  Append(slot, static_cast<std::uint32_t>(line));
}

void CacheJournal::OnLineClean(Slot slot, std::uint64_t /*line*/) {
  Append(slot, kNotDirty);
  want_reuse_ = true;
  ScheduleBackgroundCommit();
}

void CacheJournal::OnLineInvalidated(Slot slot, std::uint64_t /*line*/) {
  Append(slot, kNotDirty);
  want_reuse_ = true;
  ScheduleBackgroundCommit();
}

bool CacheJournal::SlotReusable(Slot slot) const {
  return durable_[slot] == kNotDirty && touched_[slot] <= pending_base_;
}

void CacheJournal::ScheduleBackgroundCommit() {
  if (committing_ || bg_scheduled_) return;
  bg_scheduled_ = true;
  target_.engine().Post([this] {
    bg_scheduled_ = false;
    if (!committing_) StartCommit();
  });
}

void CacheJournal::Commit(IoCallback done) {
  if (done) waiting_.push_back(std::move(done));
  if (!committing_) StartCommit();
}

void CacheJournal::StartCommit() {
  committing_ = true;
  want_reuse_ = false;  // the records that set it are in this batch
  in_batch_.swap(waiting_);
  waiting_.clear();
  batch_n_ = pending_.size();
  batch_status_ = Status::kOk;
  batch_is_checkpoint_ = false;
  batch_blocks_ = 0;
  // Data first: every write whose record is in the batch completed before
  // this flush is submitted, so the flush covers it.
  batch_pending_ = 1;
  for (std::size_t i = 0; i < target_.cache_device_count(); ++i) {
    ++batch_pending_;
    IoRequest r;
    r.op = IoOp::kFlush;
    target_.cache_device(i).Submit(r, [this](Status st) { OnDevicesFlushed(st); });
  }
  OnDevicesFlushed(Status::kOk);
}

void CacheJournal::OnDevicesFlushed(Status st) {
  if (st != Status::kOk && batch_status_ == Status::kOk) batch_status_ = st;
  if (--batch_pending_ != 0) return;
  if (batch_status_ != Status::kOk || batch_n_ == 0) {
    // Nothing to record (the flush alone made the data durable), or failed.
    // Defer to a later turn: this may run inside the flush's SubmitImpl path.
    target_.engine().Post([this] { FinishCommit(batch_status_); });
    return;
  }
  WriteJournal();
}

void CacheJournal::WriteJournal() {
  const std::uint64_t per = MetadataGeometry::kRecordsPerBlock;
  const std::uint64_t blocks = (batch_n_ + per - 1) / per;
  const std::uint64_t nblocks = sb_.geo.journal_blocks();
  if (next_seq_ + blocks - checkpoint_seq_ > nblocks) {
    WriteCheckpointAsync();
    return;
  }
  batch_blocks_ = blocks;
  if (buf_.size() < blocks * MetadataGeometry::kBlock) {
    buf_ = AlignedBuffer(std::max<std::uint64_t>(blocks, 16) * MetadataGeometry::kBlock);
  }
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::size_t first = b * per;
    const std::size_t n = std::min<std::size_t>(per, batch_n_ - first);
    EncodeBlock(buf_.data() + b * MetadataGeometry::kBlock, sb_.uuid, next_seq_ + b, generation_,
                next_seq_, blocks, pending_.data() + first, n);
  }
  // Blocks sit at seq % nblocks: one write, or two where the ring wraps.
  const std::uint64_t pos = next_seq_ % nblocks;
  const std::uint64_t first_run = std::min(blocks, nblocks - pos);
  batch_pending_ = 1;
  auto submit = [this](std::uint64_t ring_pos, std::byte* data, std::uint64_t n_blocks) {
    ++batch_pending_;
    IoRequest r;
    r.op = IoOp::kWrite;
    r.flags = kIoFua;
    r.offset = sb_.geo.journal_offset + ring_pos * MetadataGeometry::kBlock;
    r.length = n_blocks * MetadataGeometry::kBlock;
    r.data = data;
    journal_bytes_written_ += r.length;
    meta_dev_.Submit(r, [this](Status st) { OnWritten(st); });
  };
  submit(pos, buf_.data(), first_run);
  if (first_run < blocks) {
    submit(0, buf_.data() + first_run * MetadataGeometry::kBlock, blocks - first_run);
  }
  OnWritten(Status::kOk);
}

void CacheJournal::WriteCheckpointAsync() {
  batch_is_checkpoint_ = true;
  std::vector<std::uint32_t> image = durable_;
  std::vector<std::uint32_t> crcs = durable_crc_;
  const MetadataGeometry& g = sb_.geo;
  for (std::size_t i = 0; i < batch_n_; ++i) {
    const Record& r = pending_[i];
    ApplyRecord(r.slot, r.line, r.sector, r.crc, g.sectors_per_line(), image, crcs);
  }
  if (buf_.size() < g.checkpoint_bytes) buf_ = AlignedBuffer(g.checkpoint_bytes);
  EncodeCheckpoint(buf_.data(), g, sb_.uuid, generation_ + 1, next_seq_, image, crcs);
  batch_pending_ = 2;
  IoRequest r;
  r.op = IoOp::kWrite;
  r.flags = kIoFua;
  r.offset = g.checkpoint_offset + ((generation_ + 1) % 2) * g.checkpoint_bytes;
  r.length = g.checkpoint_bytes;
  r.data = buf_.data();
  journal_bytes_written_ += r.length;
  meta_dev_.Submit(r, [this](Status st) { OnWritten(st); });
  OnWritten(Status::kOk);
}

void CacheJournal::OnWritten(Status st) {
  if (st != Status::kOk && batch_status_ == Status::kOk) batch_status_ = st;
  if (--batch_pending_ != 0) return;
  FinishCommit(batch_status_);
}

void CacheJournal::FinishCommit(Status st) {
  bool freed = false;
  if (st == Status::kOk && batch_n_ > 0) {
    for (std::size_t i = 0; i < batch_n_; ++i) {
      const Record& r = pending_[i];
      const std::uint32_t d = durable_[r.slot];
      if (d != kNotDirty) --durable_dirty_;
      if (r.line != kNotDirty) ++durable_dirty_;
      ApplyRecord(r.slot, r.line, r.sector, r.crc, sb_.geo.sectors_per_line(), durable_,
                  durable_crc_);
      freed = freed || r.line == kNotDirty;
    }
    if (batch_is_checkpoint_) {
      ++generation_;
      checkpoint_seq_ = next_seq_;
      ++checkpoints_;
    } else {
      next_seq_ += batch_blocks_;
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(batch_n_));
    pending_base_ += batch_n_;
  }
  if (st == Status::kOk) ++commits_;
  committing_ = false;
  std::vector<IoCallback> done;
  done.swap(in_batch_);
  for (IoCallback& d : done) d(st);
  if (freed) target_.OnMetadataCommitted();
  if (!waiting_.empty()) {
    StartCommit();
  } else if (st == Status::kOk && want_reuse_) {
    ScheduleBackgroundCommit();  // slots were cleaned while this commit ran
  }
}

std::vector<std::uint32_t> CacheJournal::FinalState() const {
  std::vector<std::uint32_t> s = durable_;
  for (const Record& r : pending_) s[r.slot] = r.line;
  return s;
}

std::vector<std::uint32_t> CacheJournal::FinalCrcs() const {
  std::vector<std::uint32_t> s = durable_;
  std::vector<std::uint32_t> c = durable_crc_;
  for (const Record& r : pending_) {
    ApplyRecord(r.slot, r.line, r.sector, r.crc, sb_.geo.sectors_per_line(), s, c);
  }
  return c;
}

}  // namespace tierlab
