// Recovery of the cache target's dirty lines from persistent metadata
// (MetadataRecovery.h): installs them exactly where the journal says they are, so
// their data is read from the slots it was written to.

#include <algorithm>

#include "cachedev/CacheTarget.h"

namespace tierlab {

Status CacheTarget::RestoreDirtyLines(const std::vector<std::pair<Slot, std::uint64_t>>& lines) {
  const std::uint32_t cap = table_.capacity();
  if (table_.resident() != 0 || table_.free() != cap || !parked_.empty()) return Status::kInvalid;
  const std::uint64_t volume_lines = (Size() + line_size_ - 1) / line_size_;
  constexpr std::uint64_t kEmpty = UINT64_MAX;
  std::vector<std::uint64_t> want(cap, kEmpty);
  std::vector<std::uint64_t> keys;
  keys.reserve(lines.size());
  for (const auto& [slot, line] : lines) {
    if (slot >= cap || line >= volume_lines || want[slot] != kEmpty) return Status::kInvalid;
    want[slot] = line;
    keys.push_back(line);
  }
  std::sort(keys.begin(), keys.end());
  if (std::adjacent_find(keys.begin(), keys.end()) != keys.end()) return Status::kInvalid;

  // A fresh table hands out each device's free slots in ascending order
  // (LineTable.h), so asking for slot s's device in ascending s visits every
  // slot once; the unused ones go back in reverse, which restores the
  // ascending free order.
  const Nanos now = engine().Now();
  std::vector<Slot> unused;
  unused.reserve(cap - lines.size());
  for (Slot s = 0; s < cap; ++s) {
    const Slot got = table_.AllocFree(placement_.Device(s));
    if (got != s) {
      // Not the order this code relies on: give everything back untouched.
      if (got != LineTable::kNone) table_.Release(got);
      for (auto it = unused.rbegin(); it != unused.rend(); ++it) table_.Release(*it);
      return Status::kInvalid;
    }
    if (want[s] == kEmpty) {
      unused.push_back(s);
      continue;
    }
    table_.Insert(s, want[s]);  // dirty: the replacement policy tracks clean lines only
    table_.SetDirty(s, true);
    destager_.MarkDirty(want[s], now);
  }
  for (auto it = unused.rbegin(); it != unused.rend(); ++it) table_.Release(*it);
  destager_.MaybeDestage();
  return Status::kOk;
}

}  // namespace tierlab
