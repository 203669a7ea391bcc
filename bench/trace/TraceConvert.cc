#include "bench/trace/TraceConvert.h"

#include "bench/trace/TraceFactory.h"

namespace tierlab {

Expected<ConvertSummary> CopyTrace(TraceReader& reader, TraceWriter& writer) {
  TraceRecord r;
  for (;;) {
    auto more = reader.Next(&r);
    if (!more.ok()) return more.error();
    if (!*more) break;
    if (auto w = writer.Write(r); !w.ok()) return w.error();
  }
  if (auto c = writer.Close(); !c.ok()) return c.error();
  return ConvertSummary{writer.records(), reader.bad_records(), reader.reordered_records()};
}

Expected<ConvertSummary> ConvertTrace(const std::string& in_path, const TraceOptions& in_options,
                                      const std::string& out_path, TraceFormat out_format) {
  if (!CanWriteTraceFormat(out_format)) {
    return MakeError(out_path + ": cannot write format '" + ToString(out_format) +
                     "' (valid: tierlab, fio-v3, msr)");
  }
  auto reader = OpenTrace(in_path, in_options);
  if (!reader.ok()) return reader.error();
  auto writer = CreateTraceWriter(out_path, out_format);
  if (!writer.ok()) return writer.error();
  return CopyTrace(**reader, **writer);
}

}  // namespace tierlab
