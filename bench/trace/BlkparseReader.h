#pragma once
// blkparse's default text output (blktrace decoded by `blkparse -i dev`):
//
//   maj,min cpu seq sec.nsec pid action RWBS [sector + blocks] [extra]
//   8,0      3   1  0.000000000  697  D  WS 223490 + 8 [kjournald]
//
// One action becomes records (TraceOptions::blkparse_action: Q, D by
// default, or C); other actions, message lines ("m"), per-CPU and total
// summaries and anything not shaped like an event line are skipped.
// RWBS: D -> discard, W -> write, R -> read, else F -> flush (no sector), and
// N (no data, e.g. SCSI passthrough) is skipped. Sectors and blocks are 512
// bytes. Time is seconds.nanoseconds since the trace started. A line that
// looks like an event of the selected action but cannot be parsed is bad.

#include "bench/trace/TextTraceReader.h"

namespace tierlab {

class BlkparseReader final : public TextTraceReader {
 public:
  BlkparseReader(std::unique_ptr<std::istream> in, std::string name, const TraceOptions& options);
  TraceFormat format() const override { return TraceFormat::kBlkparse; }

  // True when `line` has the shape of an event line (used by detection).
  static bool LooksLikeEvent(std::string_view line);

  // "40 lines skipped: 38 events of other actions (Q 19, C 19; records come
  // from D events, --blkparse-action picks another), 2 other lines".
  std::string SkippedSummary() const override;

 private:
  LineResult ParseLine(std::string_view line, TraceRecord* record) override;

  std::uint64_t other_actions_[128] = {};  // skipped events by action (ASCII; 0: others)
  std::uint64_t no_data_ = 0;              // RWBS N events
};

}  // namespace tierlab
