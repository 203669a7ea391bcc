#include "bench/trace/TraceReader.h"

#include "bench/trace/TraceInput.h"

namespace tierlab {

std::string TraceReader::SkippedSummary() const {
  if (skipped_lines_ == 0) return "";
  return std::to_string(skipped_lines_) + " line" + (skipped_lines_ == 1 ? "" : "s") +
         " that are not I/O records";
}

Error TraceReader::ReadError(const std::istream& in) const {
  if (const auto* input = dynamic_cast<const TraceInput*>(&in)) return input->Failure();
  return MakeError(name_ + ": read error", ErrorKind::kIo);
}

bool TraceReader::RelativeTime(std::int64_t raw, std::int64_t ns_per_unit, Nanos* out) {
  if (!have_base_) {
    have_base_ = true;
    base_ = raw;
  }
  std::int64_t delta = 0;
  Nanos t = 0;
  if (__builtin_sub_overflow(raw, base_, &delta) ||
      __builtin_mul_overflow(delta, ns_per_unit, &t)) {
    return false;
  }
  if (options_.order == TimestampOrder::kClampMonotonic) {
    if (t < last_) {
      t = last_;
      ++reordered_records_;
    }
    last_ = t;
  }
  *out = t;
  return true;
}

}  // namespace tierlab
