// LogStructuredTarget's functional warming (BlockDevice::Warm): the state a
// stream of writes leaves in the log, placed at once without I/O or time,
// so a timing-only run starts on a written volume (reads that reach the
// disks, a cleaner with segments to clean) rather than on an empty log whose
// reads all return zeros for free.
//
// Each written block is appended to the open segment as a write would; a
// full segment commits at once (no NVRAM, no capacity write). Before a new
// segment is opened, the cleaner is assumed to have kept up: while fewer
// segments are free than it keeps free, it takes the greedy victim and
// copies its live blocks forward, as it would in a run. The partly filled
// segment at the end stays open, in memory, where the run goes on filling
// it (it holds no NVRAM space, which a timing-only run does not track
// beyond its position). The counters are left alone: they describe the run.

#include "tiering/targets/LogStructuredTarget.h"

namespace tierlab {

std::uint64_t LogStructuredTarget::WarmImpl(const IoRequest& req) {
  if (size_ == 0 || failed_ || recovery_ != nullptr) return 0;
  const std::uint64_t first = req.offset / kLogBlockBytes;
  const std::uint64_t blocks = req.length / kLogBlockBytes;
  if (req.op == IoOp::kDiscard) {
    Unmap(first, blocks);
    return 0;
  }
  if (req.op != IoOp::kWrite) return 0;
  std::uint64_t placed = 0;
  for (std::uint64_t b = first; b < first + blocks; ++b) {
    if (!WarmOpen(Who::kForeground, &placed)) break;  // no room even after cleaning
    AppendBlock(b, nullptr);
    ++placed;
    if (open_->used == data_slots_) WarmCommitOpen();
  }
  return placed;
}

bool LogStructuredTarget::WarmOpen(Who who, std::uint64_t* copied) {
  if (open_ != nullptr) {
    if (who == Who::kCleaner || !open_->cleaner_only) return true;
    WarmCommitOpen();  // the cleaner's partial reserve segment: sealed early, as CleanerIdle does
  }
  if (who == Who::kForeground) WarmClean(copied);
  return EnsureOpen(who);
}

void LogStructuredTarget::WarmClean(std::uint64_t* copied) {
  while (usage_.free_count() < CleanBelow()) {
    const std::uint32_t victim = usage_.PickVictim();
    if (victim == SegmentUsage::kNone || usage_.live(victim) >= data_slots_) return;
    usage_.SetState(victim, SegmentState::kCleaning);
    const std::uint32_t base = victim * data_slots_;
    for (std::uint32_t off = 0; off < data_slots_ && usage_.live(victim) > 0; ++off) {
      const std::uint32_t vb = owner_[base + off];
      if (vb == kUnmapped || index_[vb] != base + off) continue;
      if (!WarmOpen(Who::kCleaner, copied)) {
        // No segment left to copy into: the victim stays as it is.
        usage_.SetState(victim, SegmentState::kSealed);
        return;
      }
      AppendBlock(vb, nullptr);
      ++*copied;
      if (open_->used == data_slots_) WarmCommitOpen();
    }
    usage_.Release(victim);
  }
}

void LogStructuredTarget::WarmCommitOpen() {
  OpenSegment* seg = open_;
  open_ = nullptr;
  Commit(seg);
}

}  // namespace tierlab
