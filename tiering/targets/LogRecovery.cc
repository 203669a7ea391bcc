// LogStructuredTarget's recovery (LogStructuredTarget.h, "Shutdown and
// recovery"): every segment slot is read whole and this log's valid
// segments applied in sequence order; then the NVRAM ring is scanned for
// this log's valid records, and the blocks of records whose segment never
// reached the capacity device are replayed into new segments.

#include <algorithm>
#include <random>
#include <unordered_map>

#include "tiering/core/Crc32c.h"
#include "tiering/targets/LogStructuredTarget.h"

namespace tierlab {
namespace {

// NVRAM is scanned in chunks this large, or one record's worth if larger.
constexpr std::uint64_t kScanChunkBytes = 4 << 20;

// The units the scan reads from ring unit `at`: a buffer's worth, up to the
// ring's end (a record never wraps).
std::uint64_t ScanChunkUnits(std::size_t buffer_bytes, std::uint64_t unit_bytes,
                             std::uint64_t ring_units, std::uint64_t at) {
  return std::min<std::uint64_t>(buffer_bytes / unit_bytes, ring_units - at);
}

}  // namespace

void LogStructuredTarget::Recover(std::function<void(Status)> done) {
  if (size_ == 0 || recovery_ != nullptr || next_sequence_ != 1) {
    engine().Post([done = std::move(done)] { done(Status::kInvalid); });
    return;
  }
  recovery_ = std::make_unique<Recovery>();
  recovery_->done = std::move(done);
  recovery_->buffer = AlignedBuffer(segment_bytes_);
  recovery_->slot_sequence.assign(usage_.segments(), 0);
  nvram().Submit({IoOp::kRead, 0, 0, kLogBlockBytes, recovery_->buffer.data()},
                 [this](Status st) { RecoverLabel(st); });
}

void LogStructuredTarget::RecoverLabel(Status st) {
  Recovery& r = *recovery_;
  if (st != Status::kOk) {
    RecoverEnd(st);
    return;
  }
  LogLabel label;
  if (DecodeLogLabel(std::span<const std::byte>(r.buffer.data(), kLogBlockBytes), &label)) {
    if (options_.log_id != 0 && label.log_id != options_.log_id) {
      recovery_error_ = "the NVRAM device holds log " + std::to_string(label.log_id) +
                        ", not this one's (" + std::to_string(options_.log_id) + ")";
    } else if (label.unit_bytes != nvram_unit_ || label.segment_bytes != segment_bytes_ ||
               label.data_slots != data_slots_) {
      recovery_error_ = "the log on these devices has " + std::to_string(label.segment_bytes) +
                        "-byte segments and " + std::to_string(label.unit_bytes) +
                        "-byte NVRAM units, not " + std::to_string(segment_bytes_) + " and " +
                        std::to_string(nvram_unit_);
    }
    if (!recovery_error_.empty()) {
      RecoverEnd(Status::kInvalid);
      return;
    }
    log_id_ = label.log_id;
    RecoverNext();
    return;
  }
  // No log here yet: label the devices as this log's; the volume starts
  // empty whatever the capacity device holds.
  if (log_id_ == 0) {
    std::random_device rd;
    while (log_id_ == 0) log_id_ = (static_cast<std::uint64_t>(rd()) << 32) | rd();
  }
  EncodeLogLabel({log_id_, nvram_unit_, segment_bytes_, data_slots_},
                 std::span<std::byte>(r.buffer.data(), kLogBlockBytes));
  nvram().Submit({IoOp::kWrite, kIoFua, 0, kLogBlockBytes, r.buffer.data()},
                 [this](Status st) { RecoverEnd(st); });
}

void LogStructuredTarget::RecoverEnd(Status st) {
  std::function<void(Status)> done = std::move(recovery_->done);
  recovery_.reset();
  done(st);
}

// ---- Segments on the capacity device ------------------------------------------

void LogStructuredTarget::RecoverNext() {
  Recovery& r = *recovery_;
  if (r.next == usage_.segments()) {
    RecoverApply();
    return;
  }
  capacity().Submit({IoOp::kRead, 0, r.next * segment_bytes_, segment_bytes_, r.buffer.data()},
                    [this](Status st) { RecoverRead(st); });
}

void LogStructuredTarget::RecoverRead(Status st) {
  Recovery& r = *recovery_;
  if (st != Status::kOk) {
    RecoverEnd(st);
    return;
  }
  LogSegmentHeader h;
  const std::size_t header_bytes = static_cast<std::size_t>(header_blocks_) * kLogBlockBytes;
  if (DecodeLogSegmentHeader(std::span<const std::byte>(r.buffer.data(), header_bytes), &h) &&
      h.log_id == log_id_ && h.data_slots == data_slots_) {
    const std::uint32_t crc =
        Crc32c(0, r.buffer.data() + header_bytes, h.volume_blocks.size() * kLogBlockBytes);
    if (crc == h.data_crc) {
      r.found.push_back({h.sequence, r.next, std::move(h.volume_blocks)});
    } else {
      ++skipped_;  // a torn write: its blocks are in NVRAM records, or older copies stand
    }
  }
  ++r.next;
  RecoverNext();
}

void LogStructuredTarget::RecoverApply() {
  Recovery& r = *recovery_;
  std::sort(r.found.begin(), r.found.end(),
            [](const FoundSegment& a, const FoundSegment& b) { return a.sequence < b.sequence; });
  std::vector<bool> in_use(usage_.segments(), false);
  std::uint64_t newest = 0;
  for (const FoundSegment& f : r.found) {
    for (std::size_t i = 0; i < f.volume_blocks.size(); ++i) {
      const std::uint64_t vb = f.volume_blocks[i];
      if (vb >= volume_blocks_) continue;  // not this volume's: ignore
      const std::uint32_t slot = f.slot * data_slots_ + static_cast<std::uint32_t>(i);
      const std::uint32_t old = index_[vb];
      if (old != kUnmapped) usage_.RemoveLive(old / data_slots_);
      index_[vb] = slot;
      owner_[slot] = static_cast<std::uint32_t>(vb);
      usage_.AddLive(f.slot);
    }
    in_use[f.slot] = true;
    segment_has_data_[f.slot] = true;
    r.slot_sequence[f.slot] = f.sequence;
    newest = std::max(newest, f.sequence);
  }
  usage_.Rebuild(in_use);
  next_sequence_ = newest + 1;
  committed_sequence_ = newest;
  recovered_ = static_cast<std::uint32_t>(r.found.size());
  const std::uint64_t record_units = 1 + data_slots_ * (kLogBlockBytes / nvram_unit_);
  r.buffer = AlignedBuffer(
      std::min(nvram_units_, std::max(kScanChunkBytes / nvram_unit_, record_units)) * nvram_unit_);
  RecoverScanNvram();
}

// ---- Records in the NVRAM ring -------------------------------------------------

void LogStructuredTarget::RecoverScanNvram() {
  Recovery& r = *recovery_;
  if (r.scan_at >= nvram_units_) {
    RecoverPickReplay();
    return;
  }
  const std::uint64_t units = ScanChunkUnits(r.buffer.size(), nvram_unit_, nvram_units_, r.scan_at);
  nvram().Submit({IoOp::kRead, 0, (nvram_base_ + r.scan_at) * nvram_unit_, units * nvram_unit_,
                  r.buffer.data()},
                 [this](Status st) { RecoverScanned(st); });
}

void LogStructuredTarget::RecoverScanned(Status st) {
  Recovery& r = *recovery_;
  if (st != Status::kOk) {
    RecoverEnd(st);
    return;
  }
  const std::uint64_t units = ScanChunkUnits(r.buffer.size(), nvram_unit_, nvram_units_, r.scan_at);
  const std::uint64_t per_block = kLogBlockBytes / nvram_unit_;
  std::uint64_t u = 0;
  while (u < units) {
    const std::byte* p = r.buffer.data() + u * nvram_unit_;
    NvramRecordHeader h;
    if (!DecodeNvramRecordHeader(std::span<const std::byte>(p, nvram_unit_), &h) ||
        h.log_id != log_id_ || h.unit_bytes != nvram_unit_ ||
        h.position % nvram_units_ != r.scan_at + u || h.blocks > data_slots_ ||
        h.segment_offset > data_slots_ - h.blocks || h.first_volume_block >= volume_blocks_ ||
        h.blocks > volume_blocks_ - h.first_volume_block) {
      ++u;
      continue;
    }
    const std::uint64_t rec_units = 1 + h.blocks * per_block;
    if (r.scan_at + u + rec_units > nvram_units_) {
      ++u;  // a record never wraps: not one
      continue;
    }
    if (u + rec_units > units) break;  // runs past this chunk: the next one starts here
    if (Crc32c(0, p + nvram_unit_, h.blocks * kLogBlockBytes) != h.data_crc) {
      ++u;  // torn: its write was not acknowledged
      continue;
    }
    r.records.push_back(
        {h.position, h.sequence, h.segment_offset, h.blocks, h.first_volume_block, h.data_crc, {}});
    u += rec_units;
  }
  // The buffer holds a whole record, so a chunk always gets past its start.
  r.scan_at += std::max<std::uint64_t>(u, 1);
  RecoverScanNvram();
}

// Which blocks of which records to replay: those of records whose segment
// is not on the capacity device, each block's newest copy, where it is
// newer than the copy on the capacity device.
void LogStructuredTarget::RecoverPickReplay() {
  Recovery& r = *recovery_;
  records_found_ = r.records.size();
  const std::uint64_t per_block = kLogBlockBytes / nvram_unit_;
  std::uint64_t head = 0;
  std::uint64_t newest = next_sequence_ - 1;
  for (const FoundRecord& f : r.records) {
    head = std::max(head, f.position + 1 + f.blocks * per_block);
    newest = std::max(newest, f.sequence);
  }
  // New segments and records come after everything found.
  nvram_head_ = head;
  nvram_tail_ = head;
  next_sequence_ = newest + 1;
  committed_sequence_ = newest;

  std::sort(r.records.begin(), r.records.end(), [](const FoundRecord& a, const FoundRecord& b) {
    return a.sequence != b.sequence ? a.sequence < b.sequence : a.segment_offset < b.segment_offset;
  });
  std::vector<std::uint64_t> on_disk;
  for (const FoundSegment& f : r.found) on_disk.push_back(f.sequence);  // sorted
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> newest_copy;
  for (std::uint32_t k = 0; k < r.records.size(); ++k) {
    const FoundRecord& f = r.records[k];
    // A record whose ring space has been written over since was released
    // then: its segment committed. So was one whose segment is on disk.
    if (f.position + nvram_units_ < head ||
        std::binary_search(on_disk.begin(), on_disk.end(), f.sequence)) {
      continue;
    }
    for (std::uint32_t i = 0; i < f.blocks; ++i) {
      const std::uint64_t vb = f.first_volume_block + i;
      const std::uint32_t slot = index_[vb];
      const std::uint64_t on_capacity = slot == kUnmapped ? 0 : r.slot_sequence[slot / data_slots_];
      if (f.sequence > on_capacity) newest_copy[vb] = {k, i};
    }
  }
  for (const auto& [vb, at] : newest_copy) r.records[at.first].replay.push_back(at.second);
  for (FoundRecord& f : r.records) {
    if (f.replay.empty()) continue;
    std::sort(f.replay.begin(), f.replay.end());
    // Held until the segment the blocks are replayed into commits.
    nvram_tail_ = std::min(nvram_tail_, f.position);
  }
  RecoverReadReplay();
}

void LogStructuredTarget::RecoverReadReplay() {
  Recovery& r = *recovery_;
  while (r.next_record < r.records.size() && r.records[r.next_record].replay.empty()) {
    ++r.next_record;
  }
  if (r.next_record == r.records.size()) {
    r.buffer = AlignedBuffer();
    RecoverReplay();
    return;
  }
  const FoundRecord& f = r.records[r.next_record];
  r.replay_data.emplace_back(f.blocks * kLogBlockBytes);
  const std::uint64_t at = (nvram_base_ + f.position % nvram_units_ + 1) * nvram_unit_;
  nvram().Submit({IoOp::kRead, 0, at, f.blocks * kLogBlockBytes, r.replay_data.back().data()},
                 [this](Status st) {
                   Recovery& rr = *recovery_;
                   const FoundRecord& g = rr.records[rr.next_record];
                   if (st == Status::kOk && Crc32c(0, rr.replay_data.back().data(),
                                                   g.blocks * kLogBlockBytes) != g.data_crc) {
                     st = Status::kIoError;  // changed since the scan read it
                   }
                   if (st != Status::kOk) {
                     RecoverEnd(st);
                     return;
                   }
                   ++rr.next_record;
                   RecoverReadReplay();
                 });
}

void LogStructuredTarget::RecoverReplay() {
  Recovery& r = *recovery_;
  const std::uint64_t per_block = kLogBlockBytes / nvram_unit_;
  std::size_t data = 0;
  for (const FoundRecord& f : r.records) {
    if (f.replay.empty()) continue;
    std::byte* blocks = r.replay_data[data++].data();
    // Runs of consecutive blocks, each appended as a write without its own
    // NVRAM record.
    for (std::size_t i = 0; i < f.replay.size();) {
      std::size_t j = i + 1;
      while (j < f.replay.size() && f.replay[j] == f.replay[j - 1] + 1) ++j;
      WriteCtx* w = writes_.Acquire();
      w->first_block = f.first_volume_block + f.replay[i];
      w->blocks = j - i;
      w->data = blocks + f.replay[i] * kLogBlockBytes;
      w->replay_end = f.position + 1 + f.blocks * per_block;
      waiting_.push_back(w);
      ++r.replays_pending;
      i = j;
    }
  }
  if (r.replays_pending == 0) {
    RecoverEnd(Status::kOk);
    return;
  }
  PumpWrites();
}

void LogStructuredTarget::RecoverReplayed(Status st) {
  Recovery& r = *recovery_;
  if (st != Status::kOk && r.replay_status == Status::kOk) r.replay_status = st;
  if (--r.replays_pending == 0) RecoverEnd(r.replay_status);
}

}  // namespace tierlab
