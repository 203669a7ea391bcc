// libFuzzer target for the policy sweep: the input's first line is tried as
// a --sizes list, the rest becomes a request stream (4 bytes a request: op,
// line, length in lines, admission/mode choice) replayed by every policy in
// every write mode at a few sizes. Invariants: misses never exceed
// references, dirty evictions never exceed evictions, LRU with writes as
// references equals the stack-distance curve. See fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "bench/analysis/PolicySweep.h"
#include "bench/analysis/StackDistanceMrc.h"

namespace {

constexpr std::uint64_t kLine = 4096;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tierlab;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t nl = text.find('\n');
  auto sizes = ParseSweepSizes(text.substr(0, nl), kLine, 64);
  if (sizes.ok()) {
    for (std::uint64_t s : *sizes) {
      if (s == 0) std::abort();
    }
  }
  if (nl == std::string_view::npos) return 0;
  const std::string_view body = text.substr(nl + 1);
  std::vector<TraceRecord> recs;
  for (std::size_t i = 0; i + 4 <= body.size() && recs.size() < 2000; i += 4) {
    const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(body[i + k]); };
    const IoOp op = b(0) % 8 < 5 ? IoOp::kRead : (b(0) % 8 < 7 ? IoOp::kWrite : IoOp::kDiscard);
    const std::uint64_t offset = (b(1) % 64) * kLine + (b(3) % 2 == 0 ? 0 : 512);
    recs.push_back({0, op, offset, static_cast<std::uint32_t>((1 + b(2) % 8) * kLine)});
  }
  for (bool object : {false, true}) {
    auto trace = SweepTrace::FromRecords(recs, {kLine, object}, "fuzz");
    if (!trace.ok()) std::abort();
    StackDistanceMrc mrc(kLine);
    for (const TraceRecord& r : recs) mrc.Add(r);
    for (const std::string& name : ReplacementPolicyNames()) {
      for (std::uint64_t cap : {1, 7, 40}) {
        for (SweepWriteMode m :
             {SweepWriteMode::kWriteBack, SweepWriteMode::kWriteThrough,
              SweepWriteMode::kWriteAround, SweepWriteMode::kWriteOnly, SweepWriteMode::kNone}) {
          auto p = MakeReplacementPolicy(
              name,
              std::min<std::uint64_t>(cap, std::max<std::uint64_t>(1, trace->unique_lines())));
          auto adm = MakeAdmissionPolicy(recs.size() % 2 == 0 ? "always" : "nhit:2", kLine);
          const SweepCounts c = SimulateCell(*trace, *p, cap, adm.get(), m);
          if (c.read_misses > c.read_refs || c.write_misses > c.write_refs) std::abort();
          if (c.dirty_evictions > c.evictions) std::abort();
          if (c.read_miss_bytes > c.read_bytes || c.write_miss_bytes > c.write_bytes) std::abort();
          const bool exact_lru = name == "lru" && !object && m == SweepWriteMode::kNone;
          // Admission "always" (even sizes); discards are neither
          // references nor invalidations in both.
          if (exact_lru && recs.size() % 2 == 0 &&
              c.read_misses + c.write_misses != mrc.Misses(cap)) {
            std::abort();
          }
        }
      }
    }
  }
  return 0;
}
