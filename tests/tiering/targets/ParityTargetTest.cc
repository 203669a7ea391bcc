// Parity RAID: data written through the array reads back, from the members
// as they are and reconstructed after any m of them are lost (RAID-5, RAID-6,
// triple parity); the child I/O of each write path (write amplification);
// concurrent writes to one stripe; more than m losses; rebuild; timing-only
// runs making the same child requests as data runs; real files.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "tests/support/BorrowedDevice.h"
#include "tests/support/SyncIo.h"
#include "tests/support/TempDir.h"
#include "tests/support/VerifyHarness.h"
#include "tiering/core/ObjectPool.h"
#include "tiering/core/RealEngine.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/FileDevice.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/DelayTarget.h"
#include "tiering/targets/FaultTarget.h"
#include "tiering/targets/ParityTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;

// The members of an array, kept by the test; arrays are built over views.
struct Members {
  std::vector<std::unique_ptr<RamDevice>> rams;

  Members(Engine& e, int n, std::uint64_t size) {
    for (int i = 0; i < n; ++i) {
      rams.push_back(std::make_unique<RamDevice>(e, "m" + std::to_string(i), size));
    }
  }
  std::unique_ptr<ParityTarget> Array(Engine& e, int m, std::uint64_t chunk) const {
    std::vector<std::unique_ptr<BlockDevice>> v;
    for (const auto& r : rams) v.push_back(std::make_unique<testing::BorrowedDevice>(e, *r));
    return std::make_unique<ParityTarget>(e, "raid", std::move(v), m, chunk);
  }
  DeviceStats Sum() const {
    DeviceStats s;
    for (const auto& r : rams) s.Add(r->stats());
    return s;
  }
};

Status Do(Engine& e, BlockDevice& d, IoOp op, std::uint64_t off, std::uint64_t len, std::byte* data,
          std::uint32_t flags = 0) {
  Status got = Status::kShutdown;
  int calls = 0;
  d.Submit({op, flags, off, len, data}, [&](Status st) {
    got = st;
    ++calls;
  });
  EXPECT_EQ(calls, 0) << "completed inside Submit";
  e.Run();
  EXPECT_EQ(calls, 1);
  return got;
}

std::vector<std::byte> RandomBytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::byte> v(n);
  for (auto& b : v) b = static_cast<std::byte>(rng());
  return v;
}

// Writes random data of mixed sizes and offsets (partial stripes, stripes
// spanned, whole stripes) through `d`, one at a time, into `image` too.
void WriteRandom(Engine& e, BlockDevice& d, std::vector<std::byte>& image, std::mt19937_64& rng,
                 int count, std::uint64_t stripe_data) {
  const std::uint64_t blocks = image.size() / 512;
  for (int i = 0; i < count; ++i) {
    std::uint64_t off;
    std::uint64_t len;
    if (i % 5 == 0) {  // whole stripes
      const std::uint64_t stripes = image.size() / stripe_data;
      off = rng() % stripes * stripe_data;
      len = std::min<std::uint64_t>(1 + rng() % 2, stripes - off / stripe_data) * stripe_data;
    } else {
      off = rng() % blocks * 512;
      len =
          std::min<std::uint64_t>((1 + rng() % (3 * stripe_data / 512)) * 512, image.size() - off);
    }
    std::vector<std::byte> buf = RandomBytes(rng, len);
    ASSERT_EQ(Do(e, d, IoOp::kWrite, off, len, buf.data()), Status::kOk) << off << "+" << len;
    std::memcpy(image.data() + off, buf.data(), len);
  }
}

// Reads the whole volume back in pieces of `piece` bytes; counts pieces
// read wrong, and pieces that failed.
struct ReadBack {
  std::uint64_t wrong = 0;
  std::uint64_t failed = 0;
};
ReadBack ReadAll(Engine& e, BlockDevice& d, const std::vector<std::byte>& image,
                 std::uint64_t piece) {
  ReadBack r;
  std::vector<std::byte> buf(piece);
  for (std::uint64_t off = 0; off < image.size(); off += piece) {
    const std::uint64_t len = std::min(piece, image.size() - off);
    if (Do(e, d, IoOp::kRead, off, len, buf.data()) != Status::kOk) {
      ++r.failed;
      continue;
    }
    if (std::memcmp(buf.data(), image.data() + off, len) != 0) ++r.wrong;
  }
  return r;
}

// Every set of `lost` members out of n, as bit masks.
std::vector<unsigned> Subsets(int n, int lost) {
  std::vector<unsigned> out;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) == lost) out.push_back(mask);
  }
  return out;
}

// ---- Geometry -----------------------------------------------------------------

TEST(ParityTargetTest, LeftSymmetricPlacementAndSize) {
  SimEngine e;
  Members mem(e, 4, 1024 * kKiB + 4096);  // rounded down to whole chunks
  auto a = mem.Array(e, 1, 64 * kKiB);
  EXPECT_EQ(a->Kind(), "raid5");
  EXPECT_EQ(a->stripes(), 16u);
  EXPECT_EQ(a->Size(), 3 * 1024 * kKiB);
  // md's left-symmetric: parity on the last member first, moving left; data
  // starts on the member after the parity.
  EXPECT_EQ(a->MemberOf(0, 3), 3u);  // P
  EXPECT_EQ(a->MemberOf(0, 0), 0u);
  EXPECT_EQ(a->MemberOf(1, 3), 2u);
  EXPECT_EQ(a->MemberOf(1, 0), 3u);
  EXPECT_EQ(a->MemberOf(1, 1), 0u);
  EXPECT_EQ(a->MemberOf(4, 3), 3u);
  // RAID-6: Q follows P.
  Members six(e, 6, 1024 * kKiB);
  auto b = six.Array(e, 2, 64 * kKiB);
  EXPECT_EQ(b->Kind(), "raid6");
  EXPECT_EQ(b->MemberOf(0, 4), 5u);
  EXPECT_EQ(b->MemberOf(0, 5), 0u);
  EXPECT_EQ(b->MemberOf(0, 0), 1u);
  for (std::uint64_t s = 0; s < 12; ++s) {
    std::vector<bool> seen(6);
    for (int role = 0; role < 6; ++role) {
      const std::size_t member = b->MemberOf(s, role);
      EXPECT_FALSE(seen[member]);
      seen[member] = true;
      EXPECT_EQ(b->RoleOf(s, member), role);
    }
  }
  EXPECT_EQ(six.Array(e, 3, 64 * kKiB)->Kind(), "raid-tp");
}

TEST(ParityTargetTest, BadGeometryHasNoSizeAndFlushStillCompletes) {
  SimEngine e;
  Members three(e, 3, 1024 * kKiB);
  EXPECT_EQ(three.Array(e, 2, 64 * kKiB)->Size(), 0u);  // k = 1
  EXPECT_EQ(three.Array(e, 4, 64 * kKiB)->Size(), 0u);
  EXPECT_EQ(three.Array(e, 0, 64 * kKiB)->Size(), 0u);
  EXPECT_EQ(three.Array(e, 1, 1000)->Size(), 0u);  // not whole blocks
  Members five(e, 5, 1024 * kKiB);
  EXPECT_EQ(five.Array(e, 4, 64 * kKiB)->Size(), 0u);  // m > 3
  auto bad = three.Array(e, 2, 64 * kKiB);
  EXPECT_EQ(Do(e, *bad, IoOp::kWrite, 0, 4096, nullptr), Status::kInvalid);
  EXPECT_EQ(Do(e, *bad, IoOp::kFlush, 0, 0, nullptr), Status::kOk);
}

// ---- Data and reconstruction ------------------------------------------------------

class ParityByLevel : public ::testing::TestWithParam<int> {};

TEST_P(ParityByLevel, DataReadsBackWithAnyMMembersLost) {
  const int m = GetParam();
  const int n = 4 + m;  // k = 4
  const std::uint64_t chunk = 8 * kKiB;
  SimEngine e;
  Members mem(e, n, 32 * chunk);  // 32 stripes
  auto array = mem.Array(e, m, chunk);
  std::vector<std::byte> image(array->Size());
  std::mt19937_64 rng(100 + m);
  WriteRandom(e, *array, image, rng, 300, 4 * chunk);
  const ParityStats& st = array->parity_stats();
  EXPECT_GT(st.full_stripe_writes, 0u);
  EXPECT_GT(st.rmw_writes + st.reconstruct_writes, 0u);
  ReadBack whole = ReadAll(e, *array, image, 12 * kKiB);
  EXPECT_EQ(whole.wrong + whole.failed, 0u);

  // Every set of up to m lost members, each on an array of its own over the
  // same members: every stripe reads back, the lost chunks decoded.
  for (int lost = 1; lost <= m; ++lost) {
    for (unsigned mask : Subsets(n, lost)) {
      auto degraded = mem.Array(e, m, chunk);
      for (int i = 0; i < n; ++i) {
        if (mask & (1u << i)) degraded->FailMember(i);
      }
      ReadBack r = ReadAll(e, *degraded, image, 20 * kKiB);
      EXPECT_EQ(r.wrong, 0u) << "lost members mask " << mask;
      EXPECT_EQ(r.failed, 0u) << "lost members mask " << mask;
      EXPECT_GT(degraded->parity_stats().degraded_reads, 0u);
    }
  }
}

TEST_P(ParityByLevel, WritesWhileDegradedKeepEveryStripeRecoverable) {
  const int m = GetParam();
  const int n = 3 + m;  // k = 3
  const std::uint64_t chunk = 4 * kKiB;
  SimEngine e;
  Members mem(e, n, 24 * chunk);
  auto array = mem.Array(e, m, chunk);
  std::vector<std::byte> image(array->Size());
  std::mt19937_64 rng(7 + m);
  WriteRandom(e, *array, image, rng, 60, 3 * chunk);
  // Lose m members one after the other, writing in between: every write
  // path runs with lost data and parity members.
  for (int i = 0; i < m; ++i) {
    array->FailMember(static_cast<std::size_t>(2 * i + 1) % n);
    WriteRandom(e, *array, image, rng, 80, 3 * chunk);
  }
  EXPECT_GT(array->parity_stats().degraded_writes, 0u);
  ReadBack r = ReadAll(e, *array, image, 8 * kKiB);
  EXPECT_EQ(r.wrong + r.failed, 0u);
}

TEST_P(ParityByLevel, AMemberThatFailsIoIsFailedAndReadsAreReconstructed) {
  const int m = GetParam();
  const int n = 4 + m;
  const std::uint64_t chunk = 16 * kKiB;
  SimEngine e;
  std::vector<std::unique_ptr<BlockDevice>> kids;
  std::vector<FaultTarget*> faults;
  for (int i = 0; i < n; ++i) {
    auto f = std::make_unique<FaultTarget>(
        e, "f" + std::to_string(i), std::make_unique<RamDevice>(e, "r" + std::to_string(i), kMiB));
    faults.push_back(f.get());
    kids.push_back(std::move(f));
  }
  ParityTarget array(e, "raid", std::move(kids), m, chunk);
  std::vector<std::byte> image(array.Size());
  std::mt19937_64 rng(31);
  WriteRandom(e, array, image, rng, 100, 4 * chunk);
  for (int i = 0; i < m; ++i) faults[i * 2 % n]->FailAll(true);  // EIO from now on
  ReadBack r = ReadAll(e, array, image, 24 * kKiB);
  EXPECT_EQ(r.wrong + r.failed, 0u);
  EXPECT_EQ(array.failed_members(), static_cast<std::size_t>(m));
  EXPECT_EQ(array.parity_stats().member_failures, static_cast<std::uint64_t>(m));
  // Writes go on degraded and still read back.
  WriteRandom(e, array, image, rng, 50, 4 * chunk);
  r = ReadAll(e, array, image, 24 * kKiB);
  EXPECT_EQ(r.wrong + r.failed, 0u);
}

TEST_P(ParityByLevel, VerificationHarnessPasses) {
  const int m = GetParam();
  SimEngine e;
  std::vector<std::unique_ptr<BlockDevice>> kids;
  for (int i = 0; i < 5 + m; ++i) {
    kids.push_back(std::make_unique<RamDevice>(e, "r" + std::to_string(i), 2 * kMiB));
  }
  ParityTarget array(e, "raid", std::move(kids), m, 16 * kKiB);
  testing::VerifyOptions o;
  o.ops = 3000;
  o.seed = 40 + m;
  o.max_in_flight = 16;
  o.max_length = 256 * kKiB;
  // Halfway through, a member is lost; the rest of the run is degraded.
  o.on_complete = [&array](std::uint64_t done) {
    if (done == 1500) array.FailMember(2);
  };
  auto r = testing::RunVerify(e, array, o);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_GT(r.discards, 0u);  // answered kNotSupported, which the harness allows
  EXPECT_GT(array.parity_stats().degraded_reads, 0u);
}

INSTANTIATE_TEST_SUITE_P(Levels, ParityByLevel, ::testing::Values(1, 2, 3),
                         [](const auto& info) { return "m" + std::to_string(info.param); });

// ---- Write amplification ---------------------------------------------------------

struct Amplification {
  std::uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0;
};

// The child I/O of one write of `len` bytes at `off` into a fresh array.
Amplification OneWrite(int n, int m, std::uint64_t chunk, std::uint64_t off, std::uint64_t len,
                       ParityStats* stats = nullptr) {
  SimEngine e;
  Members mem(e, n, 64 * chunk);
  auto array = mem.Array(e, m, chunk);
  std::vector<std::byte> buf(len, std::byte{1});
  EXPECT_EQ(Do(e, *array, IoOp::kWrite, off, len, buf.data()), Status::kOk);
  const DeviceStats s = mem.Sum();
  if (stats != nullptr) *stats = array->parity_stats();
  return {s.read_ops, s.write_ops, s.read_bytes, s.write_bytes};
}

TEST(ParityTargetTest, WriteAmplificationOfEachWritePath) {
  const std::uint64_t c = 64 * kKiB;
  ParityStats st;
  // RAID-5, k = 4: one chunk is read-modify-write, 2 reads + 2 writes.
  Amplification a = OneWrite(5, 1, c, 4 * c + c, c, &st);
  EXPECT_EQ(a.reads, 2u);
  EXPECT_EQ(a.writes, 2u);
  EXPECT_EQ(a.read_bytes, 2 * c);
  EXPECT_EQ(st.rmw_writes, 1u);
  // A 4k piece of a chunk: the same, over 4k.
  a = OneWrite(5, 1, c, 8192, 4096, &st);
  EXPECT_EQ(a.reads, 2u);
  EXPECT_EQ(a.writes, 2u);
  EXPECT_EQ(a.read_bytes, 8192u);
  EXPECT_EQ(a.write_bytes, 8192u);
  // RAID-6, k = 4: 3 reads + 3 writes (read-modify-write and
  // reconstruct-write tie at 3 reads of a chunk; md's tie goes to rcw).
  a = OneWrite(6, 2, c, c, c, &st);
  EXPECT_EQ(a.reads, 3u);
  EXPECT_EQ(a.writes, 3u);
  EXPECT_EQ(st.reconstruct_writes, 1u);
  // RAID-6, k = 5: read-modify-write is fewer reads (3 against 4).
  a = OneWrite(7, 2, c, c, c, &st);
  EXPECT_EQ(a.reads, 3u);
  EXPECT_EQ(a.writes, 3u);
  EXPECT_EQ(st.rmw_writes, 1u);
  // Triple parity, k = 4: reconstruct-write, 3 reads against 4.
  a = OneWrite(7, 3, c, c, c, &st);
  EXPECT_EQ(a.reads, 3u);
  EXPECT_EQ(a.writes, 4u);
  EXPECT_EQ(st.reconstruct_writes, 1u);
  // RAID-5, k = 3, two of three chunks: reconstruct-write reads the third.
  a = OneWrite(4, 1, c, 3 * c, 2 * c, &st);
  EXPECT_EQ(a.reads, 1u);
  EXPECT_EQ(a.writes, 3u);
  EXPECT_EQ(st.reconstruct_writes, 1u);
  // Full stripes: no reads, one write per member and stripe.
  for (int m = 1; m <= 3; ++m) {
    a = OneWrite(4 + m, m, c, 2 * 4 * c, 2 * 4 * c, &st);
    EXPECT_EQ(a.reads, 0u) << "m " << m;
    EXPECT_EQ(a.writes, 2u * (4 + m)) << "m " << m;
    EXPECT_EQ(a.write_bytes, 2 * (4 + m) * c) << "m " << m;
    EXPECT_EQ(st.full_stripe_writes, 2u) << "m " << m;
  }
  // A request over a stripe and a half: one full-stripe write, one partial.
  a = OneWrite(5, 1, c, 0, 6 * c, &st);
  EXPECT_EQ(st.full_stripe_writes, 1u);
  EXPECT_EQ(st.rmw_writes + st.reconstruct_writes, 1u);
}

TEST(ParityTargetTest, Raid5ParityIsTheXorOfTheData) {
  const std::uint64_t c = 4 * kKiB;
  SimEngine e;
  Members mem(e, 4, 16 * c);
  auto array = mem.Array(e, 1, c);
  std::mt19937_64 rng(5);
  std::vector<std::byte> stripe = RandomBytes(rng, 3 * c);
  ASSERT_EQ(Do(e, *array, IoOp::kWrite, 3 * c, 3 * c, stripe.data()), Status::kOk);  // stripe 1
  // A partial write after it updates the parity by read-modify-write.
  std::vector<std::byte> patch = RandomBytes(rng, 1024);
  ASSERT_EQ(Do(e, *array, IoOp::kWrite, 3 * c + c + 512, 1024, patch.data()), Status::kOk);
  std::memcpy(stripe.data() + c + 512, patch.data(), 1024);
  std::vector<std::byte> parity(c);
  ASSERT_EQ(Do(e, *mem.rams[array->MemberOf(1, 3)], IoOp::kRead, c, c, parity.data()), Status::kOk);
  for (std::uint64_t i = 0; i < c; ++i) {
    ASSERT_EQ(parity[i], stripe[i] ^ stripe[c + i] ^ stripe[2 * c + i]) << i;
  }
}

// ---- Concurrency ----------------------------------------------------------------

TEST(ParityTargetTest, ConcurrentPartialWritesToOneStripeKeepParityConsistent) {
  for (int m = 1; m <= 2; ++m) {
    const int n = 4 + m;
    const std::uint64_t c = 16 * kKiB;
    SimEngine e;
    Members mem(e, n, 8 * c);
    auto array = mem.Array(e, m, c);
    std::vector<std::byte> image(array->Size());
    std::mt19937_64 rng(9);
    // 64 writes of 1k at disjoint places of stripe 2, all in flight at once:
    // each reads and rewrites the same parity.
    std::vector<std::vector<std::byte>> bufs;
    int ok = 0;
    const std::uint64_t base = 2 * 4 * c;
    for (int i = 0; i < 64; ++i) {
      const std::uint64_t off = base + static_cast<std::uint64_t>(i) * 1024;
      bufs.push_back(RandomBytes(rng, 1024));
      std::memcpy(image.data() + off, bufs.back().data(), 1024);
      array->Submit({IoOp::kWrite, 0, off, 1024, bufs.back().data()},
                    [&ok](Status st) { ok += st == Status::kOk; });
    }
    e.Run();
    EXPECT_EQ(ok, 64);
    // Parity holds every write: any member lost, the stripe reads back.
    for (unsigned mask : Subsets(n, m)) {
      auto view = mem.Array(e, m, c);
      for (int i = 0; i < n; ++i) {
        if (mask & (1u << i)) view->FailMember(i);
      }
      ReadBack r = ReadAll(e, *view, image, 4 * c);
      EXPECT_EQ(r.wrong + r.failed, 0u) << "m " << m << " mask " << mask;
    }
  }
}

// ---- More than m lost --------------------------------------------------------------

TEST(ParityTargetTest, MoreThanMLostFailsTheLostChunksNeverWrongData) {
  const std::uint64_t c = 8 * kKiB;
  SimEngine e;
  Members mem(e, 5, 16 * c);
  auto array = mem.Array(e, 2, c);  // k = 3
  std::vector<std::byte> image(array->Size());
  std::mt19937_64 rng(3);
  WriteRandom(e, *array, image, rng, 40, 3 * c);
  array->FailMember(0);
  array->FailMember(1);
  array->FailMember(3);
  std::uint64_t good = 0, failed = 0;
  std::vector<std::byte> buf(c);
  for (std::uint64_t chunk = 0; chunk < image.size() / c; ++chunk) {
    const std::uint64_t stripe = chunk / 3;
    const std::size_t member = array->MemberOf(stripe, static_cast<int>(chunk % 3));
    const Status st = Do(e, *array, IoOp::kRead, chunk * c, c, buf.data());
    if (member == 2 || member == 4) {
      // On a member still there: read as it is.
      ASSERT_EQ(st, Status::kOk);
      EXPECT_EQ(std::memcmp(buf.data(), image.data() + chunk * c, c), 0);
      ++good;
    } else {
      EXPECT_EQ(st, Status::kIoError) << "chunk " << chunk;
      ++failed;
    }
  }
  EXPECT_GT(good, 0u);
  EXPECT_GT(failed, 0u);
  std::vector<std::byte> w(4096, std::byte{1});
  EXPECT_EQ(Do(e, *array, IoOp::kWrite, 0, 4096, w.data()), Status::kIoError);
  EXPECT_GT(array->parity_stats().unavailable, 0u);
}

// ---- Rebuild -------------------------------------------------------------------

// A member with latency, so that a rebuild takes simulated time and writes
// can arrive in the middle of it.
std::unique_ptr<BlockDevice> SlowRam(Engine& e, const std::string& name, std::uint64_t size) {
  return std::make_unique<DelayTarget>(e, name + "-delay",
                                       std::make_unique<RamDevice>(e, name, size),
                                       DelayConfig{100 * kMicro, 100 * kMicro, 0});
}

TEST(ParityTargetTest, RebuildOntoAFreshDeviceThenLoseAnother) {
  for (int m = 1; m <= 3; ++m) {
    const int n = 4 + m;
    const std::uint64_t c = 8 * kKiB;
    const std::uint64_t member_size = 40 * c;
    SimEngine e;
    std::vector<std::unique_ptr<BlockDevice>> kids;
    for (int i = 0; i < n; ++i) kids.push_back(SlowRam(e, "r" + std::to_string(i), member_size));
    ParityTarget array(e, "raid", std::move(kids), m, c);
    std::vector<std::byte> image(array.Size());
    std::mt19937_64 rng(77 + m);
    WriteRandom(e, array, image, rng, 80, 4 * c);
    array.FailMember(1);
    WriteRandom(e, array, image, rng, 60, 4 * c);  // degraded

    // Rebuild onto a new device, with writes arriving every 50 us meanwhile
    // (a window of 3 stripes takes about 200 us): some land on stripes
    // already rebuilt, some on stripes still to come, some wait for a
    // window's locks. Writes to one stripe run in arrival order (its lock),
    // so the image is updated in that order too.
    Status rebuilt = Status::kShutdown;
    RebuildOptions opts;
    opts.stripes_per_step = 3;
    ASSERT_EQ(
        array.Rebuild(1, SlowRam(e, "new", member_size), opts, [&](Status st) { rebuilt = st; }),
        Status::kOk);
    EXPECT_TRUE(array.rebuilding());
    EXPECT_EQ(array.Rebuild(1, nullptr, opts, [](Status) {}), Status::kInvalid);  // busy
    std::vector<std::vector<std::byte>> bufs;
    int written = 0;
    for (int i = 0; i < 40; ++i) {
      const std::uint64_t off = (rng() % (image.size() / 4096)) * 4096;
      bufs.push_back(RandomBytes(rng, 4096));
      std::memcpy(image.data() + off, bufs.back().data(), 4096);
      array.Submit({IoOp::kWrite, 0, off, 4096, bufs.back().data()},
                   [&written](Status st) { written += st == Status::kOk; });
      e.RunUntil(e.Now() + 50 * kMicro);
    }
    EXPECT_TRUE(array.rebuilding()) << "the writes should overlap the rebuild";
    e.Run();
    EXPECT_EQ(written, 40);
    ASSERT_EQ(rebuilt, Status::kOk) << "m " << m;
    EXPECT_FALSE(array.rebuilding());
    EXPECT_EQ(array.failed_members(), 0u);
    EXPECT_EQ(array.parity_stats().rebuilt_stripes, array.stripes());
    ReadBack r = ReadAll(e, array, image, 16 * kKiB);
    EXPECT_EQ(r.wrong + r.failed, 0u) << "m " << m;
    // The rebuilt member now carries its share: lose m others and read
    // everything back through it.
    for (int i = 0; i < m; ++i) array.FailMember(static_cast<std::size_t>(2 + i));
    r = ReadAll(e, array, image, 16 * kKiB);
    EXPECT_EQ(r.wrong + r.failed, 0u) << "m " << m;
  }
}

// Members that fail under a write: reads of the old data and parity
// (read-modify-write) on one, the writes themselves on another. Each is
// failed, the write goes on degraded and completes ok, and everything
// written reads back.
TEST(ParityTargetTest, ChildErrorsUnderWritesFailTheMemberAndTheWriteGoesOn) {
  const std::uint64_t c = 8 * kKiB;
  SimEngine e;
  std::vector<std::unique_ptr<BlockDevice>> kids;
  std::vector<FaultTarget*> faults;
  for (int i = 0; i < 6; ++i) {
    auto f = std::make_unique<FaultTarget>(
        e, "f" + std::to_string(i), std::make_unique<RamDevice>(e, "r" + std::to_string(i), kMiB));
    faults.push_back(f.get());
    kids.push_back(std::move(f));
  }
  ParityTarget array(e, "raid6", std::move(kids), 2, c);
  std::vector<std::byte> image(array.Size());
  std::mt19937_64 rng(21);
  WriteRandom(e, array, image, rng, 60, 4 * c);
  FaultRule reads;
  reads.op_mask = FaultRule::Ops({IoOp::kRead});
  faults[1]->SetRules({reads});
  FaultRule writes;
  writes.op_mask = FaultRule::Ops({IoOp::kWrite});
  faults[4]->SetRules({writes});
  const std::uint64_t before = array.parity_stats().member_failures;
  WriteRandom(e, array, image, rng, 60, 4 * c);  // every write must complete ok
  EXPECT_EQ(array.parity_stats().member_failures - before, 2u);
  EXPECT_TRUE(array.member_failed(1));
  EXPECT_TRUE(array.member_failed(4));
  ReadBack r = ReadAll(e, array, image, 8 * kKiB);
  EXPECT_EQ(r.wrong + r.failed, 0u);
}

TEST(ParityTargetTest, ARebuildWhoseReplacementFailsEndsWithTheMemberStillFailed) {
  const std::uint64_t c = 8 * kKiB;
  SimEngine e;
  Members mem(e, 5, 32 * c);
  auto array = mem.Array(e, 1, c);
  std::vector<std::byte> image(array->Size());
  std::mt19937_64 rng(22);
  WriteRandom(e, *array, image, rng, 40, 4 * c);
  array->FailMember(2);
  auto bad = std::make_unique<FaultTarget>(e, "bad", std::make_unique<RamDevice>(e, "n", 32 * c));
  FaultRule later;  // the first window lands, the second fails
  later.op_mask = FaultRule::Ops({IoOp::kWrite});
  later.start = 4 * c;
  bad->SetRules({later});
  Status done = Status::kShutdown;
  RebuildOptions o;
  o.stripes_per_step = 4;
  ASSERT_EQ(array->Rebuild(2, std::move(bad), o, [&](Status st) { done = st; }), Status::kOk);
  e.Run();
  EXPECT_EQ(done, Status::kIoError);
  EXPECT_FALSE(array->rebuilding());
  EXPECT_TRUE(array->member_failed(2));
  EXPECT_EQ(array->parity_stats().rebuilt_stripes, 4u);
  ReadBack r = ReadAll(e, *array, image, 8 * kKiB);
  EXPECT_EQ(r.wrong + r.failed, 0u);
}

TEST(ParityTargetTest, RebuildRefusesWhatItCannotDo) {
  SimEngine e;
  Members mem(e, 4, 16 * 4096);
  auto array = mem.Array(e, 1, 4096);
  EXPECT_EQ(array->Rebuild(0, nullptr, {}, [](Status) {}), Status::kInvalid);  // not failed
  array->FailMember(0);
  EXPECT_EQ(array->Rebuild(0, std::make_unique<RamDevice>(e, "small", 4096), {}, [](Status) {}),
            Status::kInvalid);
  array->FailMember(1);
  EXPECT_EQ(array->Rebuild(0, nullptr, {}, [](Status) {}), Status::kIoError);  // 2 lost of m = 1
}

// ---- Timing-only ---------------------------------------------------------------------

// The same requests with and without data make the same child requests:
// a simulation without data charges the devices what the data run does.
TEST(ParityTargetTest, TimingOnlyMakesTheSameChildRequestsAsWithData) {
  for (int m = 1; m <= 3; ++m) {
    const int n = 3 + m;
    const std::uint64_t c = 16 * kKiB;
    std::vector<DeviceStats> per_mode[2];
    ParityStats parity[2];
    for (int with_data = 0; with_data < 2; ++with_data) {
      SimEngine e;
      Members mem(e, n, 32 * c);
      auto array = mem.Array(e, m, c);
      std::mt19937_64 rng(11);
      std::vector<std::byte> buf(4 * 3 * c);
      for (int i = 0; i < 400; ++i) {
        if (i == 200) array->FailMember(1);  // the second half degraded
        const std::uint64_t off = rng() % (array->Size() / 512) * 512;
        const std::uint64_t len =
            std::min<std::uint64_t>((1 + rng() % (buf.size() / 512)) * 512, array->Size() - off);
        const IoOp op = rng() % 3 == 0 ? IoOp::kRead : IoOp::kWrite;
        ASSERT_EQ(Do(e, *array, op, off, len, with_data ? buf.data() : nullptr), Status::kOk);
      }
      for (const auto& r : mem.rams) per_mode[with_data].push_back(r->stats());
      parity[with_data] = array->parity_stats();
    }
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(per_mode[0][i].read_ops, per_mode[1][i].read_ops) << "m " << m << " member " << i;
      EXPECT_EQ(per_mode[0][i].write_ops, per_mode[1][i].write_ops) << "m " << m;
      EXPECT_EQ(per_mode[0][i].read_bytes, per_mode[1][i].read_bytes) << "m " << m;
      EXPECT_EQ(per_mode[0][i].write_bytes, per_mode[1][i].write_bytes) << "m " << m;
    }
    EXPECT_EQ(parity[0].rmw_writes, parity[1].rmw_writes);
    EXPECT_EQ(parity[0].reconstruct_writes, parity[1].reconstruct_writes);
    EXPECT_EQ(parity[0].degraded_reads, parity[1].degraded_reads);
    EXPECT_GT(parity[1].degraded_reads, 0u);
  }
}

// ---- Flush and discard -------------------------------------------------------------

TEST(ParityTargetTest, FlushReachesEveryMemberLeftAndDiscardIsNotSupported) {
  SimEngine e;
  Members mem(e, 5, 16 * 4096);
  auto array = mem.Array(e, 2, 4096);
  EXPECT_EQ(Do(e, *array, IoOp::kFlush, 0, 0, nullptr), Status::kOk);
  array->FailMember(3);
  EXPECT_EQ(Do(e, *array, IoOp::kFlush, 0, 0, nullptr), Status::kOk);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(mem.rams[i]->stats().flush_ops, i == 3 ? 1u : 2u);
  EXPECT_EQ(Do(e, *array, IoOp::kDiscard, 0, 4096, nullptr), Status::kNotSupported);
  EXPECT_EQ(mem.Sum().discard_ops, 0u);
}

// ---- Real files ------------------------------------------------------------------------

// In real time over files (O_DIRECT), parity computed and lost members
// decoded as in simulation.
TEST(ParityTargetTest, RealFilesReconstructAfterAMemberIsRemoved) {
  testing::TempDir dir("tierlab-parity");
  ASSERT_FALSE(dir.path().empty());
  RealEngine e;
  const std::uint64_t c = 64 * kKiB;
  const int n = 6;
  std::vector<std::unique_ptr<BlockDevice>> kids;
  for (int i = 0; i < n; ++i) {
    FileDeviceOptions o;
    o.path = dir.Path("m" + std::to_string(i) + ".img");
    o.create = true;
    o.size = 32 * c;
    auto d = FileDevice::Open(e, "m" + std::to_string(i), o);
    ASSERT_TRUE(d.ok()) << d.error().message;
    kids.push_back(std::move(d).value());
  }
  ParityTarget array(e, "raid6", std::move(kids), 2, c);
  ASSERT_TRUE(array.RequiresData());
  std::mt19937_64 rng(12);
  std::vector<std::byte> image(array.Size());
  const std::uint64_t blocks = image.size() / 4096;
  for (int i = 0; i < 60; ++i) {
    const std::uint64_t off = rng() % blocks * 4096;
    const std::uint64_t len = std::min<std::uint64_t>((1 + rng() % 96) * 4096, image.size() - off);
    AlignedBuffer buf(len);
    for (std::uint64_t j = 0; j < len; ++j) buf.data()[j] = static_cast<std::byte>(rng());
    ASSERT_EQ(testing::SubmitAndRun(e, array, IoOp::kWrite, off, len, buf.data()), Status::kOk);
    std::memcpy(image.data() + off, buf.data(), len);
  }
  array.FailMember(0);
  array.FailMember(4);
  AlignedBuffer back(256 * kKiB);
  for (std::uint64_t off = 0; off < image.size(); off += back.size()) {
    ASSERT_EQ(testing::SubmitAndRun(e, array, IoOp::kRead, off, back.size(), back.data()),
              Status::kOk);
    ASSERT_EQ(std::memcmp(back.data(), image.data() + off, back.size()), 0) << off;
  }
}

}  // namespace
}  // namespace tierlab
