#pragma once
// A workload profile: what one fio job section (or one tierlab profile JSON)
// describes. Field and option names are fio's, with fio's meaning; where
// tierlab differs it says so here.
//
// Options (JSON keys and fio job-file options are the same names):
//   name                 job name (fio: the section name or name=)
//   rw / readwrite       read | write | randread | randwrite | rw | readwrite | randrw |
//                        trim | randtrim | trimwrite | randtrimwrite
//                        ("rw" and "readwrite" are the same: mixed sequential;
//                        trims are discards; trimwrite: a trim, then writes up
//                        to where the next trim starts, fio's alternation;
//                        randtrimwrite: each write covers the trim before it).
//                        fio's offset modifier: "randread:8" takes a new random
//                        offset every 8 I/Os (the 7 between continue
//                        sequentially); "read:4k" / "read:-8k" adds 4k / -8k
//                        to each next sequential offset (holes; backwards).
//   rw_sequencer         sequential (default) | identical: what the I/Os between
//                        two random offsets of "randread:N" do (identical:
//                        repeat the offset).
//   rwmixread            % of mixed I/Os that are reads, 0..100 (default 50)
//   rwmixwrite           100 - rwmixread (sets rwmixread)
//   bs / blocksize       block size, > 0, e.g. 4k (default 4k). "8k,32k,4k": reads
//                        8k, writes 32k, trims 4k, as fio ("bs=,8k": reads 4k,
//                        writes and trims 8k).
//   bsrange / blocksize_range  "4k-16k[,8k-64k[,...]]" per direction: sizes as
//                        fio's get_next_buflen (min + uniform below max, down to
//                        a multiple of min, capped at max). Sets bs to the mins.
//   ba / blockalign      alignment of random offsets, one for all directions
//                        (default: the smallest block size, fio's default)
//   bssplit              "4k/50:8k/30:64k/20": sizes and % of I/Os; the %s must
//                        add up to 100 (a size with an empty % gets the rest,
//                        as in fio). Overrides bs when given. "R,W[,T]": a split
//                        per direction, as fio.
//   iodepth              outstanding I/Os per job, 1..65536 (default 1)
//   numjobs              concurrent jobs, 1..4096 (default 1); numjobs x iodepth
//                        at most kMaxOutstandingRequests (below)
//   size                 bytes each job covers ("10g") or a % of the volume
//                        ("50%"); default: volume size - offset
//   offset               start of the region: bytes or % of the volume (default 0)
//   offset_increment     job j starts at offset + j * offset_increment (bytes or %)
//   split_size           tierlab extension, default 0: size is the section's,
//                        shared by its numjobs jobs: each gets size/numjobs
//                        (rounded down to the block alignment), job j from
//                        offset + j x size/numjobs, so no two overlap. VMFleet
//                        and HCIBench divide one working set among their VMs
//                        this way; a matrix axis on numjobs then re-divides
//                        the same working set. Not with offset_increment.
//                        With fio's own files per job (JobFiles.h), the job's
//                        files share its part as they share size.
//   runtime / timeout    cap on the measured run time (fio time: "30" = 30 s,
//                        "500ms", "5m"). As fio, a job also ends when it has
//                        done its bytes (io_size, else size, times loops) or
//                        number_ios, whichever comes first, unless time_based.
//   time_based           run for runtime even when the bytes are done, going
//                        over the region again (fio); needs runtime.
//   loops                do the job's bytes (and number_ios) this many times
//                        (default 1; ignored when time_based, as fio)
//   io_size / io_limit   bytes to do within the region (default: size); more
//                        than size goes over the region again
//   number_ios           stop each job after this many I/Os (0 = no limit);
//                        as fio, it never extends the bytes of a job and is
//                        ignored when time_based
//   startdelay           delay the start of every job of the section (fio
//                        time; fio's "a-b" random range is rejected)
//   ramp_time            warm-up before measuring (fio time)
//   random_distribution  random | zipf:θ (θ > 0) | pareto:h (0 < h < 1) |
//                        normal[:dev%] | zoned:a/s[:a/s...] (access%/size%;
//                        access %s add up to 100, size %s at most 100)
//   percentage_random    for rand* modes: % of I/Os at a random block; the rest
//                        continue sequentially after the previous I/O
//                        (vdbench seekpct). Default 100.
//   percentage_sequential  100 - percentage_random (sets percentage_random)
//   rate_iops            per-job cap on I/Os per second, all directions
//                        together (fio applies one value to each direction).
//                        "a,b" (reads, writes) as fio for a job that does one
//                        direction; on a mixed job only equal values. 0 = no cap.
//   rate                 per-job cap in bytes/s, directions together as rate_iops;
//                        an I/O is due when the bytes before it are (fio's
//                        usec_for_io). Wins over rate_iops, as fio.
//   rate_process         linear (even gaps) | poisson (exponential gaps with
//                        the rate's mean, fio's usec_for_io)
//   rate_min, rate_iops_min  fio's check: after 2 s, outside the ramp, each
//                        direction must keep this over every second, else the
//                        run fails (exit 1) with fio's message. "a,b" per
//                        direction; trims share the write value.
//   fsync, fdatasync     a flush in place of the next I/O after every N writes
//                        (fio's get_rw_ddir: repeated after other I/O until the
//                        next write). The volume has one flush for both.
//   end_fsync, fsync_on_close  one flush when a job that writes is done
//                        (not measured; skipped after a flush, as fio)
//   iodepth_batch / iodepth_batch_submit  accepted (a refill reaches the volume
//                        at one instant anyway)
//   iodepth_low, iodepth_batch_complete_min / iodepth_batch_complete,
//   iodepth_batch_complete_max  fio's reaping: once the queue is full, reap at
//                        least min (at most max) until the depth is down to
//                        iodepth_low, then refill; latency ends at the reap.
//                        Not with rate, rate_iops or thinktime.
//   thinktime            fio's think: a job that has completed (or, with
//                        thinktime_blocks_type=issue, issued) thinktime_blocks
//                        I/Os since its last pause drains its queue and pauses
//                        (fio time, bare number = microseconds), so a job
//                        thinking after every I/O (the default, 1) keeps one
//                        in flight whatever its iodepth. Not with rate or
//                        rate_iops.
//   thinktime_blocks, thinktime_blocks_type (complete | issue),
//   thinktime_spin       fio's: the count between pauses, what it counts, and
//                        a busy part of the pause (clamped to thinktime, so
//                        the pause is thinktime; tierlab spends no CPU on it)
//   thinktime_iotime     fio's: a pause also once this long plus thinktime
//                        has passed since the last pause was due (at first
//                        the job's start; the ramp's end restarts it), i.e.
//                        after about this long of I/O; by time only unless
//                        thinktime_blocks is set (fio time, bare number =
//                        seconds)
//   norandommap          fio's: 0 (default) keeps a random map, so a uniform
//                        random job touches every block of its region once
//                        per pass (RandomMap.h); 1 draws with repeats
//   random_generator     fio's: lfsr picks every block once per pass without
//                        a map (no I/O is cut), with or without norandommap
//   randseed             seed of every random stream of the job
//   random_scatter       tierlab extension, default 1: spread the popularity
//                        ranks of zipf/pareto/normal over the region with a
//                        keyed permutation (fio always hashes them). 0 puts
//                        the hottest blocks first, for extent-level locality.
//   stonewall / wait_for_previous  start this section when every section
//                        before it has ended. Without it, a section starts
//                        together with the sections before it (back to the
//                        last stonewall), as fio's jobs do.
//   filename, directory, nrfiles, filesize  fio's files, each its own region
//                        of the volume (JobFiles.h). Without any of them in
//                        the job file, every job addresses the volume itself
//                        (fio's filename=/dev/...). filename "a:b" names
//                        several files; a job's I/Os go round robin over its
//                        files (fio's file_service_type default).
//   verify               fio's verify: crc32c, md5, sha256... (0: off; null:
//                        the reads are issued, nothing is compared, as fio).
//                        A job that writes reads back every block it wrote
//                        after its writes (do_verify, default 1); a job that
//                        reads checks what verifying jobs wrote before it.
//                        Checked when the volume carries data (--real, with-
//                        data models); otherwise the reads are issued, and
//                        the results say nothing was checked.
//   do_verify, verify_fatal  as fio (verify_fatal: a read's check stops at its
//                        first bad block, which tierlab's always does)
//   verify_pattern       fio's pattern (FioPattern.h) the writes of a verifying
//                        job carry; without verify it sets verify=meta (fio's
//                        header-and-pattern check)
//   verify_interval      where headers start in a write (fio's; tierlab's own
//                        8-byte header with verify_pattern)
//   verify_backlog, verify_backlog_batch  fio's: read back writes while
//                        writing (bench/lab/VerifyBacklog.h)
//   verify_write_sequence  fio's (newer than 3.33): 0 skips the blocks a write
//                        raced the read on (VerifyOracle.h)
//   continue_on_error, ignore_error  fio's: which errors a job goes on after
//                        (ContinueOnError.h); default none: the first error
//                        ends the job (its error code in the results)
//   fill_device          fio's: ENOSPC ends a writing job without an error
//   dedupe_percentage, dedupe_mode, dedupe_working_set_percentage, dedupe_global,
//   buffer_compress_percentage, buffer_compress_chunk, buffer_pattern, zero_buffers
//                        fio's buffer contents: what the writes carry when the
//                        volume carries data (WriteData.h)
//   prio, prioclass, cmdprio_percentage, cmdprio_class, cmdprio, cmdprio_bssplit,
//   log_prio             fio's I/O priorities (IoPriority.h): carried to the logs
//                        and the JSON; devices do not schedule by them
//   atomic               fio's RWF_ATOMIC writes: a write must be a power of
//                        two bytes at an offset it divides, else EINVAL
//   latency_target, latency_window, latency_percentile, latency_run
//                        fio's search for the deepest queue (up to iodepth)
//                        whose I/Os meet the target (bench/lab/LatencyTarget.h);
//                        times: bare number = microseconds, as fio
//   new_group            start a new reporting group (fio's groupid), as
//                        stonewall does, without waiting
//   wait_for             start when the section of that name (one before
//                        this one) has ended, as fio
//   exitall, exit_what   fio's: once any job of the run has exitall, a job
//                        that ends terminates the jobs of its groupid (group,
//                        the default), every running job (stonewall), or
//                        every job, later sections included (all)
//   flow, flow_id, flow_sleep  fio's flow control: the jobs of one flow_id
//                        issue in the ratio of their weights (flow 1..1000);
//                        a job ahead of its share waits for the others, or
//                        with flow_sleep drains its queue and sleeps
//   io_submit_mode       inline | offload: the same I/Os either way
//   steadystate / ss, ss_dur, ss_ramp, ss_interval  fio's steady state:
//                        the section stops when the criterion holds over
//                        the last ss_dur of ss_interval samples
//                        (bench/lab/SteadyState.h). tierlab's criterion
//                        `snia` (the SNIA PTS one, on IOPS; intervals may be
//                        shorter than a second) ends the ramp instead: the
//                        measured window (runtime) starts once it holds, or
//                        at ramp_time, whichever comes first
//   write_bw_log, write_iops_log, write_lat_log
//                        fio's per-interval logs, NAME_bw.N.log... in the
//                        current directory (bench/lab/FioLogs.h); no value:
//                        NAME is the job's name
//   log_avg_msec         logs: average over this many ms (0 = an entry per I/O)
//   log_offset           logs: add each I/O's offset
//   precondition         tierlab's: none (default) | fill | random[:SIZE]: a
//                        preparation before the job, per job region, as
//                        VMFleet and HCIBench prepare their disks: fill
//                        writes every block once, sequentially; random
//                        overwrites SIZE bytes (default: the region's size)
//                        at random offsets (bench/lab/Preparation.h)
//   ss_leave             tierlab's, with ss=snia: report (default) | stop: when
//                        the rounds stop meeting the criterion during the
//                        measured window, say when, or also end the job there
//   warmup               tierlab's: none (default) | fast: before the timed
//                        ramp, the job's own request stream drives the cache
//                        and tier state with no timing until it converges
//                        (bench/lab/FunctionalWarmup.h); ramp_time then lets
//                        the queues settle
//   kb_base              1024 (default) or 1000: meaning of k/m/g (FioUnits.h).
//                        Affects parsing only; not stored.
//
// Accepted and ignored (they have no meaning for tierlab, or tierlab always
// behaves this way): kIgnoredFioOptions in Profile.cc, IgnoredOptionNames().
// docs/FIO-COMPAT.md lists every option as same meaning, with a difference,
// ignored or rejected, and a test keeps it equal to these lists.
//
// Overrides (the matrix runner): a profile is data; the matrix applies a JSON
// merge patch (RFC 7386) to ToJson(profile) and re-parses it, so an override
// is validated exactly like a file. ApplyProfilePatch/SetProfileField do that.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/workload/ContinueOnError.h"
#include "bench/workload/IoPriority.h"
#include "bench/workload/WriteData.h"
#include "layouts/FieldDoc.h"
#include "tiering/core/Expected.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

// fio's steady-state criterion (bench/lab/SteadyState.h): `ss`, `ss_dur`,
// `ss_ramp`, `ss_interval`.
// tierlab's `snia` criterion: the SNIA Performance Test Specification's
// steady state on per-round IOPS (bench/lab/SteadyState.h), whose attainment
// ends the ramp instead of the job.
struct SteadyStateSpec {
  enum class Metric : std::uint8_t { kIops, kBw, kLat };
  Metric metric = Metric::kIops;  // fio's default: iops_slope:0.01%
  bool slope = true;
  bool percent = true;
  bool snia = false;    // the PTS criterion (metric kIops; slope/limit unused)
  double limit = 0.01;  // IOPS, bytes/s or ns; or % of the window's mean
  Nanos dur = 0;        // the window; 0: no steady-state check
  Nanos ramp = 0;       // samples start one interval after this
  Nanos interval = kSecond;
  bool operator==(const SteadyStateSpec&) const = default;
};

// fio's exit_what: what a job's end terminates under exitall.
enum class ExitWhat : std::uint8_t {
  kGroup,      // the jobs of its groupid
  kStonewall,  // every running job; later sections still run
  kAll,        // everything, later sections included
};

// tierlab's preparation before a job (bench/lab/Preparation.h).
enum class Precondition : std::uint8_t { kNone, kFill, kRandom };

// fio's thinktime_blocks_type: what thinktime_blocks counts.
enum class ThinkBlocks : std::uint8_t { kComplete, kIssue };

enum class RwMode : std::uint8_t {
  kRead,
  kWrite,
  kRandRead,
  kRandWrite,
  kReadWrite,
  kRandRw,
  kTrim,
  kRandTrim,
  kTrimWrite,      // each block trimmed, then written (fio's trimwrite)
  kRandTrimWrite,  // a random block trimmed, then written with the trim's size
};
enum class RandomDistribution : std::uint8_t { kRandom, kZipf, kPareto, kNormal, kZoned };

struct BsSplitEntry {
  std::uint64_t bs = 0;
  std::uint32_t percent = 0;
  bool operator==(const BsSplitEntry&) const = default;
};

struct ZoneSpec {
  std::uint32_t access_percent = 0;
  std::uint32_t size_percent = 0;
  bool operator==(const ZoneSpec&) const = default;
};

// Bytes, or a percentage of the volume when `is_percent`.
struct SizeSpec {
  std::uint64_t bytes = 0;
  double percent = 0;
  bool is_percent = false;
  bool operator==(const SizeSpec&) const = default;
  // Resolves against a volume; percentages round down to `align`.
  std::uint64_t Resolve(std::uint64_t volume_bytes, std::uint64_t align) const;
};

inline constexpr std::uint64_t kDefaultRandSeed = 0x89abcdef;

// Per-job limits of iodepth and numjobs (fio's own job limit is 4096).
inline constexpr std::uint32_t kMaxIodepth = 65536;
inline constexpr std::uint32_t kMaxNumjobs = 4096;
// Files per job (nrfiles, or names in filename): each is a generator of its
// own in the runner (a few hundred bytes, more with zipf tables).
inline constexpr std::uint32_t kMaxNrfiles = 1024;
// fio's FLOW_MAX_WEIGHT.
inline constexpr std::uint32_t kMaxFlowWeight = 1000;

// Requests one run keeps outstanding at most: numjobs x iodepth for a
// profile (a trace replay's iodepth is at most kMaxIodepth). Each holds a
// slot in the runner and a context in every target of the stack it
// crosses: about 340 bytes on nvme4 and 780 on a write-back cached stack
// (docs/PERFORMANCE.md, "Outstanding requests"), plus its data buffer in
// real mode. 2^20 keeps a simulated run under about 1 GiB of such state and
// is far beyond what a device queue holds (NVMe: 64 Ki per queue, SAS: 256,
// SATA NCQ: 32).
inline constexpr std::uint64_t kMaxOutstandingRequests = std::uint64_t{1} << 20;

struct Profile {
  std::string name = "job";
  RwMode rw = RwMode::kRead;
  std::uint32_t rwmixread = 50;
  std::uint64_t bs = 4096;                // reads, and writes unless write_bs
  std::optional<std::uint64_t> write_bs;  // fio's second bs value ("bs=4k,64k")
  std::optional<std::uint64_t> trim_bs;   // fio's third bs value; unset: as writes
  // bsrange: the largest size per direction (reads, writes, trims); 0: the
  // direction's I/Os are all bs_for(op). The smallest is bs_for(op).
  std::uint64_t bs_max[3] = {0, 0, 0};
  std::uint64_t ba = 0;               // blockalign of random offsets; 0: min_bs()
  std::vector<BsSplitEntry> bssplit;  // empty: every I/O is `bs` / write_bs
  // fio's per-direction bssplit ("reads,writes[,trims]"): the writes' and
  // trims' own splits; unset: as the reads' (the writes', for trims).
  std::optional<std::vector<BsSplitEntry>> bssplit_write, bssplit_trim;
  // fio's rw offset modifier ("randread:8", "read:-8k"): random modes take a
  // new random offset every `rw_seq_nr` I/Os; sequential modes add
  // `rw_seq_add` bytes to each next offset.
  std::uint32_t rw_seq_nr = 1;
  std::int64_t rw_seq_add = 0;
  bool rw_sequencer_identical = false;  // rw_sequencer=identical
  std::uint32_t iodepth = 1;
  std::uint32_t numjobs = 1;
  bool has_size = false;  // false: volume size - offset
  SizeSpec size;
  SizeSpec offset;
  SizeSpec offset_increment;
  bool split_size = false;  // size is the section's, shared by its numjobs jobs
  Nanos runtime = 0;        // 0: no time limit
  bool time_based = false;
  std::uint32_t loops = 1;
  bool has_io_size = false;
  std::uint64_t io_size = 0;
  std::uint64_t number_ios = 0;
  Nanos startdelay = 0;
  Nanos ramp_time = 0;
  RandomDistribution random_distribution = RandomDistribution::kRandom;
  double zipf_theta = 0;        // zipf
  double pareto_h = 0;          // pareto
  double normal_dev = 0;        // normal: stddev in % of the region; 0 = fio's default (100/12 %)
  std::vector<ZoneSpec> zones;  // zoned
  std::uint32_t percentage_random = 100;
  std::uint64_t rate_iops = 0;                   // reads, and writes unless rate_iops_write
  std::optional<std::uint64_t> rate_iops_write;  // fio's second value ("rate_iops=,500")
  std::uint64_t rate = 0;  // bytes/s, reads (and writes unless rate_write); 0: none
  std::optional<std::uint64_t> rate_write;
  // The run fails when a direction stays below these (fio's rate_min,
  // rate_iops_min; per direction, reads and writes/trims).
  std::uint64_t rate_min[2] = {0, 0};
  // fio's rate_process=poisson: under rate or rate_iops, exponential gaps
  // between arrivals with the rate's mean (linear: even gaps).
  bool rate_poisson = false;
  std::uint64_t rate_iops_min[2] = {0, 0};
  // Flushes: one in place of the next I/O after every N writes (0: none).
  std::uint32_t fsync = 0;
  std::uint32_t fdatasync = 0;
  bool end_fsync = false;       // a flush when the job's I/O is done
  bool fsync_on_close = false;  // the same, when the job closes the volume
  // fio's queueing: submit in batches, reap at least complete_min (at most
  // complete_max) when the queue is full, refill when it is down to
  // iodepth_low. 0: fio's default (1, complete_min, iodepth).
  std::uint32_t iodepth_batch = 0;
  std::uint32_t iodepth_batch_complete_min = 1;
  std::uint32_t iodepth_batch_complete_max = 0;
  std::uint32_t iodepth_low = 0;
  Nanos thinktime = 0;
  // Unset: 1, fio's default; set or not also matters with thinktime_iotime.
  std::optional<std::uint32_t> thinktime_blocks;
  ThinkBlocks thinktime_blocks_type = ThinkBlocks::kComplete;
  Nanos thinktime_spin = 0;
  Nanos thinktime_iotime = 0;  // 0: pauses by count only
  std::uint64_t randseed = kDefaultRandSeed;
  bool random_scatter = true;
  // fio's norandommap: false keeps fio's random map (uniform random jobs
  // touch each block once per pass); true draws offsets with repeats.
  bool norandommap = false;
  // fio's random_generator=lfsr: every block once per pass without a map
  // (I/Os are not cut), norandommap or not.
  bool random_generator_lfsr = false;
  // fio's job grouping and files (JobFiles.h): a section with stonewall
  // starts when every section before it has ended; one without starts
  // together with the ones before it, back to the last stonewall.
  bool stonewall = false;
  std::string filename;   // fio's: several files separated by ':'
  std::string directory;  // part of a file's identity only
  std::uint32_t nrfiles = 1;
  std::uint64_t filesize = 0;  // 0: size / nrfiles
  // fio's verify (bench/lab/VerifyOracle.h): "" = off, else the method fio
  // would check with (every method compares every byte in tierlab).
  std::string verify;
  bool do_verify = true;      // a writing job reads back what it wrote
  bool verify_fatal = false;  // accepted; a read is checked up to its first bad block
  // fio's verify_pattern (FioPattern.h) as written, "" for none: what a
  // verifying job's writes carry; verify_interval: where fio's headers (and
  // tierlab's) start in a write, 0 for fio's default (verify_interval_bytes).
  std::string verify_pattern;
  std::uint64_t verify_interval = 0;
  // fio's verify_backlog: read back verify_backlog_batch (0: the backlog) of
  // a job's writes whenever this many wait (0: all after the writes).
  std::uint32_t verify_backlog = 0;
  std::uint32_t verify_backlog_batch = 0;
  // fio's verify_write_sequence (after fio 3.33): 0 leaves unchecked the
  // blocks another write was landing on while they were read.
  bool verify_write_sequence = true;
  // fio's continue_on_error / ignore_error (ContinueOnError.h): by default
  // a job ends at its first error, as fio's.
  ContinueOnError continue_on_error;
  // What the writes carry (WriteData.h): fio's dedupe_*, buffer_compress_*,
  // buffer_pattern, zero_buffers.
  WriteDataSpec write_data;
  // fio's I/O priorities (IoPriority.h): the job's and cmdprio's per I/O,
  // and log_prio.
  IoPriorities priorities;
  // fio's atomic: writes with torn-write protection (RWF_ATOMIC).
  bool atomic = false;
  // fio's latency_target (bench/lab/LatencyTarget.h): 0: off. Times in ns.
  Nanos latency_target = 0;
  Nanos latency_window = 0;
  double latency_percentile = 100;
  bool latency_run = false;
  // fio's fill_device: a write's ENOSPC ends the job without an error (its
  // size, unless given, is the rest of the volume or file already).
  bool fill_device = false;
  // fio's reporting groups: new_group (as stonewall) starts a groupid.
  bool new_group = false;
  // fio's wait_for: the section starts when the one of this name, before
  // it, has ended ("": no wait).
  std::string wait_for;
  // fio's exitall (set by any job, it holds for the whole run, as in fio)
  // and what a job's end then terminates.
  bool exitall = false;
  ExitWhat exit_what = ExitWhat::kGroup;
  // fio's flow (bench/lab/FlowControl.h): weight 0 (none) .. 1000.
  std::uint32_t flow = 0;
  std::uint32_t flow_id = 0;
  Nanos flow_sleep = 0;
  // fio's steady state: the section stops once it is attained.
  SteadyStateSpec ss;
  // fio's io_submit_mode=offload: submission by other threads, same I/Os.
  bool io_submit_offload = false;
  // fio's logs (bench/lab/FioLogs.h): the NAME prefix, "" for the job's
  // name; unset: no log. Output only: they change nothing the volume sees.
  std::optional<std::string> write_bw_log, write_iops_log, write_lat_log;
  std::uint32_t log_avg_msec = 0;  // 0: an entry per I/O
  bool log_offset = false;
  // tierlab's phases before the timed run (bench/lab/Preparation.h,
  // FunctionalWarmup.h). precondition_bytes: random's SIZE, 0 = the region.
  Precondition precondition = Precondition::kNone;
  std::uint64_t precondition_bytes = 0;
  bool warmup_fast = false;
  // ss=snia: end the job when the rounds stop meeting the criterion during
  // the measured window (fio users ask for this: fio #1112).
  bool ss_leave_stop = false;

  bool operator==(const Profile&) const = default;

  bool is_random() const {
    return rw == RwMode::kRandRead || rw == RwMode::kRandWrite || rw == RwMode::kRandRw ||
           rw == RwMode::kRandTrim || rw == RwMode::kRandTrimWrite;
  }
  bool is_mixed() const { return rw == RwMode::kReadWrite || rw == RwMode::kRandRw; }
  bool is_trimwrite() const { return rw == RwMode::kTrimWrite || rw == RwMode::kRandTrimWrite; }
  // Whether the job issues I/Os of that kind (reads, writes, trims).
  bool does(IoOp op) const;
  // Share of reads in % among reads and writes (100 for read-only modes, 0
  // for write-only and trim modes).
  std::uint32_t read_percent() const;
  // Block size of a fixed-size I/O in that direction (bssplit aside); the
  // smallest of the direction's bsrange.
  std::uint64_t bs_for(IoOp op) const {
    if (op == IoOp::kDiscard && trim_bs) return *trim_bs;
    return op != IoOp::kRead && write_bs ? *write_bs : bs;
  }
  // bssplit of that direction (empty: none).
  const std::vector<BsSplitEntry>& bssplit_for(IoOp op) const {
    if (op == IoOp::kDiscard && bssplit_trim) return *bssplit_trim;
    return op != IoOp::kRead && bssplit_write ? *bssplit_write : bssplit;
  }
  // Largest I/O of that direction.
  std::uint64_t max_bs_for(IoOp op) const;
  // Over the directions the job does.
  std::uint64_t min_bs() const;
  std::uint64_t max_bs() const;
  // fio turns its random map off when ba is set and differs from any
  // direction's smallest size ("Any use of blockalign= turns off
  // randommap"), whether the job does that direction or not.
  bool ba_turns_off_random_map() const;
  // The rate caps that apply to the job (0 = none); mixed jobs have one.
  std::uint64_t effective_rate_iops() const;
  std::uint64_t effective_rate() const;  // bytes/s
  // The job's open-loop rate in bytes/s, fio's td->rate_bps: `rate`, else
  // `rate_iops` I/Os of the smallest size (init.c's __setup_rate), so a
  // job drawing larger sizes issues fewer I/Os a second; 0 = closed loop.
  std::uint64_t rate_bps() const;
  // fio's iodepth_* with its defaults resolved.
  std::uint32_t queue_low() const {
    return iodepth_low == 0 || iodepth_low > iodepth ? iodepth : iodepth_low;
  }
  std::uint32_t reap_min() const { return iodepth_batch_complete_min; }
  std::uint32_t reap_max() const {
    return iodepth_batch_complete_max < iodepth_batch_complete_min ? iodepth_batch_complete_min
                                                                   : iodepth_batch_complete_max;
  }
  // fio's verify_interval after its fixups: within the job's smallest write
  // (and read, for a job that reads), dividing its write sizes, else their gcd.
  std::uint64_t verify_interval_bytes() const;
  // Whether completions are reaped in batches (not one slot at a time).
  bool batched_reaping() const { return queue_low() < iodepth || reap_min() > 1 || reap_max() > 1; }
};

// split_size: the bytes of each job's part of the section's size (size, or
// volume - offset without one, over numjobs), rounded down to `align`.
std::uint64_t SplitSizePart(const Profile& p, std::uint64_t volume_bytes, std::uint64_t align);

std::string_view ToString(RwMode rw);
// "iops_slope:0.01%", "lat:500us", "bw:10M": the criterion as the option
// reads it back.
std::string SteadyStateCriterion(const SteadyStateSpec& s);
// "none", "fill", "random", "random:8g": the precondition as the option reads.
std::string PreconditionString(const Profile& p);
// "random", "zipf:1.2", "zoned:60/10:40/90"...
std::string RandomDistributionString(const Profile& p);

// Parses a profile object. `source_name` prefixes every error:
// "job.json: rwmixread: must be 0..100, got 150". Unknown keys are errors
// that list the valid ones; ignored fio options are accepted. Exit code 2.
Expected<Profile> ParseProfileJson(const nlohmann::json& j, std::string_view source_name);

// The full effective profile; ParseProfileJson(ToJson(p)) == p.
nlohmann::json ToJson(const Profile& p);

// JSON merge patch on ToJson(p), re-parsed and validated ("null" removes a
// key, i.e. restores its default).
Expected<Profile> ApplyProfilePatch(const Profile& p, const nlohmann::json& patch,
                                    std::string_view source_name);
// One field: `path` is a key ("rwmixread"; "/rwmixread" also accepted).
Expected<void> SetProfileField(Profile& p, std::string_view path, const nlohmann::json& value);

// Lower-level entry used by both parsers: sets option `key` from its text
// form. Errors are "key: reason" (no file prefix). Unknown key: the message
// starts with "unknown option". `kb_base` is 1024 or 1000.
enum class OptionResult : std::uint8_t { kApplied, kIgnored, kUnknown };
Expected<OptionResult> SetProfileOption(Profile& p, std::string_view key, std::string_view value,
                                        bool has_value, int kb_base);
// Checks that need several fields (offset% + size% <= 100...). "field: reason".
Expected<void> ValidateProfile(const Profile& p);

// Every key with its type, default, unit and meaning (docs/CONFIG.md).
std::vector<FieldDoc> ProfileFieldDocs();

// Names, for error messages and documentation.
const std::vector<std::string_view>& SupportedOptionNames();
const std::vector<std::string_view>& IgnoredOptionNames();
// Why tierlab refuses a fio option it knows of ("" for the others).
std::string_view RefusalReason(std::string_view key);

}  // namespace tierlab
