// LogStructuredTarget's recovery from the capacity device alone: every
// segment slot is read whole, valid segments (both CRCs) are applied in
// sequence order. What it does and does not recover is in the header.

#include <algorithm>

#include "tiering/core/Crc32c.h"
#include "tiering/targets/LogStructuredTarget.h"

namespace tierlab {

void LogStructuredTarget::Recover(std::function<void(Status)> done) {
  if (size_ == 0 || recovery_ != nullptr || next_sequence_ != 1) {
    engine().Post([done = std::move(done)] { done(Status::kInvalid); });
    return;
  }
  recovery_ = std::make_unique<Recovery>();
  recovery_->done = std::move(done);
  recovery_->buffer = AlignedBuffer(segment_bytes_);
  RecoverNext();
}

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
    std::function<void(Status)> done = std::move(r.done);
    recovery_.reset();
    done(st);
    return;
  }
  LogSegmentHeader h;
  const std::size_t header_bytes = static_cast<std::size_t>(header_blocks_) * kLogBlockBytes;
  if (DecodeLogSegmentHeader(std::span<const std::byte>(r.buffer.data(), header_bytes), &h) &&
      h.data_slots == data_slots_) {
    const std::uint32_t crc =
        Crc32c(0, r.buffer.data() + header_bytes, h.volume_blocks.size() * kLogBlockBytes);
    if (crc == h.data_crc) {
      r.found.push_back({h.sequence, r.next, std::move(h.volume_blocks)});
    } else {
      ++skipped_;  // a torn write: its blocks' older copies stand
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
    newest = std::max(newest, f.sequence);
  }
  usage_.Rebuild(in_use);
  next_sequence_ = newest + 1;
  committed_sequence_ = newest;
  recovered_ = static_cast<std::uint32_t>(r.found.size());
  std::function<void(Status)> done = std::move(r.done);
  recovery_.reset();
  done(Status::kOk);
}

}  // namespace tierlab
