#include "bench/analysis/PolicySweep.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <memory>
#include <thread>

#include "policies/ByteSize.h"

namespace tierlab {
namespace {

constexpr std::uint32_t kNoSlot = UINT32_MAX;

double Ratio(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

struct ModeName {
  SweepWriteMode mode;
  std::string_view name;
};
constexpr ModeName kModes[] = {{SweepWriteMode::kWriteBack, "writeback"},
                               {SweepWriteMode::kWriteThrough, "writethrough"},
                               {SweepWriteMode::kWriteAround, "writearound"},
                               {SweepWriteMode::kWriteOnly, "writeonly"},
                               {SweepWriteMode::kNone, "none"}};

// A cache of `capacity` dense slots over one policy: the map from line id
// to slot is an array over the trace's unique lines, so a lookup is one
// load. Free slots (never used, or left by an invalidation) are taken
// first; when none is left an insertion evicts and reuses the victim's.
class SweepCache {
 public:
  SweepCache(const SweepTrace& trace, ReplacementPolicy& policy, std::uint64_t capacity,
             AdmissionPolicy* admission)
      : policy_(policy),
        admission_(admission),
        slot_of_(trace.unique_lines(), kNoSlot),
        line_of_(capacity),
        dirty_(capacity, 0) {
    if (admission != nullptr) trace_line_.assign(capacity, 0);
    free_.reserve(capacity);
    for (std::uint64_t s = capacity; s-- > 0;) free_.push_back(static_cast<std::uint32_t>(s));
  }

  std::uint32_t SlotOf(std::uint32_t id) const { return slot_of_[id]; }
  void Prefetch(std::uint32_t id) const { __builtin_prefetch(&slot_of_[id]); }

  void Touch(std::uint32_t slot, bool dirty) {
    policy_.Touch(slot);
    if (dirty) dirty_[slot] = 1;
  }

  // `trace_line`: the line's number in the trace, for pinned ranges.
  void Insert(std::uint32_t id, bool dirty, std::uint64_t trace_line, SweepCounts& c) {
    std::uint32_t slot = 0;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      const std::optional<Slot> victim = policy_.Evict(PinFilter());
      if (!victim) {
        ++c.bypasses;
        return;
      }
      slot = *victim;
      ++c.evictions;
      if (dirty_[slot] != 0) ++c.dirty_evictions;
      slot_of_[line_of_[slot]] = kNoSlot;
    }
    slot_of_[id] = slot;
    line_of_[slot] = id;
    dirty_[slot] = dirty ? 1 : 0;
    if (!trace_line_.empty()) trace_line_[slot] = trace_line;
    policy_.Insert(slot, id);
  }

  // Invalidation: the line leaves without a destage (its data is
  // superseded or discarded).
  void Remove(std::uint32_t slot) {
    policy_.Remove(slot);
    slot_of_[line_of_[slot]] = kNoSlot;
    free_.push_back(slot);
  }

 private:
  EvictFilter PinFilter() {
    if (admission_ == nullptr) return {};
    return {[](void* ctx, Slot s) {
              auto* self = static_cast<SweepCache*>(ctx);
              return !self->admission_->Pinned(self->trace_line_[s]);
            },
            this};
  }

  ReplacementPolicy& policy_;
  AdmissionPolicy* admission_;
  std::vector<std::uint32_t> slot_of_;     // line id -> slot
  std::vector<std::uint32_t> line_of_;     // slot -> line id
  std::vector<std::uint8_t> dirty_;        // slot -> dirty
  std::vector<std::uint64_t> trace_line_;  // slot -> trace line (admission only)
  std::vector<std::uint32_t> free_;        // lowest slot on top
};

// A cache at least as large as the working set never evicts, so it holds
// only what can be resident; the policy is built for that capacity.
std::uint64_t CellCapacity(const SweepTrace& trace, std::uint64_t size_lines) {
  return std::max<std::uint64_t>(1, std::min(size_lines, trace.unique_lines()));
}

}  // namespace

double SweepCounts::MissRatio() const {
  return Ratio(read_misses + write_misses, read_refs + write_refs);
}
double SweepCounts::ReadMissRatio() const {
  return Ratio(read_misses, read_refs);
}
double SweepCounts::WriteMissRatio() const {
  return Ratio(write_misses, write_refs);
}
double SweepCounts::ByteMissRatio() const {
  return Ratio(read_miss_bytes + write_miss_bytes, read_bytes + write_bytes);
}
double SweepCounts::ReadByteMissRatio() const {
  return Ratio(read_miss_bytes, read_bytes);
}
double SweepCounts::WriteByteMissRatio() const {
  return Ratio(write_miss_bytes, write_bytes);
}

Expected<SweepWriteMode> ParseSweepWriteMode(std::string_view text) {
  for (const ModeName& m : kModes) {
    if (m.name == text) return m.mode;
  }
  return Error{"unknown write mode \"" + std::string(text) +
                   "\" (valid: writeback, writethrough, writearound, writeonly, none)",
               ErrorKind::kInput};
}

std::string_view ToString(SweepWriteMode mode) {
  for (const ModeName& m : kModes) {
    if (m.mode == mode) return m.name;
  }
  return "?";
}

Expected<std::vector<std::uint64_t>> ParseSweepSizes(std::string_view text, std::uint64_t line_size,
                                                     std::uint64_t unique_lines) {
  std::vector<std::uint64_t> sizes;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto bad = [&](const std::string& why) {
      return Error{"size \"" + std::string(item) + "\": " + why, ErrorKind::kInput};
    };
    if (item.empty()) return bad("empty (sizes are LINES, BYTES with k/m/g/t, or PERCENT%)");
    std::uint64_t lines = 0;
    if (item.back() == '%') {
      double pct = 0;
      const std::string_view num = item.substr(0, item.size() - 1);
      const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), pct);
      if (ec != std::errc() || end != num.data() + num.size() || !(pct > 0) || pct > 100) {
        return bad("a percentage must be in (0, 100]");
      }
      lines = static_cast<std::uint64_t>(pct / 100.0 * static_cast<double>(unique_lines) + 0.5);
    } else if (std::isdigit(static_cast<unsigned char>(item.back())) != 0) {
      const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), lines);
      if (ec != std::errc() || end != item.data() + item.size() || lines == 0) {
        return bad("a count of lines must be a whole number > 0");
      }
    } else {
      const std::optional<std::uint64_t> bytes = ParseByteSize(item);
      if (!bytes || *bytes == 0) return bad("bytes are digits with a k, m, g or t suffix");
      lines = *bytes / line_size;
    }
    sizes.push_back(std::max<std::uint64_t>(lines, 1));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

SweepCounts SimulateCell(const SweepTrace& trace, ReplacementPolicy& policy,
                         std::uint64_t size_lines, AdmissionPolicy* admission,
                         SweepWriteMode writes) {
  SweepCounts c;
  SweepCache cache(trace, policy, CellCapacity(trace, size_lines), admission);
  const std::uint32_t* next_id = trace.ids().data();
  const std::uint64_t line_size = trace.line_size();
  for (const SweepTrace::Request& r : trace.requests()) {
    const std::uint32_t* ids = next_id;
    next_id += r.lines;
    if (r.op == IoOp::kDiscard) {
      if (writes == SweepWriteMode::kNone) continue;
      for (std::uint32_t i = 0; i < r.lines; ++i) {
        const std::uint32_t s = cache.SlotOf(ids[i]);
        if (s != kNoSlot) cache.Remove(s);
      }
      continue;
    }
    ++c.requests;
    const bool is_write = r.op == IoOp::kWrite;
    AccessInfo info{r.offset, r.length, r.offset / line_size, is_write, r.time};
    if (admission != nullptr) admission->Observe(info);
    // What a reference does in this mode (the file comment of PolicySweep.h).
    const bool dirty =
        is_write && (writes == SweepWriteMode::kWriteBack || writes == SweepWriteMode::kWriteOnly);
    const bool insert =
        is_write ? writes != SweepWriteMode::kWriteAround : writes != SweepWriteMode::kWriteOnly;
    const bool invalidate = is_write && writes == SweepWriteMode::kWriteAround;
    std::uint64_t& misses = is_write ? c.write_misses : c.read_misses;
    std::uint64_t& miss_bytes = is_write ? c.write_miss_bytes : c.read_miss_bytes;
    (is_write ? c.write_refs : c.read_refs) += r.lines;
    (is_write ? c.write_bytes : c.read_bytes) += r.length;
    for (std::uint32_t i = 0; i < r.lines; ++i) {
      if (i + 4 < r.lines) cache.Prefetch(ids[i + 4]);
      const std::uint32_t s = cache.SlotOf(ids[i]);
      if (s != kNoSlot) {
        if (invalidate) {
          cache.Remove(s);
        } else {
          cache.Touch(s, dirty);
        }
        continue;
      }
      ++misses;
      miss_bytes += trace.LineBytes(r, i);
      if (!insert) continue;
      if (admission != nullptr) {
        info.line = trace.object() ? r.offset / line_size : r.offset / line_size + i;
        if (!admission->Admit(info)) continue;
      }
      cache.Insert(ids[i], dirty, info.line, c);
    }
  }
  return c;
}

Expected<std::vector<SweepResult>> RunSweep(const SweepTrace& trace, const SweepOptions& options) {
  std::vector<SweepResult> results;
  for (const ReplacementSpec& p : options.policies) {
    for (const std::uint64_t size : options.sizes_lines) {
      if (CellCapacity(trace, size) >= (std::uint64_t{1} << 31)) {
        return Error{"size " + std::to_string(size) + " lines: a policy indexes fewer than 2^31",
                     ErrorKind::kInput};
      }
      results.push_back({p.text, size, size * trace.line_size(), {}});
    }
  }
  std::atomic<std::size_t> next{0};
  const std::size_t per_policy = options.sizes_lines.size();
  auto work = [&] {
    for (std::size_t i = next++; i < results.size(); i = next++) {
      SweepResult& r = results[i];
      std::unique_ptr<ReplacementPolicy> policy =
          options.policies[i / per_policy].make(CellCapacity(trace, r.size_lines), options.seed);
      std::unique_ptr<AdmissionPolicy> admission;
      if (options.admission) admission = options.admission->make(trace.line_size());
      r.counts = SimulateCell(trace, *policy, r.size_lines, admission.get(), options.writes);
    }
  };
  unsigned threads = options.threads != 0 ? options.threads : std::thread::hardware_concurrency();
  threads = static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, results.size()));
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  return results;
}

}  // namespace tierlab
