#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "bench/workload/BlockDistributions.h"
#include "bench/workload/BuiltinProfiles.h"
#include "bench/workload/WorkloadGenerator.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

WorkloadGenerator Make(const Profile& p, std::uint64_t volume = kGiB, std::uint32_t align = 512,
                       std::uint32_t job = 0) {
  auto g = WorkloadGenerator::Create(p, volume, align, job);
  EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message);
  return std::move(*g);
}

Profile RandRead() {
  Profile p;
  p.rw = RwMode::kRandRead;
  return p;
}

TEST(WorkloadGeneratorTest, RwMixReadRatioWithinOnePercent) {
  for (std::uint32_t mix : {0u, 30u, 70u, 100u}) {
    Profile p;
    p.rw = RwMode::kRandRw;
    p.rwmixread = mix;
    auto g = Make(p);
    const int n = 200000;
    int reads = 0;
    for (int i = 0; i < n; ++i) reads += g.Next().op == IoOp::kRead;
    EXPECT_NEAR(100.0 * reads / n, mix, 1.0) << mix;
  }
  Profile w;
  w.rw = RwMode::kWrite;
  auto g = Make(w);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(g.Next().op, IoOp::kWrite);
}

// The size tests draw without fio's random map, which cuts an I/O short
// where a covered block begins (RandomMapCutsIosAtCoveredBlocks).
TEST(WorkloadGeneratorTest, BlockSizeSplitWithinOnePercent) {
  Profile p = RandRead();
  p.norandommap = true;
  p.bssplit = {{4096, 50}, {8192, 30}, {65536, 20}};
  auto g = Make(p);
  std::map<std::uint64_t, int> seen;
  const int n = 200000;
  for (int i = 0; i < n; ++i) ++seen[g.Next().length];
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_NEAR(100.0 * seen[4096] / n, 50, 1);
  EXPECT_NEAR(100.0 * seen[8192] / n, 30, 1);
  EXPECT_NEAR(100.0 * seen[65536] / n, 20, 1);
}

// fio rounds a split's sizes down to a multiple of its smallest: 4k/50:6k/50
// issues only 4k, 3k/50:7k/50 issues 3k and 6k.
TEST(WorkloadGeneratorTest, BlockSizeSplitRoundsToTheSmallestAsFio) {
  Profile p = RandRead();
  p.norandommap = true;
  p.bssplit = {{4096, 50}, {6144, 30}, {16384, 20}};
  auto g = Make(p);
  std::map<std::uint64_t, int> seen;
  for (int i = 0; i < 10000; ++i) ++seen[g.Next().length];
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NEAR(seen[4096] / 10000.0, 0.8, 0.02);
  EXPECT_NEAR(seen[16384] / 10000.0, 0.2, 0.02);
  p.bssplit = {{3072, 50}, {7168, 50}};
  auto h = Make(p);
  seen.clear();
  for (int i = 0; i < 1000; ++i) ++seen[h.Next().length];
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_GT(seen[3072], 400);
  EXPECT_GT(seen[6144], 400);
}

// fio's "reads,writes" bssplit (cmdprio-bssplit.fio's form): each direction
// draws from its own split.
TEST(WorkloadGeneratorTest, APerDirectionSplitDrawsEachDirectionFromItsOwn) {
  Profile p = RandRead();
  p.rw = RwMode::kRandRw;
  p.norandommap = true;
  p.bssplit = {{65536, 40}, {1 << 20, 60}};
  p.bssplit_write = std::vector<BsSplitEntry>{{1 << 20, 100}};
  auto g = Make(p);
  std::map<std::uint64_t, int> reads, writes;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const NextIo io = g.Next();
    ++(io.op == IoOp::kRead ? reads : writes)[io.length];
  }
  EXPECT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes.begin()->first, 1u << 20);
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_NEAR(100.0 * reads[65536] / (reads[65536] + reads[1 << 20]), 40, 1.5);
  EXPECT_EQ(p.min_bs(), 65536u);
  EXPECT_EQ(p.max_bs(), 1u << 20);
}

TEST(WorkloadGeneratorTest, RegionBoundsAndAlignmentRespected) {
  Profile p = RandRead();
  p.bssplit = {{4096, 50}, {12288, 25}, {131072, 25}};
  p.has_size = true;
  p.size = SizeSpec{0, 25, true};
  p.offset = SizeSpec{64 * 1024 * 1024, 0, false};
  p.offset_increment = SizeSpec{0, 10, true};
  p.numjobs = 4;
  p.percentage_random = 70;
  p.rw = RwMode::kRandRw;
  const std::uint64_t volume = 4 * kGiB;
  for (std::uint32_t job = 0; job < 4; ++job) {
    auto g = Make(p, volume, 4096, job);
    // fio's get_start_offset: offset + job x 10% of the volume, rounded up
    // to the smallest block size.
    const std::uint64_t start = (64ull << 20) + job * (volume / 10);
    EXPECT_EQ(g.region_begin(), (start + 4095) / 4096 * 4096);
    EXPECT_EQ(g.region_end() - g.region_begin(), volume / 4);
    for (int i = 0; i < 50000; ++i) {
      const NextIo io = g.Next();
      ASSERT_GE(io.offset, g.region_begin());
      ASSERT_LE(io.offset + io.length, g.region_end());
      ASSERT_EQ(io.offset % 4096, 0u);
      ASSERT_EQ(io.length % 4096, 0u);
    }
  }
  // Random blocks align to ba = the smallest block size, as fio.
  Profile q = RandRead();
  q.bs = 16384;
  auto g = Make(q, kGiB, 512);
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(g.Next().offset % 16384, 0u);
}

TEST(WorkloadGeneratorTest, SequentialStreamsStaySequentialPerJobAndDirection) {
  Profile p;
  p.rw = RwMode::kReadWrite;
  p.rwmixread = 50;
  p.bssplit = {{4096, 50}, {65536, 50}};
  p.has_size = true;
  p.size = SizeSpec{8 << 20, 0, false};  // small: exercises the wrap
  p.numjobs = 2;
  for (std::uint32_t job = 0; job < 2; ++job) {
    auto g = Make(p, kGiB, 4096, job);
    std::uint64_t next[2] = {g.region_begin(), g.region_begin()};
    int wraps = 0;
    for (int i = 0; i < 20000; ++i) {
      const NextIo io = g.Next();
      const int d = io.op == IoOp::kRead ? 0 : 1;
      if (io.offset != next[d]) {
        ASSERT_EQ(io.offset, g.region_begin())
            << "a sequential job may only jump back to the start";
        ASSERT_GT(next[d] + io.length, g.region_end());
        ++wraps;
      }
      next[d] = io.offset + io.length;
    }
    EXPECT_GT(wraps, 0);
  }
}

TEST(WorkloadGeneratorTest, PercentageRandomMixesSeekAndSequential) {
  Profile p = RandRead();
  p.percentage_random = 50;
  auto g = Make(p, 64 * kGiB);
  std::uint64_t prev_end = g.region_begin();
  int sequential = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const NextIo io = g.Next();
    sequential += io.offset == prev_end;
    prev_end = io.offset + io.length;
  }
  // 50% continue; a random pick lands on the next block with odds ~1/16M.
  EXPECT_NEAR(100.0 * sequential / n, 50, 1.0);
}

double TopShare(std::vector<std::uint64_t> counts, double fraction) {
  std::sort(counts.rbegin(), counts.rend());
  const auto k = static_cast<std::size_t>(fraction * static_cast<double>(counts.size()));
  double top = 0, all = 0;
  for (std::size_t i = 0; i < counts.size(); ++i)
    (i < k ? top : all) += static_cast<double>(counts[i]);
  return top / (top + all);
}

std::vector<std::uint64_t> BlockCounts(WorkloadGenerator& g, int samples) {
  std::vector<std::uint64_t> counts(g.block_count());
  for (int i = 0; i < samples; ++i)
    ++counts[(g.Next().offset - g.region_begin()) / g.block_alignment()];
  return counts;
}

// Expected share of the hottest 10% of blocks, analytically: the zipf mass
// of ranks 1..n/10, H(n/10, θ) / H(n, θ).
double ZipfTopShare(std::uint64_t n, double theta, double fraction) {
  double top = 0, all = 0;
  const auto k = static_cast<std::uint64_t>(fraction * static_cast<double>(n));
  for (std::uint64_t r = 1; r <= n; ++r) {
    const double w = std::pow(static_cast<double>(r), -theta);
    all += w;
    if (r <= k) top += w;
  }
  return top / all;
}

TEST(WorkloadGeneratorTest, ZipfTopTenPercentShareMatchesAnalytic) {
  const std::uint64_t blocks = 10000;
  for (double theta : {0.8, 1.2}) {
    Profile p = RandRead();
    p.random_distribution = RandomDistribution::kZipf;
    p.zipf_theta = theta;
    auto g = Make(p, blocks * 4096, 4096);
    ASSERT_EQ(g.block_count(), blocks);
    const double got = TopShare(BlockCounts(g, 2'000'000), 0.10);
    EXPECT_NEAR(got, ZipfTopShare(blocks, theta, 0.10), 0.01) << "theta " << theta;
  }
}

TEST(WorkloadGeneratorTest, ParetoFollowsFiosDefinition) {
  // fio: rank = (n-1) * u^(log h / log(1-h)), so P(rank < x·n) = x^(log(1-h)/log h):
  // pareto:0.2 sends 80% of I/Os to the hottest 20% of blocks.
  const std::uint64_t blocks = 10000;
  for (double h : {0.2, 0.1}) {
    Profile p = RandRead();
    p.random_distribution = RandomDistribution::kPareto;
    p.pareto_h = h;
    auto g = Make(p, blocks * 4096, 4096);
    const auto counts = BlockCounts(g, 2'000'000);
    EXPECT_NEAR(TopShare(counts, h), 1 - h, 0.01) << h;
    const double inv_power = std::log(1 - h) / std::log(h);
    EXPECT_NEAR(TopShare(counts, 0.10), std::pow(0.10, inv_power), 0.01) << h;
  }
}

TEST(WorkloadGeneratorTest, NormalAndZonedShapes) {
  const std::uint64_t blocks = 100000;
  Profile p = RandRead();
  p.random_distribution = RandomDistribution::kNormal;
  p.normal_dev = 10;         // σ = 10% of the region
  p.random_scatter = false;  // ranks are blocks: the bell is visible in place
  auto g = Make(p, blocks * 4096, 4096);
  int within = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double b = static_cast<double>(g.Next().offset / 4096);
    within += std::abs(b - blocks / 2.0) <= 0.10 * blocks;
  }
  EXPECT_NEAR(100.0 * within / n, 68.27, 1.0);

  Profile z = RandRead();
  z.random_distribution = RandomDistribution::kZoned;
  z.zones = {{60, 10}, {30, 20}, {10, 70}};
  auto gz = Make(z, blocks * 4096, 4096);
  int zone_hits[3] = {};
  for (int i = 0; i < n; ++i) {
    const std::uint64_t b = gz.Next().offset / 4096;
    ++zone_hits[b < blocks / 10 ? 0 : b < blocks * 3 / 10 ? 1 : 2];
  }
  EXPECT_NEAR(100.0 * zone_hits[0] / n, 60, 1);
  EXPECT_NEAR(100.0 * zone_hits[1] / n, 30, 1);
  EXPECT_NEAR(100.0 * zone_hits[2] / n, 10, 1);
}

TEST(WorkloadGeneratorTest, JobsShareOneHotSetButNotOneSequence) {
  Profile p = RandRead();
  p.random_distribution = RandomDistribution::kZipf;
  p.zipf_theta = 1.2;
  p.numjobs = 2;
  auto a = Make(p, 4096 * 10000, 4096, 0), b = Make(p, 4096 * 10000, 4096, 1);
  auto ca = BlockCounts(a, 200000), cb = BlockCounts(b, 200000);
  const auto hottest_a = std::max_element(ca.begin(), ca.end()) - ca.begin();
  const auto hottest_b = std::max_element(cb.begin(), cb.end()) - cb.begin();
  EXPECT_EQ(hottest_a, hottest_b);
  EXPECT_NE(ca, cb);
}

TEST(WorkloadGeneratorTest, SameSeedSameSequenceDifferentSeedDifferent) {
  auto p = FindBuiltinProfile("hcibench-4k-50rand-r70");
  ASSERT_TRUE(p.ok());
  p->random_distribution = RandomDistribution::kZipf;
  p->zipf_theta = 0.9;
  auto run = [&](std::uint64_t seed, std::uint32_t job) {
    Profile q = *p;
    q.randseed = seed;
    auto g = Make(q, 16 * kGiB, 4096, job);
    std::vector<std::uint64_t> v;
    for (int i = 0; i < 1000; ++i) {
      const NextIo io = g.Next();
      v.push_back(io.offset ^ (static_cast<std::uint64_t>(io.op) << 63) ^ io.length);
    }
    return v;
  };
  EXPECT_EQ(run(7, 0), run(7, 0));
  EXPECT_NE(run(7, 0), run(8, 0));
  EXPECT_NE(run(7, 0), run(7, 1));
}

TEST(WorkloadGeneratorTest, CreateRejectsImpossibleLayouts) {
  Profile p = RandRead();
  p.bs = 6144;
  auto g = WorkloadGenerator::Create(p, kGiB, 4096, 0);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message,
            "profile 'job': bs: 6144 is not a multiple of the device's 4096-byte blocks");

  Profile q = RandRead();
  q.numjobs = 4;
  q.has_size = true;
  q.size = SizeSpec{0, 30, true};
  q.offset_increment = SizeSpec{0, 30, true};
  EXPECT_TRUE(WorkloadGenerator::Create(q, kGiB, 4096, 2).ok());
  // A percentage size is cut at the volume's end, as fio cuts it at the
  // file's (filesetup.c); a size in bytes that does not fit is refused.
  g = WorkloadGenerator::Create(q, kGiB, 4096, 3);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->region_end(), kGiB);
  EXPECT_EQ(g->region_begin(), (kGiB * 9 / 10 + 4095) / 4096 * 4096);
  q.size = SizeSpec{kGiB / 2, 0, false};
  g = WorkloadGenerator::Create(q, kGiB, 4096, 3);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("size: job 3 region"), std::string::npos) << g.error().message;
  EXPECT_EQ(g.error().kind, ErrorKind::kInput);

  Profile r = RandRead();
  r.bs = 1 << 20;
  g = WorkloadGenerator::Create(r, 512 * 1024, 512, 0);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("smaller than the block size"), std::string::npos);
  EXPECT_FALSE(WorkloadGenerator::Create(RandRead(), kGiB, 512, 1).ok());  // job >= numjobs
}

TEST(WorkloadGeneratorTest, RunnerFields) {
  Profile p = RandRead();
  p.iodepth = 8;
  auto g = Make(p, kGiB);
  EXPECT_EQ(g.iodepth(), 8u);
  EXPECT_EQ(g.io_bytes_limit(), kGiB);  // fio: size bytes, runtime or not
  p.runtime = 10 * kSecond;
  EXPECT_EQ(Make(p, kGiB).io_bytes_limit(), kGiB);
  p.loops = 3;
  EXPECT_EQ(Make(p, kGiB).io_bytes_limit(), 3 * kGiB);
  p.number_ios = 5;
  EXPECT_EQ(Make(p, kGiB).io_count_limit(), 15u);
  p.time_based = true;  // time_based: no byte, count or pass limit
  EXPECT_EQ(Make(p, kGiB).io_bytes_limit(), 0u);
  EXPECT_EQ(Make(p, kGiB).io_count_limit(), 0u);
  EXPECT_FALSE(Make(p, kGiB).ends_at_pass());
}

TEST(BlockDistributionsTest, PermutationIsABijection) {
  for (std::uint64_t n : {1ull, 2ull, 3ull, 7ull, 1000ull, 1024ull, 1025ull, 65537ull}) {
    BlockPermutation perm(n, 99);
    std::vector<bool> hit(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto x = perm(i);
      ASSERT_LT(x, n);
      ASSERT_FALSE(hit[x]) << "n=" << n;
      hit[x] = true;
    }
  }
}

TEST(BlockDistributionsTest, ZipfSamplerMatchesExactMassesForSmallN) {
  // Every rank's frequency within 4 standard errors of 1/k^θ / H(n, θ),
  // including θ = 1 where fio's sampler is undefined.
  for (double theta : {0.5, 1.0, 2.0}) {
    const std::uint64_t n = 20;
    ZipfSampler z(n, theta);
    Xoshiro256 rng(11);
    std::vector<double> counts(n);
    const int samples = 1'000'000;
    for (int i = 0; i < samples; ++i) ++counts[z.Sample(rng)];
    double norm = 0;
    for (std::uint64_t k = 1; k <= n; ++k) norm += std::pow(static_cast<double>(k), -theta);
    for (std::uint64_t k = 1; k <= n; ++k) {
      const double pk = std::pow(static_cast<double>(k), -theta) / norm;
      const double se = std::sqrt(pk * (1 - pk) / samples);
      EXPECT_NEAR(counts[k - 1] / samples, pk, 4 * se + 1e-6) << "theta " << theta << " rank " << k;
    }
  }
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

std::vector<std::uint64_t> Blocks(WorkloadGenerator& g, int n, std::uint64_t bs = 4096,
                                  std::vector<bool>* wrapped = nullptr) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) {
    const NextIo io = g.Next();
    out.push_back(io.offset / bs);
    if (wrapped != nullptr) wrapped->push_back(io.wrapped);
  }
  return out;
}

// The sequences fio 3.33 issues for these jobs (write_iolog of
// `fio --rw=read:8k --bs=4k --size=64k` and friends on a larger file).
TEST(WorkloadGeneratorModifierTest, SequentialHolesAndBackwardsAsFio) {
  Profile p;
  p.rw = RwMode::kRead;
  p.has_size = true;
  p.size = SizeSpec{64 * 1024, 0, false};
  p.rw_seq_add = 8192;
  auto g = Make(p);
  std::vector<bool> wrapped;
  EXPECT_EQ(Blocks(g, 7, 4096, &wrapped), (std::vector<std::uint64_t>{0, 3, 6, 9, 12, 15, 0}));
  EXPECT_EQ(wrapped, (std::vector<bool>{false, false, false, false, false, false, true}));

  p.rw_seq_add = -8192;
  auto b = Make(p);
  EXPECT_EQ(Blocks(b, 18), (std::vector<std::uint64_t>{0, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3,
                                                       2, 1, 0, 14, 13}));
}

TEST(WorkloadGeneratorModifierTest, RandomEveryNthIo) {
  Profile p = RandRead();
  p.rw_seq_nr = 4;
  auto g = Make(p);
  const auto b = Blocks(g, 400);
  int seeks = 0;
  for (std::size_t i = 1; i < b.size(); ++i) {
    if (i % 4 != 0) {
      EXPECT_EQ(b[i], b[i - 1] + 1) << i;  // the 3 between continue sequentially
    } else {
      seeks += b[i] != b[i - 1] + 1;
    }
  }
  EXPECT_GT(seeks, 90);  // a new random offset at each 4th (a few land next door)

  p.rw_sequencer_identical = true;
  auto same = Make(p);
  const auto s = Blocks(same, 400);
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (i % 4 != 0) {
      EXPECT_EQ(s[i], s[i - 1]) << i;
    }
  }
}

TEST(WorkloadGeneratorModifierTest, PerDirectionBlockSizes) {
  Profile p;
  p.rw = RwMode::kRandRw;
  p.norandommap = true;
  p.bs = 8192;
  p.write_bs = 32768;
  auto g = Make(p);
  int reads = 0, writes = 0;
  for (int i = 0; i < 10000; ++i) {
    const NextIo io = g.Next();
    EXPECT_EQ(io.length, io.op == IoOp::kRead ? 8192u : 32768u);
    EXPECT_EQ(io.offset % 8192, 0u);
    (io.op == IoOp::kRead ? reads : writes)++;
  }
  EXPECT_GT(reads, 4000);
  EXPECT_GT(writes, 4000);
  EXPECT_EQ(p.min_bs(), 8192u);
  EXPECT_EQ(p.max_bs(), 32768u);
  p.rw = RwMode::kRandWrite;  // only the direction done counts
  EXPECT_EQ(p.min_bs(), 32768u);
}

// A profile from its fio options, parsed as a job file would be.
Profile FromOptions(const std::vector<std::pair<const char*, const char*>>& options) {
  Profile p;
  for (const auto& [k, v] : options) {
    auto r = SetProfileOption(p, k, v, true, 1024);
    EXPECT_TRUE(r.ok() && *r == OptionResult::kApplied) << k;
  }
  auto ok = ValidateProfile(p);
  EXPECT_TRUE(ok.ok()) << (ok.ok() ? "" : ok.error().message);
  return p;
}

std::string Trace(WorkloadGenerator& g, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    const NextIo io = g.Next();
    const char* op = io.op == IoOp::kRead    ? "R"
                     : io.op == IoOp::kWrite ? "W"
                     : io.op == IoOp::kFlush ? "F"
                                             : "T";
    out += op;
    if (io.op != IoOp::kFlush)
      out += std::to_string(io.offset / 1024) + "/" + std::to_string(io.length / 1024);
    out += " ";
  }
  return out;
}

TEST(WorkloadGeneratorTest, TrimwriteAlternatesAsFio) {
  // fio 3.33's write_iolog of rw=trimwrite, bs=4k,4k,8k, size=64k: each 8k
  // trim is followed by the writes up to where the next trim starts.
  auto g = Make(FromOptions({{"rw", "trimwrite"}, {"bs", "4k,4k,8k"}, {"size", "64k"}}));
  EXPECT_EQ(Trace(g, 8), "T0/8 W0/4 T8/8 W4/4 W8/4 T16/8 W12/4 W16/4 ");
  // fio's job bytes: every byte trimmed and written.
  EXPECT_EQ(g.io_bytes_limit(), 2u * 64 * 1024);
}

TEST(WorkloadGeneratorTest, RandTrimWriteWritesWhatEachTrimCovered) {
  // bs=4k,4k,8k: every trim 8k (and no random map: the trims' size is not
  // the job's smallest, fio's map unit). bsrange with the map: a trim is
  // cut where a covered block begins, and its write covers what it did.
  for (const char* size : {"bs", "bsrange"}) {
    auto g = Make(FromOptions(
        {{"rw", "randtrimwrite"}, {size, size[2] == 0 ? "4k,4k,8k" : "4k-16k"}, {"size", "1m"}}));
    std::set<std::uint64_t> lengths;
    for (int i = 0; i < 300; ++i) {
      const NextIo t = g.Next(), w = g.Next();
      ASSERT_EQ(t.op, IoOp::kDiscard);
      ASSERT_EQ(w.op, IoOp::kWrite);
      EXPECT_EQ(w.offset, t.offset);
      EXPECT_EQ(w.length, t.length);
      EXPECT_EQ(t.offset % 4096, 0u);
      lengths.insert(t.length);
    }
    EXPECT_EQ(lengths.size(), size[2] == 0 ? 1u : 4u) << size;
  }
}

TEST(WorkloadGeneratorTest, TrimModesTrimWithTheThirdBlockSize) {
  auto g = Make(FromOptions({{"rw", "trim"}, {"bs", "4k,8k,16k"}, {"size", "64k"}}));
  EXPECT_EQ(Trace(g, 5), "T0/16 T16/16 T32/16 T48/16 T0/16 ");
  auto r = Make(FromOptions({{"rw", "randtrim"}, {"bs", "4k,,2k"}}));
  for (int i = 0; i < 1000; ++i) {
    const NextIo io = r.Next();
    ASSERT_EQ(io.op, IoOp::kDiscard);
    ASSERT_EQ(io.length, 2048u);
  }
}

TEST(WorkloadGeneratorTest, FsyncTakesThePlaceOfTheNextIoAsFio) {
  // fio's iolog of rw=write, fsync=3: a sync after every third write.
  auto g = Make(FromOptions({{"rw", "write"}, {"fsync", "3"}, {"size", "64k"}}));
  EXPECT_EQ(Trace(g, 9), "W0/4 W4/4 W8/4 F W12/4 W16/4 W20/4 F W24/4 ");
  // Mixed: after the Nth write fio syncs again after every read until the
  // next write (last_was_sync is reset by any I/O).
  auto m = Make(FromOptions({{"rw", "randrw"}, {"fdatasync", "2"}}));
  std::uint64_t writes = 0;
  bool last_flush = false;
  int flushes = 0;
  for (int i = 0; i < 10000; ++i) {
    const NextIo io = m.Next();
    const bool due = !last_flush && writes > 0 && writes % 2 == 0;
    ASSERT_EQ(io.op == IoOp::kFlush, due) << i;
    flushes += io.op == IoOp::kFlush;
    writes += io.op == IoOp::kWrite;
    last_flush = io.op == IoOp::kFlush;
  }
  EXPECT_GT(flushes, 2000);
  // A job without writes never flushes (fio's should_fsync).
  auto r = Make(FromOptions({{"rw", "read"}, {"fsync", "1"}}));
  for (int i = 0; i < 100; ++i) ASSERT_EQ(r.Next().op, IoOp::kRead);
}

TEST(WorkloadGeneratorTest, BsrangeDrawsAsFioGetNextBuflen) {
  // 8k-28k: 8k + uniform below 28k, down to a multiple of 8k, capped at 28k:
  // 8k, 16k, 24k with 2/7 each, 28k with 1/7.
  auto g =
      Make(FromOptions({{"rw", "randwrite"}, {"bsrange", "1k-2k,8k-28k"}, {"norandommap", "1"}}));
  std::map<std::uint64_t, int> n;
  const int total = 70000;
  for (int i = 0; i < total; ++i) {
    const NextIo io = g.Next();
    ++n[io.length];
    ASSERT_EQ(io.offset % 8192, 0u);  // aligned to the smallest size of the job
  }
  ASSERT_EQ(n.size(), 4u);
  for (std::uint64_t k : {8u, 16u, 24u}) EXPECT_NEAR(n[k * 1024] / double(total), 2 / 7.0, 0.01);
  EXPECT_NEAR(n[28 * 1024] / double(total), 1 / 7.0, 0.01);
  // Sequential: while the smallest size fits, a size that does not is
  // drawn again, so a pass covers the region exactly.
  auto s = Make(FromOptions({{"rw", "read"}, {"bsrange", "4k-16k"}, {"size", "64k"}}));
  std::uint64_t next = 0;
  while (true) {
    const NextIo io = s.Next();
    if (io.wrapped) break;
    ASSERT_EQ(io.offset, next);
    next += io.length;
  }
  EXPECT_EQ(next, 64u * 1024);
}

TEST(WorkloadGeneratorTest, BlockalignAlignsRandomOffsets) {
  auto g = Make(FromOptions({{"rw", "randread"}, {"bs", "4k"}, {"ba", "64k"}}));
  std::set<std::uint64_t> low;
  for (int i = 0; i < 10000; ++i) {
    const NextIo io = g.Next();
    ASSERT_EQ(io.offset % 65536, 0u);
  }
  auto plain = Make(FromOptions({{"rw", "randread"}, {"bs", "4k"}}));
  for (int i = 0; i < 1000; ++i) low.insert(plain.Next().offset % 65536);
  EXPECT_GT(low.size(), 8u);  // without ba the offsets are 4k-aligned only
}
}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

// fio's random map (default): each pass of a uniform random job touches
// every block of its region once; the I/O after a full pass is flagged
// wrapped and the next pass draws a new order (fio's time based jobs).
TEST(WorkloadGeneratorTest, RandomMapCoversEveryBlockOncePerPass) {
  Profile p = FromOptions({{"rw", "randrw"}, {"bs", "4k"}, {"size", "256k"}});
  auto g = Make(p);
  std::vector<std::uint64_t> first, second;
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<std::uint64_t>& order = pass == 0 ? first : second;
    for (int i = 0; i < 64; ++i) {
      const NextIo io = g.Next();
      EXPECT_EQ(io.wrapped, pass == 1 && i == 0) << pass << " " << i;
      EXPECT_EQ(io.length, 4096u);
      order.push_back(io.offset / 4096);
    }
    std::vector<std::uint64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (std::uint64_t b = 0; b < 64; ++b) ASSERT_EQ(sorted[b], b) << pass;
  }
  EXPECT_NE(first, second);
  // norandommap: drawn with repeats, so 64 draws over 64 blocks miss some
  // (all 64 distinct has probability 64! / 64^64).
  p.norandommap = true;
  auto h = Make(p);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 64; ++i) seen.insert(h.Next().offset);
  EXPECT_LT(seen.size(), 64u);
}

// fio's mark_random_map: with sizes drawn from a range the map cuts an I/O
// short where a block covered before begins, so a pass covers the region
// exactly once, in I/Os that never overlap.
TEST(WorkloadGeneratorTest, RandomMapCutsIosAtCoveredBlocks) {
  // Picks only land on uncovered blocks; without the cuts, I/Os of up to 16
  // blocks would overlap ones covered before well before the pass ends.
  auto g = Make(FromOptions({{"rw", "randwrite"}, {"bsrange", "4k-64k"}, {"size", "1m"}}));
  std::vector<int> covered(256, 0);
  std::uint64_t bytes = 0;
  std::set<std::uint64_t> lengths;
  while (bytes < (1u << 20)) {
    const NextIo io = g.Next();
    ASSERT_FALSE(io.wrapped);
    ASSERT_EQ(io.offset % 4096, 0u);
    ASSERT_EQ(io.length % 4096, 0u);
    ASSERT_LE(io.offset + io.length, 1u << 20);
    for (std::uint64_t b = io.offset / 4096; b < (io.offset + io.length) / 4096; ++b) {
      ASSERT_EQ(covered[b]++, 0) << "block " << b << " covered twice in one pass";
    }
    bytes += io.length;
    lengths.insert(io.length);
  }
  EXPECT_EQ(bytes, 1u << 20);
  EXPECT_TRUE(g.Next().wrapped);
  EXPECT_GT(lengths.size(), 8u);  // sizes drawn from the whole range, and cut ones
}

// fio flags the sequential I/Os of a mixed job busy-ok: they neither mark
// the map nor are cut, so the random picks alone cover every block once.
TEST(WorkloadGeneratorTest, SequentialIosOfAMixedJobLeaveTheRandomMapAlone) {
  auto g = Make(FromOptions({{"rw", "randread:4"}, {"bs", "4k"}, {"size", "64k"}}));
  std::vector<std::uint64_t> picks;
  for (int i = 0; i < 64; ++i) {
    const NextIo io = g.Next();
    EXPECT_EQ(io.length, 4096u);
    if (i % 4 == 0) picks.push_back(io.offset / 4096);
  }
  std::sort(picks.begin(), picks.end());
  for (std::uint64_t b = 0; b < 16; ++b) EXPECT_EQ(picks[b], b);
}

// The maps are a bit per block per job: beyond 1 GiB for a section's jobs
// the profile is refused, naming norandommap, rather than allocated.
TEST(WorkloadGeneratorTest, RandomMapsBeyondTheirBudgetAreRefused) {
  Profile p = FromOptions({{"rw", "randread"}, {"bs", "4k"}, {"numjobs", "8"}});
  const std::uint64_t volume = 64ULL << 40;  // 16 Gi blocks: 2 GiB of map per job
  auto g = WorkloadGenerator::Create(p, volume, 4096, 0);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("norandommap"), std::string::npos) << g.error().message;
  p.norandommap = true;
  EXPECT_TRUE(WorkloadGenerator::Create(p, volume, 4096, 0).ok());
  // Zipf draws through no map, as fio's.
  p.norandommap = false;
  p.random_distribution = RandomDistribution::kZipf;
  p.zipf_theta = 1.2;
  EXPECT_TRUE(WorkloadGenerator::Create(p, volume, 4096, 0).ok());
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

// fio's get_next_buflen at the region's end: a sequential bssplit job
// draws again until a size fits (4k/1:64k/99 over 68k: a pass is 64k then
// 4k, never 64k alone), and a bssplit size that does not fit falls to the
// next entry in fio's order, ascending percentage: with 16k/20:4k/30:8k/50
// and 8k left, a drawn 16k becomes 4k, so 4k and 8k come half and half
// (a plain redraw would give 8k 5 times in 8).
TEST(WorkloadGeneratorTest, ABssplitSizeThatDoesNotFitFallsAsFios) {
  auto seq = Make(FromOptions({{"rw", "write"}, {"bssplit", "4k/1:64k/99"}, {"size", "68k"}}));
  std::uint64_t pass_bytes = 0;
  for (int i = 0; i < 400; ++i) {
    const NextIo io = seq.Next();
    if (io.wrapped) {
      EXPECT_EQ(pass_bytes, 68u << 10) << i;
      pass_bytes = 0;
    }
    EXPECT_LE(io.offset + io.length, 68u << 10);
    pass_bytes += io.length;
  }
  auto rnd = Make(FromOptions({{"rw", "randwrite"},
                               {"bssplit", "16k/20:4k/30:8k/50"},
                               {"size", "32k"},
                               {"norandommap", "1"}}));
  std::map<std::uint64_t, int> at_24k;
  for (int i = 0; i < 40000; ++i) {
    const NextIo io = rnd.Next();
    EXPECT_LE(io.offset + io.length, 32u << 10);
    if (io.offset == 24u << 10) ++at_24k[io.length];
  }
  ASSERT_EQ(at_24k.size(), 2u);
  const int n = at_24k[4096] + at_24k[8192];
  EXPECT_GT(n, 4000);
  EXPECT_NEAR(static_cast<double>(at_24k[8192]) / n, 0.5, 0.03);
}

// fio does not fit a fixed size to the region (get_next_buflen): a
// sequential job over a region that is not a multiple of it runs its last
// I/O past the region's end, up to the volume's (bs=16k size=60k: fio 3.33
// reads 0, 16k, 32k and 48k, then wraps). Where the volume ends there, the
// pass ends before; a bsrange is fitted instead.
TEST(WorkloadGeneratorTest, ASequentialFixedSizeRunsPastTheRegionEndAsFios) {
  const Profile p = FromOptions({{"rw", "read"}, {"bs", "16k"}, {"size", "60k"}});
  auto g = Make(p);
  for (const std::uint64_t kib : {0, 16, 32, 48}) {
    const NextIo io = g.Next();
    EXPECT_EQ(io.offset, kib * 1024);
    EXPECT_EQ(io.length, 16u * 1024);
    EXPECT_FALSE(io.wrapped);
  }
  EXPECT_TRUE(g.Next().wrapped);
  auto at_end = Make(FromOptions({{"rw", "read"}, {"bs", "16k"}, {"offset", "4k"}}), 64 * 1024);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(at_end.Next().wrapped);
  EXPECT_TRUE(at_end.Next().wrapped);  // 52k + 16k is past the volume
  auto range = Make(FromOptions({{"rw", "read"}, {"bsrange", "16k-32k"}, {"size", "60k"}}));
  std::uint64_t end = 0;
  for (NextIo io = range.Next(); !io.wrapped; io = range.Next()) end = io.offset + io.length;
  EXPECT_LE(end, 48u * 1024);
}

// A random map past its budget (1 GiB a section) is refused up front, with
// the way out: norandommap, or for lfsr (which keeps a map here) the default
// generator. 8 TiB of 512-byte blocks needs 2 GiB; 4 KiB blocks fit.
TEST(WorkloadGeneratorTest, ARandomMapPastItsBudgetIsRefusedNamingTheWayOut) {
  constexpr std::uint64_t kVolume = std::uint64_t{8} << 40;
  Profile p = FromOptions({{"rw", "randread"}, {"bs", "512"}});
  auto g = WorkloadGenerator::Create(p, kVolume, 512, 0);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("norandommap: fio's random map of 1 job(s) over 17179869184 "
                                   "blocks each would take"),
            std::string::npos)
      << g.error().message;
  EXPECT_NE(g.error().message.find("set norandommap=1"), std::string::npos);
  p.random_generator_lfsr = true;
  g = WorkloadGenerator::Create(p, kVolume, 512, 0);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("random_generator: tierlab's lfsr keeps a map"),
            std::string::npos)
      << g.error().message;
  EXPECT_NE(g.error().message.find("leave random_generator unset"), std::string::npos);
  p.norandommap = true;
  p.random_generator_lfsr = false;
  EXPECT_TRUE(WorkloadGenerator::Create(p, kVolume, 512, 0).ok());
  EXPECT_TRUE(WorkloadGenerator::Create(FromOptions({{"rw", "randread"}}), kVolume, 512, 0).ok());
}

// fio's random_generator=lfsr keeps no map, but its LFSR picks every block
// once per cycle, norandommap or not; I/Os are not cut, so with a range of
// sizes they overlap.
TEST(WorkloadGeneratorTest, LfsrPicksEveryBlockOncePerPassWithoutCuts) {
  Profile p = FromOptions({{"rw", "randread"},
                           {"bsrange", "4k-16k"},
                           {"size", "256k"},
                           {"random_generator", "lfsr"},
                           {"norandommap", "1"}});
  auto g = Make(p);
  std::set<std::uint64_t> picked;
  bool overlapped = false;
  std::vector<int> covered(64, 0);
  for (int i = 0; i < 64; ++i) {
    const NextIo io = g.Next();
    EXPECT_EQ(io.wrapped, false) << i;
    picked.insert(io.offset / 4096);
    for (std::uint64_t b = io.offset / 4096; b < (io.offset + io.length) / 4096; ++b) {
      overlapped |= covered[b]++ != 0;
    }
  }
  EXPECT_EQ(picked.size(), 64u);
  EXPECT_TRUE(overlapped);
  EXPECT_TRUE(g.Next().wrapped);
  EXPECT_FALSE(g.keeps_random_map());  // fio reads a verify back by offset
  Profile q;
  EXPECT_FALSE(SetProfileOption(q, "random_generator", "mt", true, 1024).ok());
}

}  // namespace
}  // namespace tierlab
