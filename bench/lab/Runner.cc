#include "bench/lab/Runner.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/lab/LatencyTarget.h"
#include "bench/lab/VerifyBacklog.h"
#include "bench/lab/VerifyOracle.h"
#include "bench/workload/FioPattern.h"
#include "bench/workload/JobStream.h"
#include "bench/workload/Random.h"
#include "bench/workload/WriteData.h"
#include "tiering/core/AlignedBuffer.h"

namespace tierlab {
namespace {

class Run;

struct Job;

struct Slot {
  Job* job = nullptr;
  std::byte* buf = nullptr;  // null in timing-only runs
  Nanos start = 0;           // issue time, or arrival time in open loop
  Nanos issued = 0;          // issue time
  IoOp op = IoOp::kRead;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool verify_read = false;         // a read-back (verify phase or verify_backlog)
  std::uint64_t write_id = 0;       // a logged write (WrittenExtents), until it completes
  std::uint32_t prio = 0;           // fio's I/O priority value (IoPriority.h)
  std::uint64_t oracle_serial = 0;  // a write the oracle knows, until it completes
  bool end_flush = false;           // end_fsync / fsync_on_close: not measured
  Status status = Status::kOk;      // batched reaping: completed, not yet reaped
  bool busy = false;                // submitted, not yet completed
};

struct Job {
  explicit Job(JobStream g) : gen(std::move(g)) {}
  JobStream gen;
  BlockDevice* dev = nullptr;  // where its requests go (the volume, or its client's view)
  // The next two requests, drawn ahead (the generator's sequence does not
  // depend on time), so the stack can be hinted about them (TakeNext).
  NextIo ahead[2];
  std::vector<Slot*> idle;   // free slots
  std::uint64_t issued = 0;  // reads, writes and trims (fio's io_issues); flushes apart
  std::uint64_t bytes_issued = 0;
  std::uint64_t write_bytes_issued = 0;
  std::uint64_t flushes = 0;
  std::uint64_t in_flight = 0;
  bool last_was_flush = false;
  bool end_flush_done = false;
  std::uint32_t passes_done = 0;  // passes ended (I/Os flagged NextIo::wrapped taken)
  // Issued I/Os per (direction, size): a few sizes, so a short scan.
  struct SizeCount {
    std::uint64_t size, count;
  };
  std::vector<SizeCount> by_size[3];
  void CountSize(IoOp op, std::uint64_t len) {
    auto& v = by_size[op == IoOp::kRead ? 0 : op == IoOp::kWrite ? 1 : 2];
    for (SizeCount& c : v) {
      if (c.size == len) {
        ++c.count;
        return;
      }
    }
    v.push_back({len, 1});
  }
  // Open loop: an I/O arrives at t0 + the bytes issued before / rate_bps
  // (fio's usec_for_io; rate_iops is a byte rate too, Profile::rate_bps);
  // `arrivals_taken` have been issued.
  std::uint64_t rate_bps = 0;
  std::uint64_t rate_bytes_taken = 0;
  Nanos t0 = 0;
  std::uint64_t arrivals_taken = 0;
  // rate_process=poisson: the next arrival, and exponential gaps of `mean`.
  bool poisson = false;
  Nanos next_arrival = 0;
  Nanos poisson_mean = 0;
  Xoshiro256 poisson_rng;
  bool arrival_timer = false;
  bool open_loop() const { return rate_bps > 0 || poisson; }
  // fio's queueing (iodepth_low, iodepth_batch_complete_min/max): once the
  // queue is full, completions wait in `done` until at least `reap_min` are
  // there; slots come back `reap_max` at a time until the depth is down to
  // iodepth_low, then the queue is refilled.
  bool batched = false;
  bool reaping = false;
  std::uint32_t reap_min = 1;
  std::vector<Slot*> done;
  // rate_min / rate_iops_min (fio's check_min_rate), reads [0], writes and
  // trims [1]: completed so far, and at the last check.
  std::uint64_t done_bytes[2] = {0, 0}, done_ios[2] = {0, 0};
  std::uint64_t check_bytes[2] = {0, 0}, check_ios[2] = {0, 0};
  Nanos check_time[2] = {0, 0};
  // fio's verify phase: after its writes, the job reads back what it wrote.
  WrittenExtents written;
  bool verify_pending = false;  // writes verify and the phase has not begun
  bool verifying = false;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> to_verify;  // (offset, length)
  std::size_t verify_next = 0;
  std::optional<VerifyBacklog> backlog;  // verify_backlog: read-backs while writing
  Xoshiro256 prio_rng;                   // cmdprio's draws
  std::optional<WriteData> data;         // fio's buffer options, when data is carried
  bool last_was_read = false;
  // A verifying run's next I/O overlaps one in flight: the job issues
  // nothing until some I/O completes (HoldIfOverlapping).
  bool overlap_wait = false;
  std::uint64_t held_io = 0;  // the I/O (by its number) last counted as held
  // fio's flow (FlowControl.h) and exitall.
  std::uint64_t flow_count = 0;     // I/Os the flow has let through
  bool flow_held = false;           // held back: waiting, or draining and sleeping
  bool flow_sleeping = false;       // held under flow_sleep (else parked)
  std::uint64_t wait_ticket = 0;    // the parked wake-up (FlowControl::Unwait)
  std::uint64_t sleep_version = 0;  // the flow's version when it fell asleep
  std::uint64_t hold_gen = 0;       // wake-ups of an older hold are stale
  bool stop_timer = false;          // a wake-up at the stop time is scheduled
  bool started = false;
  bool ended = false;
  bool terminated = false;  // exitall: another job's end stopped this one
  // fio's latency_target: the search (none without it), the reads and
  // writes it has heard of, a drain owed before the next issue (fio's
  // io_u_quiesce), and, at the final run, figures to start afresh after it.
  std::optional<LatencyTarget> lat;
  bool lat_started = false;
  std::uint64_t rw_done = 0;
  bool draining = false;
  bool restart_figures = false;
  std::uint64_t count_base = 0;  // number_ios counts from here
  // fio's thinktime (handle_thinktime): reads, writes and trims completed
  // (fio's io_blocks), the count (of these or of issues) and the time at the
  // last pause, and where the job is in one: draining its queue, then
  // pausing.
  std::uint64_t completed = 0;
  std::uint64_t think_last = 0;
  Nanos think_since = 0;
  bool think_draining = false;
  bool think_pausing = false;
  // Errors (fio's continue_on_error): the one that ended the job, and the
  // ones it went on after.
  bool failed = false;
  int error = 0;
  std::uint64_t total_err = 0;
  int first_error = 0;
};

// The sections running together: the engine stops when the last has ended
// (or one is cancelled or stalls).
struct Group {
  std::size_t running = 0;
  std::vector<Run*> runs;
  bool ended_run = false;  // exit_what=all
};

class Run {
 public:
  Run(Engine& e, BlockDevice& v, const SectionWork& w, Group& g)
      : e_(e),
        v_(v),
        clients_(w.clients),
        p_(*w.profile),
        files_(w.files),
        streams_(w.streams),
        o_(w.options),
        g_(g),
        oracle_(w.oracle),
        flows_(p_.flow != 0 ? w.flows : nullptr),
        groupid_(w.groupid),
        first_job_(w.first_job),
        run_jobs_(w.run_jobs),
        exitall_(w.exitall),
        terminated_(w.terminated) {}

  // Creates the jobs (the only step that can fail); then Launch starts them
  // (at startdelay), the caller runs the engine, then calls Finish.
  Expected<void> Prepare() {
    const bool data = v_.RequiresData();
    static const std::vector<FileRegion> kWholeVolume;
    for (std::uint32_t j = 0; j < p_.numjobs; ++j) {
      if (j < streams_.size() && streams_[j]) {
        jobs_.push_back(std::make_unique<Job>(std::move(*streams_[j])));
        continue;
      }
      auto g = JobStream::Create(p_, v_.Size(), v_.BlockSize(), j,
                                 j < files_.size() ? files_[j] : kWholeVolume);
      if (!g.ok()) return g.error();
      jobs_.push_back(std::make_unique<Job>(std::move(g.value())));
    }
    planned_ios_ = 0;
    if (per_io_prio_) {
      r_.prios.Declare(0, p_.priorities.Values(0));
      r_.prios.Declare(1, p_.priorities.Values(1));
    }
    r_.verify.enabled = !p_.verify.empty();
    r_.verify.checked = r_.verify.enabled && data && p_.verify != "null" && oracle_ != nullptr;
    if (r_.verify.enabled && !p_.verify_pattern.empty() && oracle_ != nullptr) {
      auto pattern = ParseFioPattern(p_.verify_pattern, /*allow_offsets=*/true);
      if (!pattern)
        return MakeError("profile '" + p_.name + "': verify_pattern: " + pattern.error().message);
      // fio's verify=pattern has no headers; every other method has them.
      pattern_style_ = oracle_->AddPatternStyle(
          {std::move(*pattern), p_.verify_interval_bytes(), p_.verify != "pattern"});
    }
    for (auto& job : jobs_) {
      Job* jp = job.get();
      const auto k = static_cast<std::size_t>(first_job_ + (&job - jobs_.data()));
      jp->dev = clients_.empty() ? &v_ : clients_[k % clients_.size()];
      jp->verify_pending = r_.verify.enabled && p_.do_verify && p_.read_percent() < 100;
      if (jp->verify_pending && p_.verify_backlog != 0) {
        jp->backlog.emplace(p_.verify_backlog, p_.verify_backlog_batch);
      }
      // fio reads back in the order written where its random map keeps the
      // writes of a pass apart, else in offset order.
      jp->written = WrittenExtents(jp->gen.keeps_random_map());
      jp->rate_bps = p_.rate_bps();
      if (p_.rate_poisson && jp->open_loop()) {
        // fio's usec_for_io: iops from the rate (bytes over the smallest
        // block), a mean gap of 1000000 / iops whole microseconds.
        const std::uint64_t iops = jp->rate_bps / p_.min_bs();
        jp->poisson = true;
        jp->poisson_mean = static_cast<Nanos>(1'000'000 / iops) * kMicro;
        jp->poisson_rng.Seed(DeriveSeed(p_.randseed, 0x9015, &job - jobs_.data()));
        jp->rate_bps = 0;
      }
      jp->batched = p_.batched_reaping();
      jp->prio_rng.Seed(DeriveSeed(p_.randseed, 0x9810, &job - jobs_.data()));
      if (data && p_.write_data.any()) {
        auto pattern = ParseFioPattern(p_.write_data.pattern, /*allow_offsets=*/false);
        jp->data.emplace(p_.write_data, pattern ? std::move(*pattern) : FioPattern{}, p_.randseed,
                         first_job_ + static_cast<std::uint32_t>(&job - jobs_.data()), run_jobs_,
                         p_.has_size ? p_.size.Resolve(v_.Size(), v_.BlockSize()) : v_.Size(),
                         MinWrite());
      }
      if (p_.latency_target != 0) {
        jp->lat.emplace(LatencyTarget::Spec{p_.latency_target, p_.latency_window,
                                            p_.latency_percentile, p_.latency_run, p_.iodepth});
      }
      jp->terminated = terminated_;
      if (flows_ != nullptr) flows_->Schedule(p_.flow_id);
      planned_ios_ += jp->gen.io_count_limit();
      Prime(jp);
      for (std::uint32_t d = 0; d < p_.iodepth; ++d) {
        auto s = std::make_unique<Slot>();
        s->job = jp;
        if (data) {
          buffers_.emplace_back(p_.max_bs());
          s->buf = buffers_.back().data();
          FillPattern(s->buf, p_.max_bs(), rng_.Next());
        }
        jp->idle.push_back(s.get());
        slots_.push_back(std::move(s));
      }
    }
    return {};
  }

  // The section's clock starts here: at once, or when the section it
  // waits for (wait_for) has ended.
  void Launch() {
    r_.start = e_.Now();
    // startdelay: the jobs start late; ramp and runtime count from there.
    begin_ = r_.start + p_.startdelay;
    r_.ramp_end = begin_ + p_.ramp_time;
    r_.metrics.SetSampleOrigin(r_.ramp_end);
    stop_at_ = p_.runtime > 0 ? r_.ramp_end + p_.runtime : std::numeric_limits<Nanos>::max();
    for (auto& job : jobs_) job->t0 = job->next_arrival = job->think_since = begin_;
    if (p_.ss.dur != 0) {
      r_.steadystate.emplace(p_.ss);
      ss_prev_at_ = begin_;
      At(begin_ + p_.ss.interval, [this] { CheckSteadyState(); });
    }
    if (o_.on_round && o_.round > 0) At(r_.start + o_.round, [this] { OnRound(); });
    auto start_jobs = [this] {
      for (auto& job : jobs_) {
        job->started = true;
        if (flows_ != nullptr) flows_->Start(p_.flow_id);
      }
      for (auto& job : jobs_) Resume(job.get());
    };
    ++g_.running;
    launched_ = true;
    if (p_.startdelay > 0) {
      At(begin_, [this, start_jobs] {
        start_jobs();
        StopIfDone();
      });
    } else {
      start_jobs();
    }
  }

  // Background work (destage, migration timers) may keep the engine busy
  // forever; the run ends when the last section's workload does.
  void StopIfDone() {
    if (done_ || !launched_) return;
    if (flows_ != nullptr || exitall_) {
      for (const auto& j : jobs_) MaybeEnd(j.get());
      if (done_) return;  // a job's end terminated this section (exitall)
    }
    if (in_flight_ != 0) return;
    for (const auto& j : jobs_) {
      if (MayIssue(*j) || j->think_pausing) return;
      if (j->verify_pending && !j->terminated) {  // its writes have ended, nothing in flight
        ContinueVerify(j.get());
        return;
      }
    }
    done_ = true;
    // The sections waiting for this one start before it stops counting.
    for (Run* r : g_.runs) {
      if (r->waitee_ == this) {
        r->Launch();
        r->StopIfDone();
      }
    }
    if (--g_.running == 0) e_.Stop();
  }

  // wait_for: the section of the group this one waits for (null: none, or
  // it ran in an earlier group).
  void WaitFor(const Run* waitee) { waitee_ = waitee; }
  bool waits() const { return waitee_ != nullptr; }
  const std::string& name() const { return p_.name; }

  Expected<RunResult> Finish() {
    if (cancelled_) return MakeError("profile '" + p_.name + "': cancelled", ErrorKind::kIo);
    if (!flow_failure_.empty()) return MakeError(flow_failure_);
    if (!rate_failure_.empty()) return MakeError(rate_failure_, ErrorKind::kInconsistent);
    if (stalled_) {
      return MakeError(
          "profile '" + p_.name +
          "': the stack completes I/O in zero simulated time, so a time-based run never "
          "ends; use number_ios or a device model with latency");
    }
    if (last_completion_ < r_.ramp_end) last_completion_ = r_.ramp_end;
    r_.end = p_.runtime > 0 ? std::min(stop_at_, std::max(last_completion_, r_.ramp_end))
                            : last_completion_;
    // A thinktime pause runs whole, past the runtime too (fio 3.33).
    r_.end = std::max(r_.end, last_pause_end_);
    // A verify phase runs after the writes, past runtime, as fio's does.
    r_.end = std::max(r_.end, last_verify_);
    r_.metrics.SetWindow(r_.ramp_end, r_.end);
    for (const auto& j : jobs_) {
      for (int d = 0; d < 3; ++d) {
        for (const auto& c : j->by_size[d]) r_.issued_by_size[d][c.size] += c.count;
      }
      r_.issued_flushes += j->flushes;
      // fio's group report: the first job's error that has one.
      JobErrors& e = r_.errors;
      if (e.error == 0) {
        e.error = j->error != 0 ? j->error : j->first_error;
        e.ended_job = j->error != 0;
      }
      e.total += j->total_err;
      if (e.first == 0) e.first = j->first_error;
    }
    r_.ended_run = g_.ended_run;
    if (jobs_.back()->lat) r_.latency_depth = jobs_.back()->lat->depth();
    return std::move(r_);
  }

  // Every timer of the section goes through here. The engine runs on after
  // RunSections returns (the next group, background work), so a timer still
  // pending when the section is gone must do nothing.
  template <class F>
  void At(Nanos at, F f) {
    e_.ScheduleAt(at, [alive = std::weak_ptr<const bool>(alive_), f = std::move(f)]() mutable {
      if (!alive.expired()) f();
    });
  }

  // exitall: a job of another section has ended; terminate this section's
  // jobs as its exit_what says (fio's fio_terminate_threads).
  void Terminate(ExitWhat what, int groupid) {
    const bool hit = what == ExitWhat::kAll || what == ExitWhat::kStonewall ||
                     (what == ExitWhat::kGroup && groupid == groupid_);
    if (!hit) return;
    for (auto& j : jobs_) {
      // exit_what=stonewall stops the jobs that are running; one waiting
      // for its startdelay still runs (fio's runstate >= TD_RUNNING).
      if (what == ExitWhat::kStonewall && !j->started) continue;
      TerminateJob(j.get());
    }
    if (launched_) StopIfDone();
  }

 private:
  static void FillPattern(std::byte* b, std::uint64_t n, std::uint64_t seed) {
    Xoshiro256 rng(seed);
    for (std::uint64_t i = 0; i + 8 <= n; i += 8) {
      const std::uint64_t v = rng.Next();
      std::memcpy(b + i, &v, 8);
    }
  }

  // fio's end-of-job conditions (WorkloadGenerator.h): time, I/O count,
  // bytes, and the end of the last pass.
  bool MayIssue(const Job& j) const {
    if (j.terminated) return false;
    if (j.verifying) return j.verify_next < j.to_verify.size();  // the blocks left to read back
    if (e_.Now() >= stop_at_) return false;
    const std::uint64_t count = j.gen.io_count_limit();
    if (count != 0 && j.issued - j.count_base >= count) return false;
    const std::uint64_t limit = j.gen.io_bytes_limit();
    // fio's io_bytes_exceeded counts a trimwrite job's writes only (half
    // the doubled limit), so it never stops between a trim and its write.
    if (limit != 0 && !p_.is_trimwrite() && j.bytes_issued >= limit) return false;
    if (limit != 0 && p_.is_trimwrite() && j.write_bytes_issued >= limit / 2) return false;
    // The next I/O starts a pass: fio's keep_running says whether there is one.
    if (j.ahead[0].wrapped && !j.gen.AnotherPass(j.passes_done + 1, j.bytes_issued)) return false;
    return true;
  }

  // Open loop: issue every arrival that is due and finds a free slot; the
  // rest wait as backlog (their latency counts from the arrival).
  void OnArrivalTimer(Job* j) {
    j->arrival_timer = false;
    OnArrival(j);
    StopIfDone();  // the last arrival may find the job's end
  }

  void OnArrival(Job* j) {
    if (j->poisson) {
      OnPoissonArrival(j);
    } else {
      OnByteArrival(j);
    }
  }

  // The next I/O arrives when the bytes issued before it are due.
  static Nanos NextByteArrival(const Job& j) {
    const unsigned __int128 t =
        static_cast<unsigned __int128>(j.rate_bytes_taken) * kSecond / j.rate_bps;
    return j.t0 + static_cast<Nanos>(t);
  }

  void OnByteArrival(Job* j) {
    while (!j->idle.empty() && MayIssue(*j) && NextByteArrival(*j) <= e_.Now() && LetThrough(j)) {
      const Nanos arrival = NextByteArrival(*j);
      ++j->arrivals_taken;
      j->rate_bytes_taken += j->ahead[0].length;
      Issue(j, j->idle.back(), arrival);
    }
    // A due arrival without a free slot is taken when one completes.
    const Nanos next = NextByteArrival(*j);
    if (MayIssue(*j) && !j->arrival_timer && next > e_.Now()) {
      j->arrival_timer = true;
      At(next, [this, j] { OnArrivalTimer(j); });
    }
  }

  // rate_process=poisson: the first I/O at the start, each next one an
  // exponential gap later (fio's -log(u) x mean).
  void OnPoissonArrival(Job* j) {
    while (!j->idle.empty() && MayIssue(*j) && j->next_arrival <= e_.Now() && LetThrough(j)) {
      const Nanos arrival = j->next_arrival;
      ++j->arrivals_taken;
      j->next_arrival += static_cast<Nanos>(-std::log(j->poisson_rng.NextDoubleOpenZero()) *
                                            static_cast<double>(j->poisson_mean));
      Issue(j, j->idle.back(), arrival);
    }
    if (MayIssue(*j) && !j->arrival_timer && j->next_arrival > e_.Now()) {
      j->arrival_timer = true;
      At(j->next_arrival, [this, j] { OnArrivalTimer(j); });
    }
  }

  // Batched reaping: fill the queue; once full, reap before refilling.
  void Fill(Job* j) {
    while (!j->idle.empty() && MayIssue(*j) && LetThrough(j)) Issue(j, j->idle.back(), e_.Now());
    if (j->idle.empty()) {
      // fio's wait_for_completions: at least min(complete_min, depth), 1 if 0.
      j->reaping = true;
      j->reap_min = std::max<std::uint32_t>(1, std::min(p_.reap_min(), p_.iodepth));
    }
  }

  void Reap(Job* j) {
    const Nanos now = e_.Now();
    while (j->reaping) {
      const auto depth = static_cast<std::uint32_t>(p_.iodepth - j->idle.size());
      // fio's io_u_queued_complete and td_io_getevents: min at most the
      // depth; max at most the depth, at least min.
      const std::uint32_t min = std::min(j->reap_min, depth);
      if (j->done.size() < min) return;
      const std::uint32_t max = std::max(min, std::min(p_.reap_max(), depth));
      const std::size_t n = std::min<std::size_t>(j->done.size(), max);
      for (std::size_t i = 0; i < n; ++i) {
        Slot* s = j->done[i];
        Measure(s, s->status, now);
        j->idle.push_back(s);
      }
      j->done.erase(j->done.begin(), j->done.begin() + static_cast<std::ptrdiff_t>(n));
      if (p_.iodepth - j->idle.size() <= p_.queue_low()) j->reaping = false;
    }
    Fill(j);
    MaybeEndFlush(j);
    StopIfDone();
  }

  // end_fsync / fsync_on_close: one flush once the job's I/O is done and
  // reaped, unless its last request was a flush (fio's should_fsync).
  void MaybeEndFlush(Job* j) {
    if (!(p_.end_fsync || p_.fsync_on_close) || !p_.does(IoOp::kWrite) || j->failed) return;
    if (j->end_flush_done || j->in_flight != 0 || j->last_was_flush || MayIssue(*j)) return;
    if (j->idle.empty()) return;
    j->end_flush_done = true;
    Slot* s = j->idle.back();
    j->idle.pop_back();
    s->start = s->issued = e_.Now();
    s->op = IoOp::kFlush;
    s->length = 0;
    s->end_flush = true;
    ++j->flushes;
    ++j->in_flight;
    ++in_flight_;
    j->dev->Submit(IoRequest{IoOp::kFlush, 0, 0, 0, nullptr},
                   [this, s](Status st) { OnComplete(s, st); });
  }

  // The job's next request. Requests are drawn two ahead and the stack is
  // told about them (BlockDevice::PrefetchHint): a lookup's cache misses
  // then overlap the two requests in between, where a simulated run would
  // otherwise wait on each in turn. Same requests, same order.
  static void Prime(Job* j) {
    j->ahead[0] = j->gen.Next();
    j->ahead[1] = j->gen.Next();
  }

  NextIo TakeNext(Job* j) {
    const NextIo io = j->ahead[0];
    if (io.wrapped) ++j->passes_done;
    j->ahead[0] = j->ahead[1];
    j->ahead[1] = j->gen.Next();
    // A flush has no block to hint about.
    if (j->ahead[1].op != IoOp::kFlush) v_.PrefetchHint(j->ahead[1].op, j->ahead[1].offset, 2);
    if (j->ahead[0].op != IoOp::kFlush) v_.PrefetchHint(j->ahead[0].op, j->ahead[0].offset, 1);
    return io;
  }

  void Issue(Job* j, Slot* s, Nanos start) {
    if (j->verifying) {
      IssueVerify(j, s);
      return;
    }
    if (j->backlog && j->backlog->Wants(j->written.size(), j->last_was_read)) {
      if (auto piece = j->written.TakeFirst()) {  // not while its write is in flight
        j->backlog->Took();
        IssueReadBack(j, s, piece->first, piece->second);
        return;
      }
    }
    j->idle.pop_back();
    const NextIo io = TakeNext(j);
    j->last_was_read = io.op == IoOp::kRead;
    s->start = start;
    s->issued = e_.Now();
    s->op = io.op;
    s->offset = io.offset;
    s->length = io.length;
    s->verify_read = false;
    ++j->in_flight;
    ++in_flight_;
    j->last_was_flush = io.op == IoOp::kFlush;
    if (io.op == IoOp::kFlush) {
      ++j->flushes;
      j->dev->Submit(IoRequest{IoOp::kFlush, 0, 0, 0, nullptr},
                     [this, s](Status st) { OnComplete(s, st); });
      return;
    }
    ++j->issued;
    j->bytes_issued += io.length;
    if (io.op == IoOp::kWrite) j->write_bytes_issued += io.length;
    j->CountSize(io.op, io.length);
    ++r_.issued;
    s->prio = PriorityOf(j, io.op, io.length);
    if (p_.atomic && io.op == IoOp::kWrite && !AtomicWriteFits(io.offset, io.length)) {
      // As the kernel's RWF_ATOMIC checks: refused before it reaches the volume.
      At(e_.Now(), [this, s] { OnComplete(s, Status::kInvalid); });
      return;
    }
    if (io.op != IoOp::kRead && (oracle_ != nullptr || j->verify_pending)) NoteWrite(j, s);
    // fio's buffer options; a verifying job's writes carry the oracle's content.
    if (io.op == IoOp::kWrite && j->data && s->buf != nullptr && !r_.verify.enabled) {
      j->data->Fill(s->buf, io.length);
    }
    IoRequest q{io.op, 0, io.offset, io.length, io.op == IoOp::kDiscard ? nullptr : s->buf};
    s->busy = true;
    j->dev->Submit(q, [this, s](Status st) { OnComplete(s, st); });
  }

  // fio's serialize_overlap, always on in a verifying run: an I/O that
  // overlaps one in flight (any job's: the oracle is the run's) waits for
  // a completion. fio's random map keeps a pass's I/Os apart; tierlab keeps
  // none (docs/FIO-COMPAT.md), so two writes to one block could be in
  // flight together, land in either order, and the oracle, which expects
  // the later one, would report a mismatch the volume did not make. The
  // scan is over every slot, which only a verifying run pays.
  bool HoldIfOverlapping(Job* j) {
    if (oracle_ == nullptr || j->verifying) return false;  // read-backs never overlap
    if (j->overlap_wait) return true;
    const NextIo& io = j->ahead[0];
    if (io.op == IoOp::kFlush) return false;
    for (const auto& s : slots_) {
      if (s->busy && s->length != 0 && s->offset < io.offset + io.length &&
          io.offset < s->offset + s->length) {
        j->overlap_wait = true;
        overlap_waiters_.push_back(j);
        if (j->held_io != j->issued + 1) {  // counted once however often it waits
          j->held_io = j->issued + 1;
          ++r_.verify.overlaps_held;
        }
        return true;
      }
    }
    return false;
  }

  // Whether the job's next I/O may go now: not while it overlaps one in
  // flight (above), nor while fio's flow holds the job back.
  bool LetThrough(Job* j) { return !HoldIfOverlapping(j) && FlowAllows(j); }

  // A completion lets the jobs held by HoldIfOverlapping try again, once
  // the completion has been handled.
  void WakeOverlapWaiters() {
    if (overlap_waiters_.empty()) return;
    std::vector<Job*> waiters;
    waiters.swap(overlap_waiters_);
    for (Job* w : waiters) w->overlap_wait = false;
    At(e_.Now(), [this, waiters = std::move(waiters)] {
      for (Job* w : waiters) {
        if (!done_ && !w->overlap_wait) Resume(w);
      }
      StopIfDone();
    });
  }

  // The job's smallest write (fio's min_bs of writes).
  std::uint64_t MinWrite() const {
    const std::vector<BsSplitEntry>& split = p_.bssplit_for(IoOp::kWrite);
    if (split.empty()) return p_.bs_for(IoOp::kWrite);
    std::uint64_t lo = split.front().bs;
    for (const BsSplitEntry& e : split) lo = std::min(lo, e.bs);
    return lo;
  }

  // fio's atomic write rules (the kernel's RWF_ATOMIC): a power of two
  // bytes, at an offset it divides. A tierlab volume sets no largest size.
  static bool AtomicWriteFits(std::uint64_t offset, std::uint64_t length) {
    return std::has_single_bit(length) && offset % length == 0;
  }

  // An I/O's priority (IoPriority.h): the job's, or cmdprio's draw.
  std::uint32_t PriorityOf(Job* j, IoOp op, std::uint64_t length) {
    if (!per_io_prio_ || (op != IoOp::kRead && op != IoOp::kWrite)) return job_prio_;
    return p_.priorities.Pick(op == IoOp::kRead ? 0 : 1, length,
                              static_cast<std::uint32_t>(j->prio_rng.Below(100)));
  }

  // A write of a verifying job carries content the oracle can regenerate;
  // any other write, and any trim, makes its blocks unknown to the oracle.
  void NoteWrite(Job* j, Slot* s) {
    if (!r_.verify.enabled || s->op == IoOp::kDiscard) {
      if (oracle_ != nullptr) oracle_->Forget(s->offset, s->length);
      return;
    }
    if (oracle_ != nullptr) {
      s->oracle_serial =
          pattern_style_ != 0
              ? oracle_->RecordPatternWrite(pattern_style_, s->offset, s->length, s->buf)
              : oracle_->RecordWrite(p_.randseed, s->offset, s->length, s->buf);
    }
    if (j->verify_pending) s->write_id = j->written.Add(s->offset, s->length);
  }

  // The verify phase begins when the job's writes have all completed.
  void BeginVerify(Job* j) {
    j->verify_pending = false;
    j->verifying = true;
    j->to_verify = j->written.Pieces(p_.max_bs());
    j->written = WrittenExtents(j->gen.keeps_random_map());
    while (!j->idle.empty() && MayIssue(*j) && FlowAllows(j)) IssueVerify(j, j->idle.back());
  }

  void IssueVerify(Job* j, Slot* s) {
    const auto [offset, length] = j->to_verify[j->verify_next++];
    IssueReadBack(j, s, offset, length);
  }

  // A read of what the job wrote, checked against it (verify phase or
  // verify_backlog); counted as a read, as fio's.
  void IssueReadBack(Job* j, Slot* s, std::uint64_t offset, std::uint64_t length) {
    j->idle.pop_back();
    j->last_was_read = true;
    s->start = s->issued = e_.Now();
    s->op = IoOp::kRead;
    s->offset = offset;
    s->length = length;
    s->verify_read = true;
    s->prio = PriorityOf(j, IoOp::kRead, length);
    j->CountSize(IoOp::kRead, length);
    ++r_.issued;
    ++r_.verify.reads;
    ++j->in_flight;
    ++in_flight_;
    IoRequest q{IoOp::kRead, 0, offset, length, s->buf};
    s->busy = true;
    j->dev->Submit(q, [this, s](Status st) { OnComplete(s, st); });
  }

  // What a read returned, against what verifying jobs wrote there.
  void CheckRead(const Slot& s) {
    if (!r_.verify.checked) return;
    std::uint64_t checked = 0;
    // verify_write_sequence=0: what other writes were landing on is not checked.
    const auto bad =
        oracle_->Check(s.offset, s.length, s.buf, &checked,
                       p_.verify_write_sequence ? std::nullopt : std::optional<Nanos>(s.issued));
    r_.verify.bytes_checked += checked;
    if (!bad) return;
    ++r_.verify.mismatches;
    if (r_.verify.first_bad.size() < VerifyResult::kFirstBadKept)
      r_.verify.first_bad.push_back(*bad);
    OnError(s.job, IoOp::kRead, EILSEQ);
  }

  // fio's error handling (td_non_fatal_error): the job goes on after the
  // errors continue_on_error names, counting them; any other ends it, and
  // the first such is its error. fill_device's ENOSPC ends it quietly.
  void OnError(Job* j, IoOp op, int err) {
    if (p_.continue_on_error.Continues(ErrorTypeOf(op, err), err)) {
      if (j->total_err++ == 0) j->first_error = err;
      return;
    }
    if (!(p_.fill_device && err == ENOSPC) && !j->failed) {
      j->failed = true;
      j->error = err;
    }
    TerminateJob(j);
  }

  // A verifying job's next step once a slot is free: begin the phase when
  // the last write has completed, then keep iodepth reads in flight.
  void ContinueVerify(Job* j) {
    if (j->verify_pending) {
      MaybeEndFlush(j);               // fio's end_fsync comes before its verify phase
      if (j->in_flight != 0) return;  // writes (or that flush) still in flight
      BeginVerify(j);
    } else {
      while (!j->idle.empty() && MayIssue(*j) && FlowAllows(j)) IssueVerify(j, j->idle.back());
    }
    StopIfDone();
  }

  // fio's steadystate_check, every ss_interval: the section's IOPS,
  // bytes/s and mean completion latency over the interval, recorded from
  // one interval after ss_ramp; once attained, the section's jobs stop.
  // tierlab's snia criterion: a round lasts at least ss_interval and until
  // it holds kSniaRoundIos completions (a shorter one would measure its own
  // Poisson noise: 1/sqrt(1000) = 3 %, against a 20 % range), and its
  // attainment ends the ramp: the measured window starts then and lasts
  // runtime, or as long as the rounds that met the criterion if longer.
  static constexpr std::uint64_t kSniaRoundIos = 1000;
  void CheckSteadyState() {
    if (done_) return;
    const Nanos now = e_.Now();
    const Nanos interval = p_.ss.interval;
    if (p_.ss.snia && ss_now_.ios - ss_prev_.ios < kSniaRoundIos) {
      At(now + interval, [this] { CheckSteadyState(); });
      return;
    }
    const Nanos elapsed = p_.ss.snia ? now - ss_prev_at_ : interval;
    if (p_.ss.ramp == 0 || now - begin_ >= p_.ss.ramp + interval) {
      const auto per_second = [&](std::uint64_t delta) {
        return static_cast<std::uint64_t>(static_cast<unsigned __int128>(delta) * kSecond /
                                          static_cast<std::uint64_t>(elapsed));
      };
      const std::uint64_t lats = ss_now_.lats - ss_prev_.lats;
      const std::uint64_t lat = lats > 0 ? (ss_now_.lat_sum - ss_prev_.lat_sum) / lats : 0;
      round_starts_.push_back(ss_prev_at_);
      if (round_starts_.size() > r_.steadystate->window()) round_starts_.pop_front();
      const std::uint64_t left_before = r_.steadystate->left_sample();
      const bool attained = r_.steadystate->Add(per_second(ss_now_.ios - ss_prev_.ios),
                                                per_second(ss_now_.bytes - ss_prev_.bytes), lat,
                                                now - begin_, o_.absorbing && o_.absorbing());
      if (p_.ss_leave_stop && left_before == 0 && r_.steadystate->left_sample() != 0 &&
          now > r_.ramp_end) {
        // ss_leave=stop: the measured window ends with the round that left.
        stop_at_ = now;
        for (auto& j : jobs_) TerminateJob(j.get());
        StopIfDone();
        return;
      }
      if (attained && p_.ss.snia) {
        // tierlab's criterion ends the ramp: the measured window starts now
        // (unless ramp_time, the longest ramp, ended it already).
        if (now < r_.ramp_end) {
          r_.ramp_end = now;
          r_.metrics.SetSampleOrigin(now);
          if (p_.runtime > 0) stop_at_ = now + std::max(p_.runtime, now - round_starts_.front());
        }
      } else if (attained) {
        for (auto& j : jobs_) TerminateJob(j.get());
        StopIfDone();
        return;
      }
    }
    ss_prev_ = ss_now_;
    ss_prev_at_ = now;
    At(e_.Now() + interval, [this] { CheckSteadyState(); });
  }

  // Records a completion (or, batched, a reap) in the figures.
  void OnRound() {
    if (done_) return;
    o_.on_round(e_.Now());
    At(e_.Now() + o_.round, [this] { OnRound(); });
  }
  void Measure(Slot* s, Status st, Nanos now) {
    if (r_.steadystate && st == Status::kOk && s->op != IoOp::kFlush) {
      ++ss_now_.ios;
      ss_now_.bytes += s->length;
      ss_now_.lat_sum += static_cast<std::uint64_t>(now - s->issued);
      ++ss_now_.lats;
    }
    if (s->verify_read) last_verify_ = std::max(last_verify_, now);
    // As fio: a writing job checks the reads of its verify phase only (its
    // other reads may race its own writes); a reading job checks every read.
    if (st == Status::kOk && s->op == IoOp::kRead &&
        (s->verify_read || (r_.verify.enabled && p_.read_percent() == 100))) {
      CheckRead(*s);
    }
    if (s->start >= r_.ramp_end && (now <= stop_at_ || s->verify_read)) {
      if (st == Status::kOk) {
        r_.metrics.Record(s->op, s->length, now - s->start, now);
        if (s->job->open_loop()) r_.metrics.RecordClat(s->op, now - s->issued);
        if (per_io_prio_ && (s->op == IoOp::kRead || s->op == IoOp::kWrite)) {
          r_.prios.Record(s->op == IoOp::kRead ? 0 : 1, s->prio, now - s->issued);
        }
        if (o_.logs != nullptr) {
          o_.logs->Add(s->op, now - r_.ramp_end, s->length, s->offset, now - s->start,
                       now - s->issued, s->prio);
        }
      } else {
        r_.metrics.RecordError(s->op);
      }
      last_completion_ = std::max(last_completion_, now);
    }
    if (st != Status::kOk) OnError(s->job, s->op, ToErrno(st));
    if (st == Status::kOk && s->job->lat && !s->verify_read &&
        (s->op == IoOp::kRead || s->op == IoOp::kWrite)) {
      Steer(s->job, *s, now);
    }
  }

  // latency_target: the search hears of each read and write once the ramp
  // is over (fio's should_account) and judges its window after each.
  void Steer(Job* j, const Slot& s, Nanos now) {
    if (now < r_.ramp_end) return;
    if (!j->lat_started) {
      j->lat_started = true;
      j->lat->Start(r_.ramp_end, j->rw_done);
    }
    ++j->rw_done;
    Follow(j, j->lat->OnLatency(now - s.start), s.op);
    // fio judges the window in its issue loop, not while the queue drains.
    if (!j->draining) Follow(j, j->lat->Check(now, j->rw_done), s.op);
  }

  void Follow(Job* j, LatencyTarget::Step step, IoOp op) {
    using Step = LatencyTarget::Step;
    switch (step) {
      case Step::kNone:
      case Step::kDeeper: return;  // the next fill issues up to the depth
      case Step::kFinalRun: j->restart_figures = true; [[fallthrough]];
      case Step::kDrain: j->draining = true; return;
      case Step::kDone: TerminateJob(j); return;
      case Step::kTimedOut: OnError(j, op, ETIMEDOUT); return;
    }
  }

  // latency_target: issue up to the search's depth; after a step down only
  // once the queue has drained, and then, at the final run, with the
  // figures started afresh.
  void FillToDepth(Job* j) {
    if (j->draining) {
      if (j->in_flight != 0) return;
      j->draining = false;
      if (j->restart_figures) RestartFigures(j);
      j->lat->Drained(e_.Now(), j->rw_done);
    }
    while (!j->idle.empty() && MayIssue(*j) && j->in_flight < j->lat->depth() && LetThrough(j)) {
      Issue(j, j->idle.back(), e_.Now());
    }
  }

  // fio's reset_all_stats at the final run: the figures, the runtime and the
  // I/O count start here. The section's figures are its jobs' together, so
  // they start again at each job's final run.
  void RestartFigures(Job* j) {
    j->restart_figures = false;
    const Nanos now = e_.Now();
    r_.ramp_end = now;
    r_.metrics.Reset();
    r_.metrics.SetSampleOrigin(now);
    r_.prios.Clear();
    if (p_.runtime > 0) stop_at_ = now + p_.runtime;
    j->count_base = j->issued;
  }

  // fio's check_min_rate: after 2 s from the job's start and outside the
  // ramp, each direction that has completed bytes must keep rate_min
  // (bytes/s) or rate_iops_min over every second (ratecycle).
  void CheckMinRate(Job* j, Slot* s, Status st, Nanos now) {
    const bool any = p_.rate_min[0] != 0 || p_.rate_min[1] != 0 || p_.rate_iops_min[0] != 0 ||
                     p_.rate_iops_min[1] != 0;
    if (!any || s->op == IoOp::kFlush || st != Status::kOk) return;
    const int d = s->op == IoOp::kRead ? 0 : 1;
    j->done_bytes[d] += s->length;
    ++j->done_ios[d];
    if (now < r_.ramp_end || now - begin_ < 2 * kSecond) return;
    for (int k = 0; k < 2; ++k) {
      if (j->done_bytes[k] == 0 || (p_.rate_min[k] == 0 && p_.rate_iops_min[k] == 0)) continue;
      if (j->check_bytes[k] != 0 || j->check_ios[k] != 0) {
        const Nanos spent_ms = (now - j->check_time[k]) / kMilli;
        if (spent_ms < 1000) continue;
        const auto ms = static_cast<std::uint64_t>(spent_ms);
        const std::string who = "profile '" + p_.name + "': ";
        if (p_.rate_min[k] != 0) {
          const std::uint64_t got = (j->done_bytes[k] - j->check_bytes[k]) * 1000 / ms;
          if (got < p_.rate_min[k]) {
            rate_failure_ = who + "rate_min=" + std::to_string(p_.rate_min[k]) +
                            "B/s not met, got " + std::to_string(got) + "B/s";
          }
        } else {
          const std::uint64_t got = (j->done_ios[k] - j->check_ios[k]) * 1000 / ms;
          if (got < p_.rate_iops_min[k]) {
            rate_failure_ = who + "rate_iops_min=" + std::to_string(p_.rate_iops_min[k]) +
                            " not met, got " + std::to_string(got) + " IOPS";
          }
        }
        if (!rate_failure_.empty()) {
          e_.Stop();
          return;
        }
      }
      j->check_bytes[k] = j->done_bytes[k];
      j->check_ios[k] = j->done_ios[k];
      j->check_time[k] = now;
    }
  }

  void OnComplete(Slot* s, Status st) {
    const Nanos now = e_.Now();
    ++r_.completed;
    if (s->op != IoOp::kFlush && st == Status::kOk) ++s->job->completed;  // fio's io_blocks
    --in_flight_;
    --s->job->in_flight;
    s->busy = false;
    WakeOverlapWaiters();
    if (s->write_id != 0) {
      s->job->written.Landed(s->write_id);
      s->write_id = 0;
    }
    if (s->oracle_serial != 0) {
      oracle_->Landed(s->oracle_serial, s->offset, s->length, now);
      s->oracle_serial = 0;
    }
    if (s->end_flush) {
      s->end_flush = false;
      s->job->idle.push_back(s);
      StopIfDone();
      return;
    }
    if (now != last_now_) {
      last_now_ = now;
      same_instant_ = 0;
    } else if (++same_instant_ > kMaxSameInstant && e_.IsSimulated() && p_.runtime > 0) {
      stalled_ = true;  // zero-latency stack: simulated time would never reach the end
      e_.Stop();
      return;
    }
    Job* j = s->job;
    if (!j->batched) Measure(s, st, now);
    CheckMinRate(j, s, st, now);
    if (!rate_failure_.empty()) return;
    if ((r_.completed & 4095) == 0 && o_.cancel != nullptr && e_.IsSimulated() &&
        o_.cancel->load(std::memory_order_relaxed)) {
      cancelled_ = true;
      e_.Stop();
      return;
    }
    if (o_.progress && r_.completed % o_.progress_every == 0) {
      o_.progress(RunProgress{now - r_.start, p_.runtime > 0 ? p_.ramp_time + p_.runtime : 0,
                              r_.completed, planned_ios_});
    }
    if (j->batched) {
      if (!j->reaping) {
        // The queue was not refilled (the job is done): fio reaps it all.
        Measure(s, st, now);
        j->idle.push_back(s);
        MaybeEndFlush(j);
        StopIfDone();
        return;
      }
      s->status = st;
      j->done.push_back(s);
      Reap(j);
      return;
    }
    j->idle.push_back(s);
    if (j->flow_held) {
      MaybeSleepHeld(j);
      StopIfDone();
      return;
    }
    if (j->think_draining) {  // its pause comes before anything else, the job's end too
      if (j->in_flight == 0) Pause(j);
      return;
    }
    // fio's loop reaps when the queue is full, then asks whether a pause is
    // due; after the job's last I/O too.
    if (p_.thinktime > 0 && j->idle.size() == 1 && !j->verifying && !j->terminated &&
        ThinkDue(*j)) {
      StartThink(j);
      return;
    }
    if (j->verifying || (j->verify_pending && !MayIssue(*j) && !j->terminated)) {
      ContinueVerify(j);
      return;
    }
    if (j->open_loop()) {
      // Backlogged arrivals take the slot at once.
      OnArrival(j);
      MaybeEndFlush(j);
      StopIfDone();
      return;
    }
    if (!MayIssue(*j)) {
      MaybeEndFlush(j);
      StopIfDone();
      return;
    }
    if (j->lat) {
      FillToDepth(j);
      return;
    }
    if (p_.thinktime > 0) {
      IssueThinking(j);
      return;
    }
    if (LetThrough(j)) Issue(j, s, now);
  }

  // What a job does when it may issue: at its start, and when flow lets it
  // go again.
  void Resume(Job* j) {
    if (j->think_draining || j->think_pausing) return;  // the pause's end resumes it
    if (j->verifying || (j->verify_pending && !MayIssue(*j) && !j->terminated)) {
      ContinueVerify(j);
      return;
    }
    if (j->open_loop()) {
      OnArrival(j);
    } else if (j->batched) {
      Fill(j);
    } else if (j->lat) {
      FillToDepth(j);
    } else if (p_.thinktime > 0) {
      IssueThinking(j);
    } else {
      while (!j->idle.empty() && MayIssue(*j) && LetThrough(j)) {
        Issue(j, j->idle.back(), e_.Now());
      }
    }
    MaybeEndFlush(j);
  }

  // fio's thinktime. fio's loop issues one I/O, reaps one completion if the
  // queue is then full, and asks handle_thinktime whether a pause is due:
  // thinktime_blocks more I/Os completed (or issued) than at the last pause,
  // or with thinktime_iotime, that plus thinktime since the last pause was
  // due (by time alone unless thinktime_blocks is set). A pause drains the
  // queue (io_u_quiesce), then waits thinktime, whole even past the job's
  // runtime (fio 3.33; later fio caps it). The count and time at the pause
  // are taken before the drain, so with the default of 1 the next I/O
  // pauses again (one in flight), and with thinktime_iotime the I/O between
  // pauses lasts about thinktime_iotime, the first window thinktime longer.
  std::uint64_t ThinkCount(const Job& j) const {
    return p_.thinktime_blocks_type == ThinkBlocks::kIssue ? j.issued : j.completed;
  }
  bool ThinkDue(const Job& j) const {
    if (j.last_was_flush) return false;
    if (p_.thinktime_iotime > 0) {
      if (e_.Now() - ThinkSince(j) - p_.thinktime >= p_.thinktime_iotime) return true;
      if (!p_.thinktime_blocks) return false;
    }
    return ThinkCount(j) >= j.think_last + p_.thinktime_blocks.value_or(1);
  }
  // The time thinktime_iotime counts from: when the last pause was due, or
  // the ramp's end if later, where fio 3.35 and later restart it (fio 3.33
  // does not).
  Nanos ThinkSince(const Job& j) const {
    return e_.Now() >= r_.ramp_end ? std::max(j.think_since, r_.ramp_end) : j.think_since;
  }

  // Issues until the queue is full (the next completion is the reap that
  // asks again) or a pause is due.
  void IssueThinking(Job* j) {
    while (!j->idle.empty() && MayIssue(*j) && LetThrough(j)) {
      Issue(j, j->idle.back(), e_.Now());
      if (!j->idle.empty() && ThinkDue(*j)) {
        StartThink(j);
        return;
      }
    }
  }

  void StartThink(Job* j) {
    j->think_last = ThinkCount(*j);
    j->think_since = e_.Now();
    j->think_draining = true;
    if (j->in_flight == 0) Pause(j);
  }

  // The queue has drained: the pause, thinktime long (fio clamps
  // thinktime_spin to thinktime and spins that part of it, so the pause is
  // thinktime either way).
  void Pause(Job* j) {
    j->think_draining = false;
    j->think_pausing = true;
    PauseChunk(j, p_.thinktime);
  }

  // fio's usec_sleep sleeps in chunks of under 2 s (1 s and the part of a
  // second left over) and ends after the chunk in which the job was
  // terminated (exitall, steady state).
  void PauseChunk(Job* j, Nanos left) {
    const Nanos chunk = left > kSecond ? kSecond + (left - 1) % kSecond + 1 : left;
    At(e_.Now() + chunk, [this, j, rest = left - chunk] {
      if (rest > 0 && !j->terminated) {
        PauseChunk(j, rest);
        return;
      }
      j->think_pausing = false;
      // fio's job ends after its last pause: the pause is in its runtime.
      last_pause_end_ = std::max(last_pause_end_, e_.Now());
      if (done_) return;
      Resume(j);
      StopIfDone();
    });
  }

  // The job issues no more; a hold of flow ends with it (its wake-ups are
  // stale then).
  void TerminateJob(Job* j) {
    j->terminated = true;
    if (j->flow_held) EndHold(j);
  }

  // fio's flow_threshold_exceeded: true (the I/O counted) when the job is
  // within its share, else the job is held back.
  bool FlowAllows(Job* j) {
    if (flows_ == nullptr) return true;
    if (j->flow_held) return false;
    if (flows_->TryIssue(p_.flow_id, p_.flow, j->flow_count)) {
      WakeFlow();
      return true;
    }
    HoldBack(j);
    return false;
  }

  // The jobs held back on the flow try again, once the caller is done.
  void WakeFlow() {
    if (flows_->waiting(p_.flow_id) == 0) return;
    for (auto& w : flows_->TakeWaiting(p_.flow_id)) e_.ScheduleAt(e_.Now(), std::move(w));
  }

  void HoldBack(Job* j) {
    j->flow_held = true;
    const std::uint64_t gen = ++j->hold_gen;
    const bool timed = stop_at_ != std::numeric_limits<Nanos>::max();
    if (timed && !j->stop_timer) {
      // A held job still ends at its runtime (fio checks it first).
      j->stop_timer = true;
      At(stop_at_, [this, j] { Release(j, j->hold_gen); });
    }
    if (p_.flow_sleep > 0) {
      j->flow_sleeping = true;
      if (!timed) j->sleep_version = flows_->Sleep(p_.flow_id);
      MaybeSleepHeld(j);  // fio drains the queue, then sleeps
    } else {
      j->wait_ticket = flows_->Wait(
          p_.flow_id,
          [alive = std::weak_ptr<const bool>(alive_), this, j, gen] {
            if (!alive.expired()) Release(j, gen);
          },
          /*held=*/!timed);
    }
    if (!timed && flows_->Stuck(p_.flow_id)) {
      flow_failure_ = "profile '" + p_.name + "': flow_id " + std::to_string(p_.flow_id) +
                      ": every running job is held back for jobs that start in a later "
                      "section (fio would wait forever); give those their own flow_id";
      e_.Stop();
    }
  }

  // flow_sleep: once nothing of the held job is in flight, it sleeps.
  void MaybeSleepHeld(Job* j) {
    if (p_.flow_sleep == 0 || j->in_flight != 0) return;
    const std::uint64_t gen = j->hold_gen;
    At(e_.Now() + p_.flow_sleep, [this, j, gen] { Release(j, gen); });
  }

  void Release(Job* j, std::uint64_t gen) {
    if (!j->flow_held || gen != j->hold_gen) return;  // released already
    EndHold(j);
    Resume(j);
    StopIfDone();
  }

  // The hold's bookkeeping in the flow: a sleeper's count, or the parked
  // wake-up if it is still there (the stop time came first).
  void EndHold(Job* j) {
    j->flow_held = false;
    ++j->hold_gen;
    if (j->flow_sleeping) {
      j->flow_sleeping = false;
      if (stop_at_ == std::numeric_limits<Nanos>::max()) flows_->Wake(p_.flow_id, j->sleep_version);
    } else {
      flows_->Unwait(p_.flow_id, j->wait_ticket);
    }
  }

  // A job ends when it may issue no more and nothing of it is in flight:
  // it leaves its flow, and under exitall terminates others.
  void MaybeEnd(Job* j) {
    if (j->ended || !j->started || j->in_flight != 0 || j->flow_held || j->think_pausing ||
        MayIssue(*j))
      return;
    if (j->verify_pending && !j->terminated) return;
    if ((p_.end_fsync || p_.fsync_on_close) && p_.does(IoOp::kWrite) && !j->end_flush_done &&
        !j->last_was_flush && !j->failed)
      return;  // its end flush comes first (a terminated job's too, as fio's; not a failed one's)
    j->ended = true;
    if (flows_ != nullptr) {
      flows_->End(p_.flow_id);
      flows_->Leave(p_.flow_id, p_.flow, j->flow_count);
      j->flow_count = 0;
      WakeFlow();
    }
    if (exitall_) {
      if (p_.exit_what == ExitWhat::kAll) g_.ended_run = true;
      for (Run* r : g_.runs) {
        if (r != this) r->Terminate(p_.exit_what, groupid_);
      }
      Terminate(p_.exit_what, groupid_);
    }
  }

  Engine& e_;
  BlockDevice& v_;
  std::vector<BlockDevice*> clients_;  // a cluster's views (SectionWork::clients)
  const Profile& p_;
  const std::vector<std::vector<FileRegion>>& files_;
  std::vector<std::optional<JobStream>> streams_;  // from a fast warm-up
  const RunOptions& o_;
  Group& g_;
  VerifyOracle* oracle_ = nullptr;
  std::vector<Job*> overlap_waiters_;  // held by HoldIfOverlapping
  FlowControl* flows_ = nullptr;       // null: the section has no flow
  std::uint32_t pattern_style_ = 0;    // verify_pattern's style in the oracle (0: none)
  const std::uint32_t job_prio_ = p_.priorities.job();
  const bool per_io_prio_ = p_.priorities.per_io();
  int groupid_ = 0;
  std::uint32_t first_job_ = 0, run_jobs_ = 0;
  bool exitall_ = false;
  bool terminated_ = false;
  bool launched_ = false;
  std::shared_ptr<const bool> alive_ = std::make_shared<const bool>(true);  // for At()
  // Steady state: completions so far, and at the last check.
  struct SsCounts {
    std::uint64_t ios = 0, bytes = 0, lat_sum = 0, lats = 0;
  };
  SsCounts ss_now_, ss_prev_;
  Nanos ss_prev_at_ = 0;            // when ss_prev_ was taken
  std::deque<Nanos> round_starts_;  // snia: the starts of the window's rounds
  const Run* waitee_ = nullptr;
  std::string flow_failure_;
  Nanos last_verify_ = 0;
  bool done_ = false;
  RunResult r_;
  Nanos begin_ = 0;  // the jobs' start: start + startdelay
  Nanos stop_at_ = 0;
  Nanos last_completion_ = 0;
  Nanos last_pause_end_ = 0;  // thinktime: the end of the last pause
  std::uint64_t planned_ios_ = 0;
  std::uint64_t in_flight_ = 0;
  static constexpr std::uint64_t kMaxSameInstant = 10'000'000;
  Nanos last_now_ = -1;
  std::uint64_t same_instant_ = 0;
  bool stalled_ = false;
  bool cancelled_ = false;
  std::string rate_failure_;  // rate_min / rate_iops_min not met
  std::vector<std::unique_ptr<Job>> jobs_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<AlignedBuffer> buffers_;
  Xoshiro256 rng_{0x5eed};
};

}  // namespace

Expected<std::vector<RunResult>> RunSections(Engine& engine, BlockDevice& volume,
                                             const std::vector<SectionWork>& sections) {
  std::uint64_t outstanding = 0;
  for (const SectionWork& w : sections) {
    outstanding += std::uint64_t{w.profile->numjobs} * w.profile->iodepth;
  }
  // One section's own limit is checked with its profile (ValidateProfile).
  if (sections.size() > 1 && outstanding > kMaxOutstandingRequests) {
    return MakeError("profile '" + sections.front().profile->name +
                     "': the sections that start together keep " + std::to_string(outstanding) +
                     " outstanding requests (numjobs x iodepth); a run keeps at most " +
                     std::to_string(kMaxOutstandingRequests) + " (separate them with stonewall)");
  }
  // Sections that verify share what the volume holds with every section
  // that writes beside them.
  std::unique_ptr<VerifyOracle> own_oracle;
  std::vector<SectionWork> work = sections;
  const bool verifies = std::any_of(work.begin(), work.end(), [](const SectionWork& w) {
    return !w.profile->verify.empty() && w.oracle == nullptr;
  });
  if (verifies) {
    own_oracle = std::make_unique<VerifyOracle>(volume.BlockSize());
    for (SectionWork& w : work) {
      if (w.oracle == nullptr) w.oracle = own_oracle.get();
    }
  }
  // fio's thread numbers, when the caller has not given the run's.
  std::uint32_t jobs = 0;
  for (const SectionWork& w : work) jobs += w.run_jobs == 0 ? w.profile->numjobs : 0;
  for (std::uint32_t next = 0; SectionWork & w : work) {
    if (w.run_jobs != 0) continue;
    w.first_job = next;
    w.run_jobs = jobs;
    next += w.profile->numjobs;
  }
  // Flow: every job of these sections joins, unless the run's jobs have.
  std::unique_ptr<FlowControl> own_flows;
  for (SectionWork& w : work) {
    if (w.profile->flow == 0 || w.flows != nullptr) continue;
    if (own_flows == nullptr) own_flows = std::make_unique<FlowControl>();
    for (std::uint32_t j = 0; j < w.profile->numjobs; ++j)
      own_flows->Join(w.profile->flow_id, w.profile->flow);
    w.flows = own_flows.get();
  }
  Group group;
  std::vector<std::unique_ptr<Run>> runs;
  for (const SectionWork& w : work) {
    runs.push_back(std::make_unique<Run>(engine, volume, w, group));
    group.runs.push_back(runs.back().get());
  }
  for (auto& r : runs) {
    if (auto ok = r->Prepare(); !ok.ok()) return ok.error();
  }
  // wait_for: a section waits for the last of that name before it.
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string& waitee = work[i].profile->wait_for;
    for (std::size_t k = i; k-- > 0 && !waitee.empty();) {
      if (runs[k]->name() == waitee) {
        runs[i]->WaitFor(runs[k].get());
        break;
      }
    }
  }
  for (auto& r : runs) {
    if (!r->waits()) r->Launch();
  }
  // A section may be done at once (nothing to issue): it must not hold the
  // others' engine open, nor stop it early.
  for (auto& r : runs) r->StopIfDone();
  if (group.running > 0) engine.Run();
  std::vector<RunResult> out;
  for (auto& r : runs) {
    auto res = r->Finish();
    if (!res.ok()) return res.error();
    out.push_back(std::move(*res));
  }
  return out;
}

Expected<RunResult> RunWorkload(Engine& engine, BlockDevice& volume, const Profile& profile,
                                const RunOptions& options) {
  auto r = RunSections(engine, volume, {SectionWork{&profile, {}, options}});
  if (!r.ok()) return r.error();
  return std::move(r->front());
}

}  // namespace tierlab
