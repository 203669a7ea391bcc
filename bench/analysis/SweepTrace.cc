#include "bench/analysis/SweepTrace.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "bench/analysis/FlatU64Map.h"

namespace tierlab {

// Adds records one at a time, numbering lines densely as they first appear.
class SweepTrace::Builder {
 public:
  Builder(const SweepTraceOptions& options, std::string name) : name_(std::move(name)) {
    t_.options_ = options;
  }

  // `index`: the record's number, for errors.
  Expected<void> Add(const TraceRecord& rec, std::uint64_t index) {
    if (rec.op == IoOp::kFlush) {
      ++t_.flushes_;
      return {};
    }
    const SweepTraceOptions& o = t_.options_;
    if (rec.length == 0 && !o.object) return {};
    Request r{rec.offset, rec.timestamp, rec.length, 0, rec.op};
    const std::uint64_t first = o.object ? rec.offset : rec.offset / o.line_size;
    const std::uint64_t last = o.object ? first : (rec.end() - 1) / o.line_size;
    if (last - first >= std::numeric_limits<std::uint32_t>::max()) {
      return Error{
          name_ + ": record " + std::to_string(index) + ": a request of 2^32 lines or more",
          ErrorKind::kInput};
    }
    r.lines = static_cast<std::uint32_t>(last - first + 1);
    for (std::uint64_t l = first; l <= last; ++l) {
      auto [id, inserted] = dense_.Insert(l, static_cast<std::uint32_t>(t_.unique_lines_));
      if (inserted && ++t_.unique_lines_ > kMaxIds) {
        return Error{name_ + ": more than " + std::to_string(kMaxIds) + " unique lines",
                     ErrorKind::kInput};
      }
      t_.ids_.push_back(*id);
    }
    t_.requests_.push_back(r);
    return {};
  }

  SweepTrace Finish() {
    t_.requests_.shrink_to_fit();
    t_.ids_.shrink_to_fit();
    return std::move(t_);
  }

 private:
  static constexpr std::uint64_t kMaxIds = std::numeric_limits<std::uint32_t>::max() - 1;

  std::string name_;
  SweepTrace t_;
  FlatU64Map<std::uint32_t> dense_{1 << 16};
};

Expected<SweepTrace> SweepTrace::Load(TraceReader& reader, const SweepTraceOptions& options) {
  if (options.line_size == 0) return Error{"line size must be > 0", ErrorKind::kInput};
  Builder b(options, reader.name());
  TraceRecord rec;
  for (;;) {
    auto more = reader.Next(&rec);
    if (!more.ok()) return more.error();
    if (!*more) break;
    if (auto added = b.Add(rec, reader.records()); !added.ok()) return added.error();
  }
  return b.Finish();
}

Expected<SweepTrace> SweepTrace::FromRecords(std::span<const TraceRecord> records,
                                             const SweepTraceOptions& options,
                                             const std::string& name) {
  if (options.line_size == 0) return Error{"line size must be > 0", ErrorKind::kInput};
  Builder b(options, name);
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (auto added = b.Add(records[i], i + 1); !added.ok()) return added.error();
  }
  return b.Finish();
}

std::uint32_t SweepTrace::LineBytes(const Request& r, std::uint32_t i) const {
  if (options_.object) return r.length;
  const std::uint64_t ls = options_.line_size;
  const std::uint64_t line = r.offset / ls + i;
  const std::uint64_t begin = std::max(r.offset, line * ls);
  const std::uint64_t end = std::min(r.offset + r.length, (line + 1) * ls);
  return static_cast<std::uint32_t>(end - begin);
}

}  // namespace tierlab
