// What a job's writes carry under fio's buffer options: dedupe shares,
// working sets, compressibility, patterns.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench/workload/WriteData.h"

namespace tierlab {
namespace {

using Buffer = std::vector<std::byte>;

// A buffer's contents as a map key. (A map keyed by the vector itself
// compares with operator<=>, whose memcmp GCC 12 flags under LTO with a
// bogus -Wstringop-overread.)
std::string Contents(const Buffer& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

std::vector<Buffer> Writes(WriteData& d, int n, std::uint64_t len = 4096) {
  std::vector<Buffer> out(n, Buffer(len));
  for (Buffer& b : out) d.Fill(b.data(), len);
  return out;
}

std::size_t Distinct(const std::vector<Buffer>& v) {
  std::map<std::string, int> seen;
  for (const Buffer& b : v) ++seen[Contents(b)];
  return seen.size();
}

WriteData Make(const WriteDataSpec& spec, std::uint32_t job = 0, std::uint32_t jobs = 1) {
  return WriteData(spec, FioPattern{}, /*seed=*/7, job, jobs, /*size=*/1 << 20, 4096);
}

TEST(WriteDataTest, DedupePercentageMakesThatShareOfWritesRepeatAnother) {
  WriteDataSpec spec;
  spec.dedupe_percentage = 50;
  WriteData d = Make(spec);
  const std::vector<Buffer> w = Writes(d, 2000);
  // About half the writes are new; each repeat is the next new one's buffer.
  EXPECT_NEAR(static_cast<double>(Distinct(w)), 1000.0, 60.0);
  spec.dedupe_percentage = 0;
  spec.compress_percentage = 1;  // any option: every write is filled anew
  WriteData fresh = Make(spec);
  EXPECT_EQ(Distinct(Writes(fresh, 100)), 100u);
}

TEST(WriteDataTest, AtOneHundredPercentEveryWriteCarriesTheSameBuffer) {
  WriteDataSpec spec;
  spec.dedupe_percentage = 100;
  WriteData d = Make(spec);
  EXPECT_EQ(Distinct(Writes(d, 50)), 1u);
}

TEST(WriteDataTest, AWorkingSetDrawsRepeatsFromTheJobsFirstUniqueBuffers) {
  WriteDataSpec spec;
  spec.dedupe_percentage = 50;
  spec.dedupe_working_set = true;
  spec.dedupe_working_set_percentage = 10;  // 10 % of 1 MiB in 4 KiB: 25 buffers
  WriteData d = Make(spec);
  EXPECT_EQ(d.working_set(), 25u);
  const std::vector<Buffer> w = Writes(d, 400);
  std::map<std::string, int> first;
  for (const Buffer& b : w) ++first[Contents(b)];
  std::size_t repeated = 0;
  for (const auto& [b, n] : first) repeated += n > 1 ? 1 : 0;
  // Repeats fall on the working set only (a unique write past it is never repeated).
  EXPECT_LE(repeated, 25u);
  EXPECT_GT(repeated, 15u);
}

TEST(WriteDataTest, AGlobalWorkingSetTakesEachJobsFirstBuffersInTurn) {
  WriteDataSpec spec;
  spec.dedupe_percentage = 50;
  spec.dedupe_working_set = true;
  spec.dedupe_working_set_percentage = 10;
  spec.dedupe_global = true;
  const WriteData d = Make(spec, /*job=*/1, /*jobs=*/3);  // 25 entries, 8 per job
  EXPECT_EQ(d.WorkingSetEntry(0), (std::pair<std::uint32_t, std::uint64_t>{1, 0}));
  EXPECT_EQ(d.WorkingSetEntry(7), (std::pair<std::uint32_t, std::uint64_t>{1, 7}));
  EXPECT_EQ(d.WorkingSetEntry(8), (std::pair<std::uint32_t, std::uint64_t>{2, 0}));
  EXPECT_EQ(d.WorkingSetEntry(16), (std::pair<std::uint32_t, std::uint64_t>{0, 0}));
  EXPECT_EQ(d.WorkingSetEntry(24), (std::pair<std::uint32_t, std::uint64_t>{1, 0}));
}

TEST(WriteDataTest, CompressionLeavesThatShareOfEachChunkZeroOrThePattern) {
  WriteDataSpec spec;
  spec.compress_percentage = 25;
  WriteData d = Make(spec);
  Buffer b(4096);
  d.Fill(b.data(), b.size());
  for (std::size_t chunk = 0; chunk < 4096; chunk += 512) {
    // 384 random bytes, then 128 zeros.
    EXPECT_TRUE(std::all_of(b.begin() + chunk + 384, b.begin() + chunk + 512,
                            [](std::byte x) { return x == std::byte{0}; }));
    EXPECT_FALSE(std::all_of(b.begin() + chunk, b.begin() + chunk + 64,
                             [](std::byte x) { return x == std::byte{0}; }));
  }
  spec.pattern = "0xab";
  WriteData p(spec, *ParseFioPattern("0xab", false), 7, 0, 1, 1 << 20, 4096);
  p.Fill(b.data(), b.size());
  EXPECT_EQ(b[500], std::byte{0xab});
}

TEST(WriteDataTest, APatternOrZerosAloneFillEveryWriteAlike) {
  WriteDataSpec spec;
  spec.pattern = "\"ab\"";
  WriteData p(spec, *ParseFioPattern(spec.pattern, false), 7, 0, 1, 1 << 20, 4096);
  const std::vector<Buffer> w = Writes(p, 3, 512);
  EXPECT_EQ(Distinct(w), 1u);
  EXPECT_EQ(w[0][1], std::byte{'b'});
  WriteDataSpec zeros;
  zeros.zero_buffers = true;
  WriteData z = Make(zeros);
  const std::vector<Buffer> zw = Writes(z, 1);
  EXPECT_TRUE(
      std::all_of(zw[0].begin(), zw[0].end(), [](std::byte x) { return x == std::byte{0}; }));
}

}  // namespace
}  // namespace tierlab
