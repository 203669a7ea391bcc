#include "bench/workload/WorkloadGenerator.h"

#include <algorithm>
#include <string>
#include <utility>

namespace tierlab {
namespace {

enum Stream : std::uint64_t { kOpStream = 1, kBsStream, kSeqStream, kBlockStream };
// The scatter permutation is keyed by randseed alone: one hot set per profile.
constexpr std::uint64_t kScatterKey = 0x5ca77e5;

// fio's td_min_bs and td_max_bs: the smallest and largest block size of
// any direction, whether the job does it or not (start offsets and
// percentage sizes are rounded to the smallest; a job with less than the
// largest left of its io_size starts no other pass).
std::pair<std::uint64_t, std::uint64_t> FioBsRange(const Profile& p) {
  std::uint64_t lo = UINT64_MAX, hi = 0;
  auto add = [&](std::uint64_t lo_bs, std::uint64_t hi_bs) {
    lo = std::min(lo, lo_bs);
    hi = std::max(hi, hi_bs);
  };
  for (IoOp op : {IoOp::kRead, IoOp::kWrite, IoOp::kDiscard}) {
    if (p.bssplit.empty()) {
      add(p.bs_for(op), p.max_bs_for(op));
    } else {
      for (const auto& e : p.bssplit_for(op)) add(e.bs, e.bs);
    }
  }
  return {lo, hi};
}

}  // namespace

Expected<WorkloadGenerator> WorkloadGenerator::Create(const Profile& profile,
                                                      std::uint64_t volume_bytes,
                                                      std::uint32_t alignment,
                                                      std::uint32_t job_index) {
  const std::string who = "profile '" + profile.name + "': ";
  auto fail = [&](const std::string& m) { return MakeError(who + m); };
  if (auto v = ValidateProfile(profile); !v) return fail(v.error().message);
  if (alignment == 0) return fail("device alignment must be > 0");
  if (volume_bytes < alignment)
    return fail("volume of " + std::to_string(volume_bytes) + " bytes is too small");
  if (job_index >= profile.numjobs) {
    return fail("job index " + std::to_string(job_index) + " >= numjobs " +
                std::to_string(profile.numjobs));
  }
  auto check_bs = [&](std::uint64_t bs, const char* field) -> Expected<void> {
    if (bs % alignment != 0) {
      return fail(std::string(field) + ": " + std::to_string(bs) +
                  " is not a multiple of the device's " + std::to_string(alignment) +
                  "-byte blocks");
    }
    return {};
  };
  if (profile.bssplit.empty()) {
    for (IoOp op : {IoOp::kRead, IoOp::kWrite, IoOp::kDiscard}) {
      if (auto r = check_bs(profile.bs_for(op), "bs"); !r) return r.error();
      if (auto r = check_bs(profile.max_bs_for(op), "bsrange"); !r) return r.error();
    }
  }
  if (profile.ba != 0) {
    if (auto r = check_bs(profile.ba, "ba"); !r) return r.error();
  }
  const std::uint64_t add_mag = profile.rw_seq_add < 0
                                    ? -static_cast<std::uint64_t>(profile.rw_seq_add)
                                    : static_cast<std::uint64_t>(profile.rw_seq_add);
  if (add_mag % alignment != 0) {
    return fail("rw: offset modifier " + std::to_string(profile.rw_seq_add) +
                " is not a multiple of the device's " + std::to_string(alignment) + "-byte blocks");
  }
  for (IoOp op : {IoOp::kRead, IoOp::kWrite, IoOp::kDiscard}) {
    for (const auto& e : profile.bssplit_for(op)) {
      if (auto r = check_bs(e.bs, "bssplit"); !r) return r.error();
    }
  }

  WorkloadGenerator g;
  g.profile_ = profile;
  g.job_ = job_index;
  g.ba_ = profile.ba != 0 ? profile.ba : profile.min_bs();
  g.fio_max_bs_ = FioBsRange(profile).second;
  const std::uint64_t max_bs = profile.max_bs();

  // fio's get_start_offset: where offset or offset_increment is a
  // percentage, the job's start is rounded up to the smallest block size
  // (fio's td_min_bs, over all three directions); bytes are taken as given.
  const bool percent_start = profile.offset.is_percent || profile.offset_increment.is_percent;
  const std::uint64_t base = profile.offset.Resolve(volume_bytes, 0);
  // split_size: each job's part of the section's size, one after another.
  const std::uint64_t part = profile.split_size ? SplitSizePart(profile, volume_bytes, g.ba_) : 0;
  const std::uint64_t inc =
      profile.split_size ? part : profile.offset_increment.Resolve(volume_bytes, 0);
  if (!percent_start && base % alignment != 0)
    return fail("offset: " + std::to_string(base) + " is not a multiple of " +
                std::to_string(alignment));
  if (!percent_start && inc % alignment != 0) {
    return fail("offset_increment: " + std::to_string(inc) + " is not a multiple of " +
                std::to_string(alignment));
  }
  unsigned __int128 begin = static_cast<unsigned __int128>(inc) * job_index + base;
  if (percent_start) {
    const std::uint64_t a = std::max<std::uint64_t>(FioBsRange(profile).first, alignment);
    begin = (begin + a - 1) / a * a;
  }
  if (begin >= volume_bytes) {
    return fail("offset: job " + std::to_string(job_index) +
                " starts at or beyond the end of the volume (" + std::to_string(volume_bytes) +
                " bytes)");
  }
  g.begin_ = static_cast<std::uint64_t>(begin);
  std::uint64_t size = profile.split_size ? part
                       : profile.has_size ? profile.size.Resolve(volume_bytes, g.ba_)
                                          : volume_bytes - g.begin_;
  if (!profile.split_size && profile.has_size && profile.size.is_percent) {
    // fio: a percentage of the file, cut at its end, in whole blocks of the
    // smallest size (all of what is left at 100%).
    const std::uint64_t left = volume_bytes - g.begin_;
    size = std::min(profile.size.Resolve(volume_bytes, 0), left);
    if (profile.size.percent < 100) size -= size % FioBsRange(profile).first;
  }
  size -= size % alignment;
  if (profile.split_size && size < max_bs) {
    return fail("size: each of the " + std::to_string(profile.numjobs) +
                " jobs' parts (split_size) is " + std::to_string(size) +
                " bytes, smaller than the block size " + std::to_string(max_bs));
  }
  if (size < max_bs) {
    return fail("size: region of " + std::to_string(size) +
                " bytes is smaller than the block size " + std::to_string(max_bs));
  }
  if (static_cast<unsigned __int128>(g.begin_) + size > volume_bytes) {
    return fail("size: job " + std::to_string(job_index) + " region [" + std::to_string(g.begin_) +
                ", " + std::to_string(static_cast<std::uint64_t>(g.begin_ + size)) +
                ") ends beyond the volume (" + std::to_string(volume_bytes) + " bytes)");
  }
  g.end_ = g.begin_ + size;
  g.limit_ = volume_bytes;
  g.nblocks_ = std::max<std::uint64_t>(size / g.ba_, 1);
  for (int d = 0; d < 3; ++d) g.cursor_[d] = g.last_start_[d] = g.begin_;
  if (add_mag >= size) {
    return fail("rw: offset modifier " + std::to_string(profile.rw_seq_add) +
                " is not smaller than the region of " + std::to_string(size) + " bytes");
  }

  g.read_percent_ = profile.read_percent();
  g.random_percent_ = profile.is_random() ? profile.percentage_random : 0;
  const IoOp ops[3] = {IoOp::kRead, IoOp::kWrite, IoOp::kDiscard};
  for (int d = 0; d < 3; ++d) {
    g.bs_[d] = profile.bs_for(ops[d]);
    g.bs_hi_[d] = profile.max_bs_for(ops[d]);
  }
  g.trims_ = profile.rw == RwMode::kTrim || profile.rw == RwMode::kRandTrim;
  g.trimwrite_ = profile.rw == RwMode::kTrimWrite;
  g.randtrimwrite_ = profile.rw == RwMode::kRandTrimWrite;
  // fio's set_rw_ddir turns the flush that get_rw_ddir chose for a
  // trimwrite job into its next trim or write: such a job never flushes.
  const bool flushes = profile.does(IoOp::kWrite) && !profile.is_trimwrite();
  g.fsync_ = flushes ? profile.fsync : 0;
  g.fdatasync_ = flushes ? profile.fdatasync : 0;
  g.seq_nr_ = profile.is_random() ? profile.rw_seq_nr : 1;
  g.seq_add_ = profile.is_random() ? 0 : profile.rw_seq_add;
  g.identical_ = profile.rw_sequencer_identical;
  for (int d = 0; d < 3 && !profile.bssplit.empty(); ++d) {
    const std::vector<BsSplitEntry>& split = profile.bssplit_for(ops[d]);
    // fio sorts the entries by percentage (options.c): a size that does
    // not fit before the region's end falls to the next entry in that order
    // (PickLengthWithin).
    std::vector<BsSplitEntry> sorted = split;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.percent < b.percent; });
    std::vector<std::uint64_t>& by_percent = g.bs_by_percent_[d];
    std::vector<std::uint64_t>& written = g.bs_written_by_percent_[d];
    by_percent.reserve(100);
    written.reserve(100);
    // fio's get_next_buflen rounds a drawn size down to a multiple of the
    // split's smallest (tierlab has no bs_unaligned): 4k/50:6k/50 is all
    // 4k, 6k/50:16k/50 is 6k and 12k.
    std::uint64_t min_bs = split.front().bs;
    for (const auto& e : split) min_bs = std::min(min_bs, e.bs);
    auto rounded = [&](std::uint64_t bs) { return bs - bs % min_bs; };
    for (const auto& e : sorted) {
      by_percent.insert(by_percent.end(), e.percent, rounded(e.bs));
      written.insert(written.end(), e.percent, e.bs);
    }
    by_percent.resize(100, rounded(sorted.back().bs));
    written.resize(100, sorted.back().bs);
  }

  const std::uint64_t seed = profile.randseed;
  g.op_rng_.Seed(DeriveSeed(seed, job_index, kOpStream));
  g.bs_rng_.Seed(DeriveSeed(seed, job_index, kBsStream));
  g.seq_rng_.Seed(DeriveSeed(seed, job_index, kSeqStream));
  g.block_rng_.Seed(DeriveSeed(seed, job_index, kBlockStream));

  g.dist_ = profile.random_distribution;
  switch (g.dist_) {
    case RandomDistribution::kRandom: break;
    case RandomDistribution::kZipf: g.zipf_ = ZipfSampler(g.nblocks_, profile.zipf_theta); break;
    case RandomDistribution::kPareto:
      g.pareto_ = ParetoSampler(g.nblocks_, profile.pareto_h);
      break;
    case RandomDistribution::kNormal:
      g.normal_ = NormalSampler(g.nblocks_, profile.normal_dev);
      break;
    case RandomDistribution::kZoned: g.zoned_ = ZonedSampler(g.nblocks_, profile.zones); break;
  }
  for (int d = 0; d < 3; ++d) {
    const std::vector<std::uint64_t>& split = g.bs_by_percent_[d];
    g.min_len_[d] = split.empty() ? g.bs_[d] : *std::min_element(split.begin(), split.end());
    g.max_len_[d] = split.empty() ? g.bs_hi_[d] : *std::max_element(split.begin(), split.end());
  }
  g.keep_map_ = KeepsRandomMap(profile, g);
  g.lfsr_ = profile.random_generator_lfsr;
  if (g.keep_map_) {
    const unsigned __int128 bytes =
        static_cast<unsigned __int128>(RandomMap::BytesFor(g.nblocks_)) * profile.numjobs;
    if (bytes > kMaxRandomMapBytes) {
      // lfsr keeps the map too (tierlab's stand-in for fio's LFSR), so the
      // way out differs.
      const bool lfsr = g.lfsr_;
      const std::string what = lfsr ? "random_generator: tierlab's lfsr keeps a map of the "
                                      "blocks picked, which for "
                                    : "norandommap: fio's random map of ";
      const std::string advice = lfsr ? "leave random_generator unset and set norandommap=1 to "
                                        "draw offsets with repeats"
                                      : "set norandommap=1 to draw offsets with repeats, as fio "
                                        "advises for large regions";
      return fail(what + std::to_string(profile.numjobs) + " job(s) over " +
                  std::to_string(g.nblocks_) + " blocks each would take " +
                  std::to_string(static_cast<std::uint64_t>(bytes >> 20)) + " MiB (at most " +
                  std::to_string(kMaxRandomMapBytes >> 20) + "); " + advice);
    }
    g.map_ = RandomMap(g.nblocks_);
    for (std::uint64_t& b : g.drawn_ahead_) b = g.block_rng_.Below(g.nblocks_);
  }
  g.scatter_enabled_ = profile.random_scatter && g.dist_ != RandomDistribution::kRandom &&
                       g.dist_ != RandomDistribution::kZoned;
  if (g.scatter_enabled_) g.scatter_ = BlockPermutation(g.nblocks_, DeriveSeed(seed, kScatterKey));
  return g;
}

bool WorkloadGenerator::KeepsRandomMap(const Profile& profile, const WorkloadGenerator& g) {
  // fio turns the map off for any distribution but the uniform one
  // (init.c's fixup_options sets norandommap).
  // With random_generator=lfsr fio keeps no map, but the LFSR still picks
  // every block once per pass: the map, marking one block a pick, does so.
  if (!profile.is_random() || g.dist_ != RandomDistribution::kRandom) return false;
  if (profile.norandommap && !profile.random_generator_lfsr) return false;
  // fio aligns each direction to its own smallest size and indexes the map
  // in it; any other alignment (ba) turns the map off ("Any use of
  // blockalign= turns off randommap"). tierlab aligns every direction to
  // the job's smallest size, so it keeps the map where each direction that
  // draws at random has that size, where the two agree.
  if (profile.ba_turns_off_random_map()) return false;
  const bool trims_at_random = g.trims_ || g.randtrimwrite_;
  const bool draws[3] = {!trims_at_random && g.read_percent_ > 0,
                         !trims_at_random && g.read_percent_ < 100, trims_at_random};
  for (int d = 0; d < 3; ++d) {
    if (draws[d] && g.min_len_[d] != g.ba_) return false;
  }
  return true;
}

std::uint64_t WorkloadGenerator::PickBlock() {
  std::uint64_t rank;
  switch (dist_) {
    case RandomDistribution::kRandom: {
      if (!keep_map_) return block_rng_.Below(nblocks_);
      std::uint64_t& slot = drawn_ahead_[draw_at_];
      draw_at_ = draw_at_ + 1 == kDrawsAhead ? 0 : draw_at_ + 1;
      const std::uint64_t block = slot;
      slot = block_rng_.Below(nblocks_);
      map_.Prefetch(slot);
      return block;
    }
    case RandomDistribution::kZipf: rank = zipf_.Sample(block_rng_); break;
    case RandomDistribution::kPareto: rank = pareto_.Sample(block_rng_); break;
    case RandomDistribution::kNormal: rank = normal_.Sample(block_rng_); break;
    case RandomDistribution::kZoned: return zoned_.Sample(block_rng_);
    default: return 0;
  }
  return scatter_enabled_ ? scatter_(rank) : rank;
}

bool WorkloadGenerator::SyncDue() const {
  if (last_was_sync_ || writes_ == 0) return false;
  return (fsync_ != 0 && writes_ % fsync_ == 0) || (fdatasync_ != 0 && writes_ % fdatasync_ == 0);
}

std::uint64_t WorkloadGenerator::PickLength(int dir) {
  if (!bs_by_percent_[dir].empty()) return bs_by_percent_[dir][bs_rng_.Below(100)];
  const std::uint64_t lo = bs_[dir], hi = bs_hi_[dir];
  if (hi == lo) return lo;
  // fio's get_next_buflen: min + a uniform draw below max, rounded down to a
  // multiple of min, capped at max.
  std::uint64_t len = lo + bs_rng_.Below(hi);
  len -= len % lo;
  return std::min(len, hi);
}

std::uint64_t WorkloadGenerator::PickLengthWithin(int dir, std::uint64_t room) {
  // fio's get_next_buflen where the smallest size fits in `room`: a bsrange
  // size is drawn until one fits; a bssplit draw whose size does not fit
  // takes the next entry (in fio's order) that does, and a draw left with
  // none is made again.
  if (room >= max_len_[dir]) return PickLength(dir);  // any size fits
  const std::vector<std::uint64_t>& rounded = bs_by_percent_[dir];
  if (rounded.empty()) {
    std::uint64_t len = PickLength(dir);
    while (len > room) len = PickLength(dir);
    return len;
  }
  const std::vector<std::uint64_t>& written = bs_written_by_percent_[dir];
  for (;;) {
    std::size_t i = bs_rng_.Below(100);
    while (i + 1 < written.size() && written[i] > room) ++i;
    if (rounded[i] <= room) return rounded[i];
  }
}

NextIo WorkloadGenerator::Next() {
  NextIo io;
  // fio's get_rw_ddir: after every fsync (fdatasync) writes, the next I/O
  // is a flush; it is repeated after any other I/O as long as no write has
  // been added since.
  if (SyncDue()) {
    last_was_sync_ = true;
    io.op = IoOp::kFlush;
    return io;
  }
  last_was_sync_ = false;
  if (trims_) {
    io.op = IoOp::kDiscard;
  } else if (trimwrite_) {
    // fio's set_rw_ddir: a trim when the last write started where the last
    // trim did (or neither was issued), else a write.
    io.op = tw_last_[0] == tw_last_[1] ? IoOp::kDiscard : IoOp::kWrite;
  } else if (randtrimwrite_) {
    io.op = tw_pending_write_ ? IoOp::kWrite : IoOp::kDiscard;
  } else if (read_percent_ >= 100) {
    io.op = IoOp::kRead;
  } else if (read_percent_ == 0) {
    io.op = IoOp::kWrite;
  } else {
    io.op = op_rng_.Below(100) < read_percent_ ? IoOp::kRead : IoOp::kWrite;
  }
  const int dir = io.op == IoOp::kRead ? 0 : io.op == IoOp::kWrite ? 1 : 2;
  if (io.op == IoOp::kWrite) ++writes_;
  // fio's rw=rand*:N: the 1st, N+1th... I/O may take a random offset.
  const bool may_seek = seq_count_ == 0;
  if (++seq_count_ == seq_nr_) seq_count_ = 0;
  if (randtrimwrite_ && io.op == IoOp::kWrite) {
    // fio's randtrimwrite: the write covers what the trim before it did.
    tw_pending_write_ = false;
    io.offset = last_start_[2];
    io.length = tw_trim_length_;
    cursor_[1] = io.offset + io.length;
    last_start_[1] = io.offset;
    return io;
  }
  const bool random = may_seek && (random_percent_ >= 100 ||
                                   (random_percent_ > 0 && seq_rng_.Below(100) < random_percent_));
  std::uint64_t off;
  std::uint64_t map_block = UINT64_MAX;  // the random pick's block (saves a division)
  if (random) {
    std::uint64_t block = PickBlock();
    if (keep_map_ && map_.Marked(block)) {
      // fio's axmap_next_free: the next block not yet covered; none left
      // ends the pass, and the next one starts with a fresh map.
      block = map_.NextFree(block);
      if (block == RandomMap::kNone) {
        map_.Clear();
        io.wrapped = true;
        block = PickBlock();
      }
    }
    off = begin_ + block * ba_;
    map_block = block;
    // fio's get_next_buflen: the size is drawn once the offset is known, to
    // fit before the region's end (the smallest does, where the block is
    // aligned to it); with a smaller alignment the I/O moves back.
    if (off + min_len_[dir] <= end_) {
      io.length = PickLengthWithin(dir, end_ - off);
    } else {
      io.length = PickLength(dir);
      off = begin_ + (end_ - io.length - begin_) / ba_ * ba_;
      map_block = UINT64_MAX;
    }
  } else if (identical_ && !may_seek) {
    io.length = PickLength(dir);
    off = last_start_[dir];
    if (off + io.length > end_) off = begin_ + (end_ - io.length - begin_) / ba_ * ba_;
  } else {
    off = cursor_[dir];
    if (seq_add_ != 0 && off != begin_) {
      // As fio: the modifier is added to every offset but a pass's first; a
      // position outside the region wraps to its start, or for a negative
      // modifier to its end plus the modifier.
      const auto size = static_cast<std::int64_t>(end_ - begin_);
      std::int64_t pos = static_cast<std::int64_t>(off - begin_) + seq_add_;
      if (pos < 0 || pos >= size) pos = seq_add_ > 0 ? size : size + seq_add_;
      off = begin_ + static_cast<std::uint64_t>(pos);
    }
    // As fio: while the smallest size fits before the region end, a size
    // that fits is drawn. A fixed size is not fitted (get_next_buflen):
    // the last I/O of a region that is not a multiple of it runs past the
    // region's end, up to the file's (fill_io_u's real_file_size), and the
    // job's bytes end the pass. Else the pass ends.
    if (off + min_len_[dir] <= end_) {
      io.length = PickLengthWithin(dir, end_ - off);
    } else if (off < end_ && min_len_[dir] == max_len_[dir] && off + min_len_[dir] <= limit_) {
      io.length = min_len_[dir];
    } else {
      io.length = PickLength(dir);
      off = begin_;
      // A trimwrite pass ends where its trims wrap; the writes follow them.
      io.wrapped = !trimwrite_ || dir == 2;
    }
  }
  if (keep_map_ && map_block != UINT64_MAX) {
    // fio's mark_random_map: the blocks a random pick covers, up to the
    // first one covered before, which cuts it short there. The sequential
    // I/Os of a mixed job (percentage_random, rw=randread:N) neither mark
    // nor are cut (get_next_block flags them IO_U_F_BUSY_OK). An LFSR
    // marks nothing but its pick.
    const std::uint64_t want = io.length == ba_ || lfsr_ ? 1 : (io.length + ba_ - 1) / ba_;
    const std::uint64_t marked = map_.MarkRun(map_block, want);
    if (marked != 0 && marked < want) io.length = marked * ba_;
  }
  cursor_[dir] = off + io.length;
  last_start_[dir] = off;
  io.offset = off;
  if (trimwrite_) tw_last_[dir == 2 ? 0 : 1] = off;
  if (randtrimwrite_) {
    tw_pending_write_ = true;
    tw_trim_length_ = io.length;
  }
  return io;
}

std::uint64_t FioJobLimit(const Profile& profile, std::uint64_t per_loop) {
  if (profile.time_based) return 0;
  const unsigned __int128 total =
      static_cast<unsigned __int128>(per_loop) * profile.loops * (profile.is_trimwrite() ? 2 : 1);
  return total > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(total);
}

std::uint64_t WorkloadGenerator::io_bytes_limit() const {
  return FioJobLimit(profile_, profile_.has_io_size ? profile_.io_size : end_ - begin_);
}

std::uint64_t WorkloadGenerator::io_count_limit() const {
  return FioJobLimit(profile_, profile_.number_ios);
}

}  // namespace tierlab
