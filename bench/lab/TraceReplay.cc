#include "bench/lab/TraceReplay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "tiering/core/AlignedBuffer.h"

namespace tierlab {
namespace {

struct Slot {
  AlignedBuffer buf;  // only when the volume RequiresData()
  Nanos start = 0;    // arrival (open loop) or issue time
  IoOp op = IoOp::kRead;
  std::uint64_t length = 0;
};

class Replay {
 public:
  Replay(Engine& e, BlockDevice& v, TraceReader& r, const ReplayOptions& o)
      : e_(e), v_(v), reader_(r), o_(o) {}

  Expected<ReplayResult> Go() {
    if (auto ok = CheckReplaySpec(o_); !ok) return ok.error();
    size_ = v_.Size();
    bs_ = v_.BlockSize();
    data_ = v_.RequiresData();
    res_.run.start = e_.Now();
    res_.run.metrics.SetSampleOrigin(res_.run.start);
    res_.run.ramp_end = res_.run.start;
    for (std::uint32_t i = 0; i < o_.iodepth; ++i) {
      slots_.push_back(std::make_unique<Slot>());
      idle_.push_back(slots_.back().get());
    }
    Pump();
    if (in_flight_ > 0 || timer_) e_.Run();
    if (!error_ && !reader_done_) {
      return Error{"replay: the engine stopped before the trace ended", ErrorKind::kIo};
    }
    res_.bad_records = reader_.bad_records();
    if (cancelled_) return Error{reader_.name() + ": replay cancelled", ErrorKind::kIo};
    if (error_) return *error_;
    if (res_.records == 0) {
      const std::string skipped = reader_.SkippedSummary();
      return Error{
          reader_.name() + ": no I/O records to replay" +
              (skipped.empty() ? std::string(" (the trace is empty)") : " (" + skipped + ")"),
          ErrorKind::kInput};
    }
    res_.run.end = std::max(last_completion_, res_.run.start);
    res_.run.metrics.SetWindow(res_.run.start, res_.run.end);
    return std::move(res_);
  }

 private:
  // Reads the next issuable record into pending_; false at the end or on error.
  bool Peek() {
    while (!pending_ && !reader_done_ && !error_) {
      if (o_.max_records != 0 && res_.records >= o_.max_records) {
        reader_done_ = true;
        break;
      }
      TraceRecord rec;
      auto more = reader_.Next(&rec);
      if (!more.ok()) {
        error_ = more.error();
        break;
      }
      if (!*more) {
        reader_done_ = true;
        break;
      }
      ++res_.records;
      res_.trace_duration = std::max(res_.trace_duration, rec.timestamp);
      IoRequest q;
      if (!Map(rec, &q)) continue;
      const auto arrival = Arrival(rec.timestamp);
      if (!arrival) break;
      pending_.emplace(Pending{q, *arrival});
    }
    return pending_.has_value();
  }

  // The record's arrival on the engine clock; nothing (and error_ set) when
  // the scaled time leaves the clock's range.
  std::optional<Nanos> Arrival(Nanos ts) {
    if (o_.mode == ReplayMode::kClosed) return 0;
    const double scaled = static_cast<double>(ts) * 100.0 / o_.time_scale_percent;
    // Headroom below INT64_MAX for the start time and the run after it.
    constexpr double kLimit = 4e18;  // about 126 years
    if (!(scaled < kLimit - static_cast<double>(res_.run.start))) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    ": record %llu at %.9g s arrives after %.3g years with replay_time_scale "
                    "%g%%, past the engine clock's range; use a larger scale or number_ios",
                    static_cast<unsigned long long>(res_.records), static_cast<double>(ts) / 1e9,
                    scaled / 1e9 / 3.15576e7, o_.time_scale_percent);
      error_ = Error{reader_.name() + buf, ErrorKind::kInput};
      return std::nullopt;
    }
    return res_.run.start + static_cast<Nanos>(std::llround(scaled));
  }

  // Maps a trace record onto the volume; false when it is not issued.
  bool Map(const TraceRecord& rec, IoRequest* q) {
    q->op = rec.op;
    if (rec.op == IoOp::kFlush) {
      q->offset = q->length = 0;
      return true;
    }
    if (rec.length == 0) {
      ++res_.skipped;
      return false;
    }
    const std::uint64_t off = rec.offset / o_.replay_scale;
    std::uint64_t start = off / bs_ * bs_;
    std::uint64_t end = (off + rec.length + bs_ - 1) / bs_ * bs_;
    std::uint64_t len = std::min<std::uint64_t>(end - start, size_);
    if (start + len > size_) {
      if (o_.reject_past_end) {
        ++res_.rejected;
        return false;
      }
      ++res_.wrapped;
      start %= size_;
      if (start + len > size_) start = size_ - len;
    }
    q->offset = start;
    q->length = len;
    return true;
  }

  // Issues whatever may go now; arms the arrival timer for the next record.
  void Pump() {
    while (!idle_.empty() && Peek()) {
      if (o_.mode == ReplayMode::kOpen && pending_->arrival > e_.Now()) {
        if (!timer_) {
          timer_ = true;
          e_.ScheduleAt(pending_->arrival, [this] {
            timer_ = false;
            Pump();
          });
        }
        return;
      }
      Slot* s = idle_.back();
      idle_.pop_back();
      Issue(s, pending_->req, o_.mode == ReplayMode::kOpen ? pending_->arrival : e_.Now());
      pending_.reset();
    }
    if (in_flight_ == 0 && !timer_ && !pending_) e_.Stop();
  }

  void Issue(Slot* s, IoRequest q, Nanos start) {
    s->start = start;
    s->op = q.op;
    s->length = q.length;
    if (data_ && (q.op == IoOp::kRead || q.op == IoOp::kWrite)) {
      if (s->buf.size() < q.length) s->buf = AlignedBuffer(q.length);
      q.data = s->buf.data();
    }
    switch (q.op) {
      case IoOp::kRead: ++res_.reads; break;
      case IoOp::kWrite:
        ++res_.writes;
        res_.write_bytes += q.length;
        break;
      default: ++res_.other; break;
    }
    ++res_.run.issued;
    ++in_flight_;
    v_.Submit(q, [this, s](Status st) { OnComplete(s, st); });
  }

  void OnComplete(Slot* s, Status st) {
    const Nanos now = e_.Now();
    --in_flight_;
    ++res_.run.completed;
    if (s->op == IoOp::kRead || s->op == IoOp::kWrite) {
      if (st == Status::kOk) {
        res_.run.metrics.Record(s->op, s->length, now - s->start, now);
      } else {
        res_.run.metrics.RecordError(s->op);
      }
    }
    last_completion_ = std::max(last_completion_, now);
    if ((res_.run.completed & 4095) == 0 && o_.run.cancel != nullptr && e_.IsSimulated() &&
        o_.run.cancel->load(std::memory_order_relaxed)) {
      cancelled_ = true;
      error_ = Error{reader_.name() + ": replay cancelled", ErrorKind::kIo};
      e_.Stop();
      return;
    }
    if (o_.run.progress && res_.run.completed % o_.run.progress_every == 0) {
      o_.run.progress(RunProgress{now - res_.run.start, 0, res_.run.completed, 0});
    }
    idle_.push_back(s);
    Pump();
  }

  struct Pending {
    IoRequest req;
    Nanos arrival = 0;
  };

  Engine& e_;
  BlockDevice& v_;
  TraceReader& reader_;
  const ReplayOptions& o_;
  ReplayResult res_;
  std::uint64_t size_ = 0;
  std::uint64_t bs_ = 512;
  bool data_ = false;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> idle_;
  std::optional<Pending> pending_;
  std::optional<Error> error_;
  bool reader_done_ = false;
  bool cancelled_ = false;
  bool timer_ = false;
  std::uint64_t in_flight_ = 0;
  Nanos last_completion_ = 0;
};

}  // namespace

Expected<ReplayResult> ReplayTrace(Engine& engine, BlockDevice& volume, TraceReader& reader,
                                   const ReplayOptions& options) {
  return Replay(engine, volume, reader, options).Go();
}

Profile ReplayProfile(const std::string& name, const ReplaySpec& options,
                      const ReplayResult& result) {
  Profile p;
  p.name = name;
  p.rw = RwMode::kRandRw;
  const std::uint64_t rw = result.reads + result.writes;
  p.rwmixread = rw == 0 ? 0 : static_cast<std::uint32_t>((result.reads * 100 + rw / 2) / rw);
  p.iodepth = options.iodepth;
  p.number_ios = result.run.issued;
  return p;
}

nlohmann::json ReplayToJson(const std::string& trace, TraceFormat format, const ReplaySpec& o,
                            const ReplayResult& r) {
  return {{"trace", trace},
          {"format", ToString(format)},
          {"mode", o.mode == ReplayMode::kOpen ? "open" : "closed"},
          {"iodepth", o.iodepth},
          {"replay_time_scale", o.time_scale_percent},
          {"replay_scale", o.replay_scale},
          {"replay_past_end", o.reject_past_end ? "reject" : "wrap"},
          {"records", r.records},
          {"reads", r.reads},
          {"writes", r.writes},
          {"other", r.other},
          {"wrapped", r.wrapped},
          {"rejected", r.rejected},
          {"skipped", r.skipped},
          {"bad_records", r.bad_records},
          {"trace_duration_s", static_cast<double>(r.trace_duration) / 1e9}};
}

}  // namespace tierlab
