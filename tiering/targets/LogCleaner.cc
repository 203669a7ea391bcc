// LogStructuredTarget's cleaner (garbage collection): picks a victim
// segment, reads its live blocks, copies them forward into the log, and
// frees the victim once the copies have committed. The policy is in the
// header; this file is the mechanism.

#include <algorithm>
#include <cmath>

#include "tiering/targets/LogStructuredTarget.h"

namespace tierlab {
namespace {

// Longest cleaner read, in blocks: 4.5 MiB, a default segment, so a victim
// on disks costs one seek (1 MiB runs measured 15% slower in
// LogStructuredWriteBench); a foreground read may queue behind it for the
// few milliseconds its transfer takes.
constexpr std::uint32_t kMaxCleanerRun = 1152;

// After a failed cleaner read the victim goes back to the sealed pool and
// the cleaner tries again after a pause that doubles per failure in a row,
// from 1 ms up to 128 ms: a transient error clears, and a device that
// keeps failing is not hammered.
constexpr Nanos kCleanerFirstBackoff = 1'000'000;
constexpr Nanos kCleanerMaxBackoff = 128'000'000;
// Failed rounds in a row after which the capacity device is taken as
// unreadable: the target fails, so waiting writes end with kIoError
// instead of waiting for space the cleaner cannot make.
constexpr std::uint32_t kCleanerMaxFailures = 16;

}  // namespace

std::uint32_t LogStructuredTarget::CleanBelow() const {
  const double n = static_cast<double>(usage_.segments());
  const auto by_fraction =
      static_cast<std::uint32_t>(std::ceil((1.0 - options_.cleaner_start) * n));
  // At least the reserve, the segment the foreground takes next, and one
  // to spare, so foreground writes rarely wait for the cleaner.
  return std::max(by_fraction, kCleanerReserve + 2);
}

void LogStructuredTarget::CleanerKick() {
  if (cleaner_.active) {
    if (cleaner_.copying) CleanerCopy();  // it waited for room in the log
    return;
  }
  if (failed_ || cleaner_.backoff_timer != 0) return;
  const std::uint64_t coming_free = usage_.free_count() + usage_.draining() + pending_free_.size();
  if (coming_free >= CleanBelow()) {
    CleanerIdle();
    return;
  }
  const std::uint32_t victim = usage_.PickVictim();
  // A full victim frees nothing: copying it would only move the problem.
  if (victim == SegmentUsage::kNone || usage_.live(victim) >= data_slots_) {
    CleanerIdle();
    return;
  }
  CleanerStart(victim);
}

void LogStructuredTarget::CleanerIdle() {
  // Victims whose copies sit in the open segment are freed only when it
  // commits; if writes wait for those slots, do not wait for it to fill.
  if (open_ == nullptr || pending_free_.empty() ||
      pending_free_.back().sequence != open_->sequence ||
      writing_.size() >= options_.segment_writes_in_flight) {
    return;
  }
  if (open_->cleaner_only || !waiting_.empty()) Seal(true);
}

void LogStructuredTarget::CleanerStart(std::uint32_t victim) {
  Cleaner& c = cleaner_;
  c.active = true;
  c.victim = victim;
  c.live.clear();
  const std::uint32_t base = victim * data_slots_;
  for (std::uint32_t off = 0; off < data_slots_; ++off) {
    const std::uint32_t vb = owner_[base + off];
    if (vb != kUnmapped && index_[vb] == base + off) c.live.push_back(off);
  }
  c.next_read = 0;
  c.reads_in_flight = 0;
  c.next_copy = 0;
  c.copying = false;
  c.with_data = segment_has_data_[victim];
  c.last_sequence = 0;
  c.status = Status::kOk;
  const std::size_t need = static_cast<std::size_t>(data_slots_) * kLogBlockBytes;
  if (c.with_data && c.scratch.size() < need) c.scratch = AlignedBuffer(need);
  usage_.SetState(victim, SegmentState::kCleaning);
  CleanerReadMore();
}

void LogStructuredTarget::CleanerReadMore() {
  Cleaner& c = cleaner_;
  const std::uint64_t gap_blocks = options_.cleaner_read_gap_bytes / kLogBlockBytes;
  while (c.status == Status::kOk && c.reads_in_flight < options_.cleaner_reads_in_flight &&
         c.next_read < c.live.size()) {
    // One read from the first live block through the last one not further
    // than the gap allowance from the one before: on a disk, reading a few
    // dead blocks costs less than a seek past them.
    const std::uint32_t start = c.live[c.next_read];
    std::uint32_t end = start + 1;
    std::size_t j = c.next_read + 1;
    while (j < c.live.size() && c.live[j] - end <= gap_blocks &&
           c.live[j] + 1 - start <= kMaxCleanerRun) {
      end = c.live[j] + 1;
      ++j;
    }
    c.next_read = j;
    const std::uint64_t len = end - start;
    ++c.reads_in_flight;
    const std::uint64_t bytes = len * kLogBlockBytes;
    std::byte* dst = c.with_data ? c.scratch.data() + start * kLogBlockBytes : nullptr;
    capacity().Submit({IoOp::kRead, 0, SlotOffset(c.victim * data_slots_ + start), bytes, dst},
                      [this, bytes](Status st) { CleanerReadDone(st, bytes); });
  }
  if (c.reads_in_flight > 0) return;
  if (c.status != Status::kOk) {
    // The victim goes back to the sealed pool, its blocks still read from
    // where they are, and is tried again later: left out of the pool, a
    // few transient errors would shrink it until the cleaner could not
    // make room for writes at all.
    ++stats_.cleaner_errors;
    c.active = false;
    usage_.SetState(c.victim, SegmentState::kSealed);
    if (++c.failures >= kCleanerMaxFailures) {
      failed_ = true;
      PumpWrites();
      CheckDrain();
      return;
    }
    const Nanos delay =
        std::min(kCleanerMaxBackoff, kCleanerFirstBackoff << std::min(c.failures - 1, 16u));
    c.backoff_timer = engine().ScheduleAfter(delay, [this] {
      cleaner_.backoff_timer = 0;
      CleanerKick();
      if (!waiting_.empty()) PumpWrites();
    });
    return;
  }
  c.failures = 0;
  if (c.next_read < c.live.size()) return;
  c.copying = true;
  CleanerCopy();
}

void LogStructuredTarget::CleanerReadDone(Status st, std::uint64_t bytes) {
  --cleaner_.reads_in_flight;
  if (st == Status::kOk) {
    stats_.cleaner_bytes_read += bytes;
  } else if (cleaner_.status == Status::kOk) {
    cleaner_.status = st;
  }
  CleanerReadMore();
}

void LogStructuredTarget::CleanerCopy() {
  Cleaner& c = cleaner_;
  const std::uint32_t base = c.victim * data_slots_;
  while (c.next_copy < c.live.size()) {
    const std::uint32_t off = c.live[c.next_copy];
    const std::uint32_t vb = owner_[base + off];
    if (index_[vb] != base + off) {  // overwritten or discarded since
      ++c.next_copy;
      continue;
    }
    if (!EnsureOpen(Who::kCleaner)) return;  // resumes when a segment commits
    AppendBlock(vb, c.with_data ? c.scratch.data() + off * kLogBlockBytes : nullptr);
    c.last_sequence = open_->sequence;
    stats_.cleaner_bytes_written += kLogBlockBytes;
    ++c.next_copy;
    if (open_->used == data_slots_) Seal(false);
  }
  CleanerEnd();
}

void LogStructuredTarget::CleanerEnd() {
  Cleaner& c = cleaner_;
  c.active = false;
  c.copying = false;
  ++stats_.segments_cleaned;
  if (c.last_sequence <= committed_sequence_) {
    usage_.Release(c.victim);  // nothing copied, or the copies are durable
  } else {
    pending_free_.push_back({c.last_sequence, c.victim});
  }
  // On the next turn: a run of empty victims does not recurse.
  engine().Post([this] {
    CleanerKick();
    if (!waiting_.empty()) PumpWrites();
  });
}

}  // namespace tierlab
