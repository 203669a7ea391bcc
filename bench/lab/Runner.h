#pragma once
// Drives one volume (any BlockDevice stack) with one workload profile on an
// engine, simulated or real, and measures it the way fio does.
//
// Closed loop: numjobs x iodepth requests outstanding; a slot issues its next
// I/O when the previous completes (after `thinktime`). Open loop when
// `rate` or `rate_iops` is set: each job's I/Os arrive on fio's schedule of
// bytes (Profile::rate_bps); an arrival that finds every slot busy waits,
// and its latency counts from the arrival (no coordinated omission).
//
// Measurement window: the jobs start after `startdelay`; I/Os issued during
// `ramp_time` after that are not counted. A job stops issuing at ramp_time +
// runtime, or, unless time_based, when it has done its bytes (io_size or
// size, x loops; ramp included, as fio), its number_ios, or its last pass
// over the region: fio's end-of-job conditions (WorkloadGenerator.h).
//
// Sections: RunSections runs several profiles at once on one volume (the
// sections of a job file between two stonewalls, as fio starts them), each
// with its own jobs, timing and measurement window; it returns when every
// one has ended. Each job's I/O stream is a JobStream over its files
// (JobFiles.h), or over the whole volume.
//
// Flow and exitall: jobs of one flow_id issue in the ratio of their weights
// (FlowControl.h); with exitall, a job that ends terminates other jobs of
// its groupid, every running job, or every job, as its exit_what says.
//
// latency_target (LatencyTarget.h): each job's queue is as deep as its
// search says; the final run starts the section's figures afresh.
//
// Errors (fio's continue_on_error, ContinueOnError.h): a job goes on after
// the errors its profile continues past, counting them; any other error, a
// verify mismatch included, ends the job (what it has in flight completes;
// no end_fsync, no verify phase), except ENOSPC under fill_device, which
// ends it without an error.
//
// Verify (fio's, VerifyOracle.h): a job with verify that writes reads back
// each block it wrote once its writes have completed (its verify phase,
// past runtime, counted as reads); reads are checked against what the
// oracle says the blocks hold when the volume carries data.
//
// Buffers: when the volume RequiresData() (real devices, with-data models)
// every slot gets an aligned buffer; otherwise requests are timing-only.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "bench/lab/FioLogs.h"
#include "bench/lab/FlowControl.h"
#include "bench/lab/OpMetrics.h"
#include "bench/lab/PrioLatencies.h"
#include "bench/lab/SteadyState.h"
#include "bench/lab/VerifyOracle.h"
#include "bench/workload/JobFiles.h"
#include "bench/workload/JobStream.h"
#include "bench/workload/Profile.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/Engine.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct RunProgress {
  Nanos now = 0;                  // engine time since the start of the run
  Nanos planned = 0;              // ramp + runtime, 0 if size/count based
  std::uint64_t ios = 0;          // completed so far
  std::uint64_t planned_ios = 0;  // total for count/size based runs, else 0
};

struct RunOptions {
  // Called every `progress_every` completions (cheap to check, engine-agnostic).
  std::function<void(const RunProgress&)> progress;
  std::uint64_t progress_every = 1 << 16;
  // Simulated runs only: when it reads true (checked every 4096
  // completions) the run stops and returns an error; nothing is measured.
  // Real runs ignore it: their requests are in flight on real devices.
  const std::atomic<bool>* cancel = nullptr;
  // fio's logs of the profile (write_bw_log...): each completion of the
  // measured window goes to it. Null: none.
  FioLogs* logs = nullptr;
  // Called every `round` of engine time from the section's start while it
  // runs (0 or empty: never), for what watches the stack round by round
  // (RunCell's cache phases, CachePhases.h).
  std::function<void(Nanos now)> on_round;
  Nanos round = 0;
  // True while the last round showed a write buffer filling: a write
  // cache absorbing writes (CachePhases::filling) or a log spending its
  // free segments (LogReserveWatch::draining). tierlab's snia steady state
  // is not attained on such a round, so the ramp goes on until the buffer
  // is full or keeps up (empty: no such check).
  std::function<bool()> absorbing;
};

// fio's verify, for one section (VerifyOracle.h).
struct VerifyResult {
  static constexpr std::size_t kFirstBadKept = 16;
  bool enabled = false;     // the section has verify
  bool checked = false;     // the volume carried data, so contents were compared
  std::uint64_t reads = 0;  // reads of the verify phase (also counted as reads)
  std::uint64_t bytes_checked = 0;
  std::uint64_t mismatches = 0;          // reads with a block that differs
  std::vector<std::uint64_t> first_bad;  // offsets of the first bad blocks
  // I/Os held back until an overlapping one in flight completed (fio's
  // serialize_overlap; without a random map two I/Os can share a block).
  std::uint64_t overlaps_held = 0;
};

// fio's job error and error counts (continue_on_error), for one section.
struct JobErrors {
  // fio's "error": the errno that ended a job, else, under continue_on_error,
  // the first error a job went on after (0: none). EILSEQ is a verify
  // mismatch, ETIMEDOUT a missed latency_target.
  int error = 0;
  bool ended_job = false;   // `error` ended a job of the section
  std::uint64_t total = 0;  // errors the jobs went on after (fio's total_err)
  int first = 0;            // the first of them (fio's first_error)
};

struct RunResult {
  OpMetrics metrics;         // measured window only
  Nanos start = 0;           // engine time at start of the run
  Nanos ramp_end = 0;        // start of the measured window
  Nanos end = 0;             // end of the measured window
  std::uint64_t issued = 0;  // every I/O, ramp included
  std::uint64_t completed = 0;
  // Issued I/Os by size, reads [0], writes [1] and trims [2], ramp
  // included: what fio's write_iolog of the same job would count.
  std::map<std::uint64_t, std::uint64_t> issued_by_size[3];
  // Flushes issued (fsync, fdatasync, end_fsync, fsync_on_close): fio's
  // iolog "sync" and "datasync" lines. Not in `issued`.
  std::uint64_t issued_flushes = 0;
  VerifyResult verify;
  JobErrors errors;
  // Completion latencies per I/O priority (per-I/O priorities only).
  PrioLatencies prios;
  // fio's latency_depth: where latency_target's search ended (its last job).
  std::uint32_t latency_depth = 0;
  // A job's end with exitall and exit_what=all terminated every job, so the
  // sections after this one's group do nothing.
  bool ended_run = false;
  // fio's steady state, when the profile has ss_dur.
  std::optional<SteadyState> steadystate;
};

// Runs the profile to completion (calls engine.Run()). Errors: a profile
// that does not fit the volume or asks for more than kMaxOutstandingRequests
// (exit code 2); a cancelled run.
Expected<RunResult> RunWorkload(Engine& engine, BlockDevice& volume, const Profile& profile,
                                const RunOptions& options = {});

// One of the sections RunSections runs together.
struct SectionWork {
  const Profile* profile = nullptr;
  // Per job, its files on the volume (FileLayout::RegionsOf); an empty list
  // (or none at all): the job addresses the whole volume.
  std::vector<std::vector<FileRegion>> files;
  RunOptions options;
  // What the volume's blocks hold, shared by every section of a run that
  // verifies (null: RunSections makes one for its sections when one of
  // them verifies).
  VerifyOracle* oracle = nullptr;
  // fio's flow control, shared by every section of the run, each of whose
  // jobs has joined it (null: RunSections makes one for its sections when
  // one of them has flow).
  FlowControl* flows = nullptr;
  int groupid = 0;  // fio's reporting group, for exit_what=group
  // fio's thread numbers: the run's index of the section's first job and
  // the run's number of jobs, for dedupe_global (0 jobs: RunSections counts
  // the jobs of its sections, in order).
  std::uint32_t first_job = 0;
  std::uint32_t run_jobs = 0;
  // Per job, the stream a fast warm-up drew from (FunctionalWarmup.h), which
  // the job continues, as a job continues after fio's ramp_time; a job
  // without one (nullopt, or past the end) creates its stream afresh.
  std::vector<std::optional<JobStream>> streams = {};
  // Where the jobs run, on a cluster volume (ClusterTarget::ClientView):
  // the run's job k (first_job + j) submits to clients[k % size], as
  // VMFleet spreads its VMs over the nodes. Empty: every job submits to the
  // volume.
  std::vector<BlockDevice*> clients = {};
  bool exitall = false;     // a job of the run has exitall (fio's is global)
  bool terminated = false;  // exit_what=all ended the run before: no I/O
};

// Starts every section at once and runs until all have ended; results in
// the sections' order. The first error of any section is the result. Their
// requests together must stay within kMaxOutstandingRequests.
Expected<std::vector<RunResult>> RunSections(Engine& engine, BlockDevice& volume,
                                             const std::vector<SectionWork>& sections);

}  // namespace tierlab
