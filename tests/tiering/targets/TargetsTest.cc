// Stacking targets: data correctness on every stack shape (through the
// verification harness), geometry, splitting and error behaviour.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "tests/support/VerifyHarness.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/DelayTarget.h"
#include "tiering/targets/FaultTarget.h"
#include "tiering/targets/LinearTarget.h"
#include "tiering/targets/MirrorTarget.h"
#include "tiering/targets/RateLimitTarget.h"
#include "tiering/targets/StripeTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

std::vector<std::unique_ptr<BlockDevice>> Rams(Engine& e, int n, std::uint64_t size) {
  std::vector<std::unique_ptr<BlockDevice>> v;
  for (int i = 0; i < n; ++i)
    v.push_back(std::make_unique<RamDevice>(e, "ram" + std::to_string(i), size));
  return v;
}

Status SubmitAndWait(SimEngine& e, BlockDevice& d, IoRequest q) {
  Status got = Status::kShutdown;
  d.Submit(q, [&](Status st) { got = st; });
  e.Run();
  return got;
}

testing::VerifyOptions Opts(std::uint64_t seed) {
  testing::VerifyOptions o;
  o.ops = 3000;
  o.seed = seed;
  o.max_in_flight = 16;
  o.max_length = 256 * 1024;
  return o;
}

TEST(TargetsTest, VerifyOnRam) {
  SimEngine e;
  RamDevice d(e, "ram", 8 * kMiB);
  auto r = testing::RunVerify(e, d, Opts(1));
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_GT(r.reads, 500u);
  EXPECT_GT(r.writes, 500u);
}

// The harness itself must be able to fail: lost, torn and corrupted I/O
// below a stack is caught.
TEST(TargetsTest, HarnessCatchesLostTornAndCorruptedIo) {
  for (FaultAction action :
       {FaultAction::kLoseWrite, FaultAction::kTearWrite, FaultAction::kCorruptRead}) {
    SimEngine e;
    FaultTarget f(e, "f", std::make_unique<RamDevice>(e, "r", 4 * kMiB));
    FaultRule rule;
    rule.action = action;
    rule.op_mask =
        FaultRule::Ops({action == FaultAction::kCorruptRead ? IoOp::kRead : IoOp::kWrite});
    rule.probability = 0.05;
    f.SetRules({rule});
    auto r = testing::RunVerify(e, f, Opts(7));
    EXPECT_GT(r.mismatches, 0u) << "action " << static_cast<int>(action);
  }
  SimEngine e;
  FaultTarget f(e, "f", std::make_unique<RamDevice>(e, "r", 4 * kMiB));
  FaultRule eio;
  eio.probability = 0.01;
  f.SetRules({eio});
  auto r = testing::RunVerify(e, f, Opts(8));
  EXPECT_GT(r.errors, 0u);
  EXPECT_FALSE(r.first_problem.empty());
}

TEST(TargetsTest, VerifyOnLinearOfUnequalChildren) {
  SimEngine e;
  std::vector<std::unique_ptr<BlockDevice>> kids;
  kids.push_back(std::make_unique<RamDevice>(e, "a", 3 * kMiB));
  kids.push_back(std::make_unique<RamDevice>(e, "b", 1 * kMiB + 4096));
  kids.push_back(std::make_unique<RamDevice>(e, "c", 2 * kMiB));
  LinearTarget lin(e, "lin", std::move(kids));
  EXPECT_EQ(lin.Size(), 6 * kMiB + 4096);
  auto r = testing::RunVerify(e, lin, Opts(2));
  EXPECT_TRUE(r.ok()) << r.first_problem;
}

TEST(TargetsTest, VerifyOnStripeAndMirrorAndNested) {
  SimEngine e;
  StripeTarget st(e, "stripe", Rams(e, 4, 2 * kMiB), 64 * 1024);
  EXPECT_EQ(st.Size(), 8 * kMiB);
  auto r1 = testing::RunVerify(e, st, Opts(3));
  EXPECT_TRUE(r1.ok()) << r1.first_problem;

  MirrorTarget mir(e, "mirror", Rams(e, 3, 4 * kMiB));
  auto r2 = testing::RunVerify(e, mir, Opts(4));
  EXPECT_TRUE(r2.ok()) << r2.first_problem;

  // stripe of mirrors (RAID10) behind a delay
  std::vector<std::unique_ptr<BlockDevice>> legs;
  for (int i = 0; i < 2; ++i) {
    legs.push_back(std::make_unique<MirrorTarget>(e, std::string("m").append(std::to_string(i)),
                                                  Rams(e, 2, 2 * kMiB)));
  }
  auto raid10 = std::make_unique<StripeTarget>(e, "raid10", std::move(legs), 16 * 1024);
  DelayTarget delayed(e, "delay", std::move(raid10), DelayConfig{50 * kMicro, 80 * kMicro, 0});
  auto r3 = testing::RunVerify(e, delayed, Opts(5));
  EXPECT_TRUE(r3.ok()) << r3.first_problem;
}

TEST(TargetsTest, StripePlacesChunksRoundRobin) {
  SimEngine e;
  auto kids = Rams(e, 3, 1 * kMiB);
  std::vector<BlockDevice*> raw;
  for (auto& k : kids) raw.push_back(k.get());
  StripeTarget st(e, "stripe", std::move(kids), 4096);
  // A 5-chunk write starting at chunk 1 touches children 1,2,0,1,2.
  std::vector<std::byte> buf(5 * 4096, std::byte{7});
  ASSERT_EQ(SubmitAndWait(e, st, {IoOp::kWrite, 0, 4096, 5 * 4096, buf.data()}), Status::kOk);
  EXPECT_EQ(raw[0]->stats().write_ops, 1u);
  EXPECT_EQ(raw[1]->stats().write_ops, 2u);
  EXPECT_EQ(raw[2]->stats().write_ops, 2u);
  // Chunk 3 is child 0's chunk 1.
  std::vector<std::byte> back(4096);
  ASSERT_EQ(SubmitAndWait(e, *raw[0], {IoOp::kRead, 0, 4096, 4096, back.data()}), Status::kOk);
  EXPECT_EQ(back[0], std::byte{7});
}

TEST(TargetsTest, MirrorBalancesReadsAndWritesAllLegs) {
  SimEngine e;
  auto kids = Rams(e, 2, 1 * kMiB);
  BlockDevice* a = kids[0].get();
  BlockDevice* b = kids[1].get();
  MirrorTarget mir(e, "mirror", std::move(kids));
  for (int i = 0; i < 10; ++i) {
    mir.Submit({IoOp::kRead, 0, 0, 4096, nullptr}, [](Status) {});
  }
  e.Run();
  EXPECT_EQ(a->stats().read_ops, 5u);
  EXPECT_EQ(b->stats().read_ops, 5u);
  ASSERT_EQ(SubmitAndWait(e, mir, {IoOp::kWrite, 0, 0, 4096, nullptr}), Status::kOk);
  EXPECT_EQ(a->stats().write_ops, 1u);
  EXPECT_EQ(b->stats().write_ops, 1u);
}

TEST(TargetsTest, MirrorReadFallsBackToTheGoodLeg) {
  SimEngine e;
  std::vector<std::unique_ptr<BlockDevice>> legs;
  auto bad = std::make_unique<FaultTarget>(e, "bad", std::make_unique<RamDevice>(e, "a", kMiB));
  FaultTarget* fault = bad.get();
  legs.push_back(std::move(bad));
  legs.push_back(std::make_unique<RamDevice>(e, "b", kMiB));
  MirrorTarget mir(e, "mirror", std::move(legs));
  std::vector<std::byte> buf(4096, std::byte{9});
  ASSERT_EQ(SubmitAndWait(e, mir, {IoOp::kWrite, 0, 0, 4096, buf.data()}), Status::kOk);
  fault->FailAll(true);
  for (int i = 0; i < 4; ++i) {
    std::vector<std::byte> back(4096);
    ASSERT_EQ(SubmitAndWait(e, mir, {IoOp::kRead, 0, 0, 4096, back.data()}), Status::kOk);
    EXPECT_EQ(back[100], std::byte{9});
  }
  EXPECT_EQ(SubmitAndWait(e, mir, {IoOp::kWrite, 0, 0, 4096, buf.data()}), Status::kIoError);
}

TEST(TargetsTest, FaultTargetActions) {
  SimEngine e;
  FaultTarget f(e, "f", std::make_unique<RamDevice>(e, "r", kMiB));
  std::vector<std::byte> buf(8192, std::byte{1});
  std::vector<std::byte> back(8192);

  FaultRule lose;
  lose.op_mask = FaultRule::Ops({IoOp::kWrite});
  lose.action = FaultAction::kLoseWrite;
  lose.max_triggers = 1;
  f.SetRules({lose});
  ASSERT_EQ(SubmitAndWait(e, f, {IoOp::kWrite, 0, 0, 8192, buf.data()}), Status::kOk);
  ASSERT_EQ(SubmitAndWait(e, f, {IoOp::kRead, 0, 0, 8192, back.data()}), Status::kOk);
  EXPECT_EQ(back[0], std::byte{0}) << "lost write must not reach the device";

  FaultRule tear = lose;
  tear.action = FaultAction::kTearWrite;
  f.SetRules({tear});
  ASSERT_EQ(SubmitAndWait(e, f, {IoOp::kWrite, 0, 0, 8192, buf.data()}), Status::kOk);
  ASSERT_EQ(SubmitAndWait(e, f, {IoOp::kRead, 0, 0, 8192, back.data()}), Status::kOk);
  EXPECT_EQ(back[0], std::byte{1});
  EXPECT_EQ(back[8191], std::byte{0}) << "torn write keeps only the first half";

  FaultRule corrupt;
  corrupt.op_mask = FaultRule::Ops({IoOp::kRead});
  corrupt.action = FaultAction::kCorruptRead;
  corrupt.start = 0;
  corrupt.end = 4096;
  f.SetRules({corrupt});
  ASSERT_EQ(SubmitAndWait(e, f, {IoOp::kRead, 0, 4096, 4096, back.data()}), Status::kOk);
  EXPECT_EQ(back[0], std::byte{0}) << "outside the rule's range";
  ASSERT_EQ(SubmitAndWait(e, f, {IoOp::kRead, 0, 0, 4096, back.data()}), Status::kOk);
  EXPECT_NE(back[0], std::byte{1});

  FaultRule fail;
  fail.op_mask = FaultRule::Ops({IoOp::kFlush});
  fail.status = Status::kNoSpace;
  f.SetRules({fail});
  EXPECT_EQ(SubmitAndWait(e, f, {IoOp::kFlush, 0, 0, 0, nullptr}), Status::kNoSpace);
  EXPECT_EQ(f.rules()[0].triggered, 1u);
}

TEST(TargetsTest, DelayAddsLatencyPerOp) {
  SimEngine e;
  DelayTarget d(e, "d", std::make_unique<RamDevice>(e, "r", kMiB),
                DelayConfig{100 * kMicro, 300 * kMicro, 0});
  Nanos t0 = e.Now();
  ASSERT_EQ(SubmitAndWait(e, d, {IoOp::kRead, 0, 0, 4096, nullptr}), Status::kOk);
  EXPECT_EQ(e.Now() - t0, 100 * kMicro);
  t0 = e.Now();
  ASSERT_EQ(SubmitAndWait(e, d, {IoOp::kWrite, 0, 0, 4096, nullptr}), Status::kOk);
  EXPECT_EQ(e.Now() - t0, 300 * kMicro);
}

// Completion times of `n` requests of `op` and `length` submitted at once.
std::vector<Nanos> SubmitBurst(SimEngine& e, BlockDevice& d, IoOp op, std::uint64_t length, int n) {
  std::vector<Nanos> done;
  for (int i = 0; i < n; ++i) {
    d.Submit({op, 0, static_cast<std::uint64_t>(i) * length, length, nullptr}, [&](Status st) {
      EXPECT_EQ(st, Status::kOk);
      done.push_back(e.Now());
    });
  }
  e.Run();
  return done;
}

TEST(TargetsTest, RateLimitPacesEachDirectionAtItsRate) {
  SimEngine e;
  RateLimitTarget r(e, "r", std::make_unique<RamDevice>(e, "ram", 64 * kMiB),
                    RateLimitConfig{{1000, 0}, {0, 4 * kMiB}});  // 1000 reads/s; 4 MiB/s written
  // Ten reads at once: one every millisecond, the first at once, in order.
  Nanos t0 = e.Now();
  std::vector<Nanos> reads = SubmitBurst(e, r, IoOp::kRead, 4096, 10);
  ASSERT_EQ(reads.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(reads[i] - reads[0], i * kMilli) << i;  // paced, no burst
  }
  EXPECT_LT(reads[0] - t0, 100 * kMicro);  // the first waits for no one
  // 64 KiB writes at 4 MiB/s: 15.625 ms apart, whatever their count per second.
  t0 = e.Now();
  std::vector<Nanos> writes = SubmitBurst(e, r, IoOp::kWrite, 64 * 1024, 5);
  ASSERT_EQ(writes.size(), 5u);
  EXPECT_NEAR(static_cast<double>(writes[4] - writes[0]), 4 * 15.625e6, 2.0);
  // Directions are independent: a read during the writes' backlog is not held.
  std::vector<Nanos> mixed;
  t0 = e.Now();
  for (int i = 0; i < 3; ++i) {
    r.Submit({IoOp::kWrite, 0, 0, 64 * 1024, nullptr}, [](Status) {});
  }
  r.Submit({IoOp::kRead, 0, 0, 4096, nullptr}, [&](Status) { mixed.push_back(e.Now()); });
  r.Submit({IoOp::kFlush, 0, 0, 0, nullptr}, [&](Status) { mixed.push_back(e.Now()); });
  e.Run();
  ASSERT_EQ(mixed.size(), 2u);
  EXPECT_LT(mixed[0] - t0, 100 * kMicro);
  EXPECT_LT(mixed[1] - t0, 100 * kMicro);
  // An idle device earns no credit: after a long pause the pacing restarts.
  e.RunUntil(e.Now() + kSecond);
  t0 = e.Now();
  reads = SubmitBurst(e, r, IoOp::kRead, 4096, 3);
  EXPECT_EQ(reads[2] - reads[0], 2 * kMilli);
  EXPECT_GT(r.throttled(), 0u);
}

TEST(TargetsTest, RateLimitedStackPassesVerification) {
  SimEngine e;
  RateLimitTarget r(e, "r", std::make_unique<RamDevice>(e, "ram", 8 * kMiB),
                    RateLimitConfig{{50'000, 100 * kMiB}, {20'000, 50 * kMiB}});
  auto v = testing::RunVerify(e, r, Opts(9));
  EXPECT_TRUE(v.ok()) << v.first_problem;
  EXPECT_GT(r.throttled(), 100u);  // the throttle held requests back while verified
}

TEST(TargetsTest, BadRequestsCompleteEinvalWithoutReachingChildren) {
  SimEngine e;
  auto kids = Rams(e, 2, kMiB);
  BlockDevice* a = kids[0].get();
  StripeTarget st(e, "s", std::move(kids), 4096);
  EXPECT_EQ(SubmitAndWait(e, st, {IoOp::kRead, 0, 2 * kMiB, 4096, nullptr}), Status::kInvalid);
  EXPECT_EQ(SubmitAndWait(e, st, {IoOp::kRead, 0, 2 * kMiB - 4096, 8192, nullptr}),
            Status::kInvalid);
  EXPECT_EQ(SubmitAndWait(e, st, {IoOp::kWrite, 0, 100, 4096, nullptr}), Status::kInvalid);
  EXPECT_EQ(SubmitAndWait(e, st, {IoOp::kWrite, 0, 0, 0, nullptr}), Status::kInvalid);
  EXPECT_EQ(SubmitAndWait(e, st, {IoOp::kRead, 0, ~0ull - 4095, 4096, nullptr}), Status::kInvalid);
  EXPECT_EQ(a->stats().read_ops + a->stats().write_ops, 0u);
  EXPECT_EQ(st.stats().errors, 5u);
}

TEST(TargetsTest, ZeroSizeDevicesRejectIoButFlushCompletes) {
  SimEngine e;
  RamDevice zero(e, "zero", 0);
  EXPECT_EQ(SubmitAndWait(e, zero, {IoOp::kRead, 0, 0, 512, nullptr}), Status::kInvalid);
  StripeTarget empty(e, "empty", {}, 4096);
  EXPECT_EQ(empty.Size(), 0u);
  EXPECT_EQ(SubmitAndWait(e, empty, {IoOp::kWrite, 0, 0, 4096, nullptr}), Status::kInvalid);
  EXPECT_EQ(SubmitAndWait(e, empty, {IoOp::kFlush, 0, 0, 0, nullptr}), Status::kOk);
}

}  // namespace
}  // namespace tierlab
