#pragma once
// The I/O stream of one fio-style job: which op, where, how long.
//
// A runner creates numjobs generators (job_index 0..numjobs-1) for a
// Profile, keeps iodepth I/Os in flight per job, and asks Next() for each new
// I/O. The generator only decides *what* to issue; timing (ramp, runtime,
// rate, thinktime) is the runner's, from the accessors below.
//
// Semantics (fio's, differences documented in BlockDistributions.h):
// - Region: job j covers [offset + j*offset_increment, + size). As in fio,
//   every job covers the same region unless offset_increment is set. size
//   defaults to the rest of the volume. Percentages are of the volume, rounded
//   down to the block alignment (ba). With split_size each job's size and
//   offset_increment are its part of size (SplitSizePart): the jobs tile it.
// - ba (block alignment of random offsets) = the smallest block size, as
//   fio's default; random blocks are [0, region / ba). A random I/O that
//   would run past the region end draws its size again until it fits (fio's
//   get_next_buflen); where even the smallest does not (ba smaller than it)
//   it moves back to the last aligned offset that fits.
// - Op: reads with probability rwmixread% for rw/randrw (per I/O, fio's
//   rand_between(1,100) <= rwmixread); trims for trim modes; trimwrite
//   trims when the last write started where the last trim did, else writes
//   (fio's set_rw_ddir); randtrimwrite writes what each trim covered. After
//   every fsync/fdatasync writes a flush (kFlush, no offset or length) takes
//   the place of the next I/O, and again after every other I/O until the
//   next write, as fio's get_rw_ddir.
// - Length: bs_for(op), a bsrange draw (fio's get_next_buflen), or a bssplit
//   entry chosen by its %.
// - Offset: sequential modes continue after the previous I/O of the same
//   direction (fio's last_pos per direction), plus rw_seq_add ("rw=read:4k"
//   leaves 4k holes; a negative one goes backwards and wraps to the region
//   end, as fio). Near the region end a size that fits is drawn (bsrange,
//   bssplit); a fixed size runs past it, up to the volume's end, as fio's.
//   An I/O that starts at or past the region end (or that no size fits)
//   wraps to the region start and is flagged `wrapped`: the end of a pass,
//   where fio ends a job that is not time based. Random modes pick a random block with
//   probability percentage_random%, else continue sequentially after the
//   previous I/O of that direction — fio's percentage_random and vdbench's
//   seekpct; with "rw=randread:N" only every Nth I/O (the 1st, N+1th...) may
//   pick a random block, the others continue (or, rw_sequencer=identical,
//   repeat the last offset of that direction).
// - Random map (fio's, unless norandommap; uniform random_distribution
//   only): every random pick marks the blocks it covers, and is cut short
//   before the first block already covered; a pick that lands on a covered
//   block takes the next uncovered one. Once all are covered the map starts
//   afresh and that I/O is flagged `wrapped`, the end of a pass. So each
//   pass touches every block once, as fio's. The sequential I/Os of a mixed
//   job (percentage_random, rw=randread:N) neither mark nor are cut, as in
//   fio.
// - Randomness: each decision (op, length, random-or-sequential, block) has
//   its own Xoshiro256** stream derived from (randseed, job_index, decision),
//   so changing bssplit does not change the op sequence. Same inputs → same
//   sequence, on any machine.
//
// Next() never allocates and costs a few ns for uniform random I/O. A
// generator is used by one thread at a time; it is movable and copyable.

#include <array>
#include <cstdint>
#include <vector>

#include "bench/workload/BlockDistributions.h"
#include "bench/workload/Profile.h"
#include "bench/workload/Random.h"
#include "bench/workload/RandomMap.h"
#include "tiering/core/Expected.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

struct NextIo {
  IoOp op = IoOp::kRead;
  std::uint64_t offset = 0;  // bytes, multiple of the device alignment
  std::uint64_t length = 0;  // bytes, multiple of the device alignment
  bool wrapped = false;      // the first I/O of a pass: a sequence wrapped, or a pass restarted
};

// fio's job limits (io_bytes_exceeded, exceeds_number_ios): `per_loop`
// bytes or I/Os times loops, twice that for trimwrite (its trims and writes
// both count); 0 (none) for a time based job.
std::uint64_t FioJobLimit(const Profile& profile, std::uint64_t per_loop);

class WorkloadGenerator {
 public:
  // The random maps of a section's jobs together may take this much (1 GiB:
  // 8 Gi blocks, a 32 TiB region of 4 KiB blocks); more is refused, naming
  // norandommap, rather than allocated.
  static constexpr std::uint64_t kMaxRandomMapBytes = 1ULL << 30;

  // `volume_bytes`: the device size. `alignment`: its logical block size;
  // every block size and byte offset of the profile must be a multiple of it.
  // Errors (exit code 2) name the profile and the field:
  // "profile '4k-randread': size: job 3 region [..) ends beyond the volume".
  static Expected<WorkloadGenerator> Create(const Profile& profile, std::uint64_t volume_bytes,
                                            std::uint32_t alignment, std::uint32_t job_index);

  NextIo Next();
  // fio's next pass (libfio.c's clear_io_state, with fio's default
  // randrepeat=1): the streams start again as `first` was created, so the
  // pass draws the offsets, sizes and directions of the first again; the
  // count of writes that paces fsync goes on, as fio's.
  void RestartAs(const WorkloadGenerator& first) {
    const std::uint64_t writes = writes_;
    const Xoshiro256 block_rng = block_rng_;
    *this = first;
    writes_ = writes;
    // fio's zipf, pareto and normal draws come from the file's own state
    // (f->zipf, f->gauss), which clear_io_state does not re-seed: their
    // offsets go on from pass to pass (fio 3.33, loops=4).
    if (dist_ == RandomDistribution::kZipf || dist_ == RandomDistribution::kPareto ||
        dist_ == RandomDistribution::kNormal) {
      block_rng_ = block_rng;
    }
  }

  // Fields the runner drives the job with.
  const Profile& profile() const { return profile_; }
  std::uint32_t job_index() const { return job_; }
  std::uint32_t iodepth() const { return profile_.iodepth; }
  std::uint32_t numjobs() const { return profile_.numjobs; }
  Nanos ramp_time() const { return profile_.ramp_time; }
  Nanos runtime() const { return profile_.runtime; }  // 0: no time limit
  Nanos startdelay() const { return profile_.startdelay; }
  // fio's end-of-job conditions (backend.c's io_bytes_exceeded and
  // keep_running), none of which applies to a time_based job:
  // - bytes: io_size (default: the region's size) x loops (x 2 for
  //   trimwrite, whose trims and writes count), ramp included;
  // - I/Os: number_ios x loops (0: no limit);
  // - passes: without io_size, the loops-th wrapped sequential continuation
  //   (NextIo::wrapped) ends the job, as fio ends a pass at the region end.
  std::uint64_t io_bytes_limit() const;
  std::uint64_t io_count_limit() const;
  bool ends_at_pass() const { return !profile_.time_based && !profile_.has_io_size; }
  // fio's keep_running at the end of a pass, `passes` passes and `done`
  // bytes issued (a trimwrite job's trims and writes together): the loops
  // first, then, with io_size, more while less than io_size is done by at
  // least the largest block size. A pass can end short of the region
  // (holes, a wrap), so this is decided on the bytes done.
  bool AnotherPass(std::uint32_t passes, std::uint64_t done) const {
    if (profile_.time_based || passes < profile_.loops) return true;
    if (!profile_.has_io_size) return false;
    return done < profile_.io_size && profile_.io_size - done >= fio_max_bs_;
  }
  std::uint32_t loops() const { return profile_.time_based ? 1 : profile_.loops; }
  std::uint64_t region_begin() const { return begin_; }
  std::uint64_t region_end() const { return end_; }
  std::uint64_t block_alignment() const { return ba_; }
  std::uint64_t block_count() const { return nblocks_; }
  // Whether the job keeps fio's random map (each pass covers a block once;
  // an LFSR picks each once but fio keeps no map for it).
  bool keeps_random_map() const { return keep_map_ && !lfsr_; }

 private:
  WorkloadGenerator() = default;
  static bool KeepsRandomMap(const Profile& profile, const WorkloadGenerator& g);
  std::uint64_t PickBlock();
  std::uint64_t PickLength(int dir);
  std::uint64_t PickLengthWithin(int dir, std::uint64_t room);
  bool SyncDue() const;

  Profile profile_;
  std::uint32_t job_ = 0;
  std::uint64_t begin_ = 0, end_ = 0, ba_ = 1, nblocks_ = 1;
  std::uint64_t fio_max_bs_ = 4096;  // fio's td_max_bs, of all three directions
  std::uint32_t read_percent_ = 100;
  std::uint32_t random_percent_ = 0;             // 0 for sequential modes
  std::uint64_t bs_[3] = {4096, 4096, 4096};     // read, write, trim (bsrange: smallest)
  std::uint64_t bs_hi_[3] = {4096, 4096, 4096};  // bsrange: largest
  std::uint32_t seq_nr_ = 1;                     // rw=rand*:N
  std::uint32_t seq_count_ = 0;                  // I/Os since the last random pick, mod seq_nr_
  std::int64_t seq_add_ = 0;                     // rw=read:N
  bool identical_ = false;                       // rw_sequencer=identical
  std::uint64_t last_start_[3] = {0, 0, 0};
  bool trims_ = false;          // rw=trim, randtrim
  bool trimwrite_ = false;      // rw=trimwrite
  bool randtrimwrite_ = false;  // rw=randtrimwrite
  // trimwrite: where the last trim [0] and write [1] started (fio's
  // last_start; equal before either).
  std::uint64_t tw_last_[2] = {UINT64_MAX, UINT64_MAX};
  bool tw_pending_write_ = false;  // randtrimwrite: the next I/O writes the last trim
  std::uint64_t tw_trim_length_ = 0;
  std::uint32_t fsync_ = 0, fdatasync_ = 0;  // 0 for jobs that do not write
  std::uint64_t writes_ = 0;                 // writes drawn so far
  bool last_was_sync_ = false;
  // bssplit, per direction: 100 slots, each an entry's size rounded as fio
  // (below) and as written (fio tests the fit on it), entries in fio's order.
  std::vector<std::uint64_t> bs_by_percent_[3];
  std::vector<std::uint64_t> bs_written_by_percent_[3];
  std::uint64_t cursor_[3] = {0, 0, 0};  // next sequential offset: read, write, trim
  Xoshiro256 op_rng_, bs_rng_, seq_rng_, block_rng_;
  RandomDistribution dist_ = RandomDistribution::kRandom;
  ZipfSampler zipf_;
  ParetoSampler pareto_;
  NormalSampler normal_;
  ZonedSampler zoned_;
  BlockPermutation scatter_;
  bool scatter_enabled_ = false;
  // fio's random map (uniform random jobs without norandommap): blocks of
  // ba_, each covered once per pass; and per direction the smallest length,
  // to which an I/O over a covered block or the region's end is cut.
  bool keep_map_ = false;
  bool lfsr_ = false;  // random_generator=lfsr: the map marks picks only
  RandomMap map_;
  // With the map: the next kDrawsAhead uniform draws, taken early so that
  // their map words are fetched meanwhile (the same draws in the same
  // order; a map over a large region costs a DRAM miss a pick otherwise).
  static constexpr std::size_t kDrawsAhead = 16;
  std::array<std::uint64_t, kDrawsAhead> drawn_ahead_{};
  std::size_t draw_at_ = 0;
  std::uint64_t min_len_[3] = {4096, 4096, 4096};
  std::uint64_t max_len_[3] = {4096, 4096, 4096};
  // The volume's (or the file's) end: a sequential I/O of a fixed size may
  // run past end_ up to it.
  std::uint64_t limit_ = 0;
};

}  // namespace tierlab
