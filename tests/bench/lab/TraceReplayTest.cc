// Trace replay in simulation: open-loop timing follows the trace scaled by
// replay_time_scale, closed loop ignores it, offsets wrap or are rejected.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <sstream>

#include "bench/lab/TraceReplay.h"
#include "bench/trace/TraceFactory.h"
#include "bench/trace/TraceWriter.h"
#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/SimEngine.h"

namespace tierlab {
namespace {

// An in-memory tierlab-binary trace of `n` 4 KiB writes, one per second, at
// offsets i * stride.
std::string TraceBytes(int n, std::uint64_t stride) {
  auto out = std::make_unique<std::ostringstream>();
  std::ostringstream* raw = out.get();
  auto w = CreateTraceWriter(std::move(out), "mem", TraceFormat::kTierlabBin);
  EXPECT_TRUE(w.ok());
  for (int i = 0; i < n; ++i) {
    TraceRecord r{i * kSecond, i % 2 == 0 ? IoOp::kWrite : IoOp::kRead,
                  static_cast<std::uint64_t>(i) * stride, 4096};
    EXPECT_TRUE((*w)->Write(r).ok());
  }
  EXPECT_TRUE((*w)->Close().ok());
  return raw->str();
}

struct Fixture {
  SimEngine engine;
  Volume volume;
};

std::unique_ptr<Fixture> Make(const char* capacity) {
  auto f = std::make_unique<Fixture>();
  const nlohmann::json j = nlohmann::json::parse(
      std::string(R"({"name": "t", "tiers": [{"name": "d", "preset": "ssd-hk4e", "capacity": ")") +
      capacity + "\"}]}");
  auto l = ParseLayoutJson(j, "test");
  EXPECT_TRUE(l.ok());
  auto v = BuildVolume(f->engine, *l, BuildOptions{});
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  f->volume = std::move(*v);
  return f;
}

Expected<ReplayResult> Replay(Fixture& f, const std::string& bytes, const ReplayOptions& o) {
  TraceOptions to;
  to.format = TraceFormat::kTierlabBin;
  auto r = OpenTrace(std::make_unique<std::istringstream>(bytes), "mem", to);
  EXPECT_TRUE(r.ok());
  return ReplayTrace(f.engine, f.volume.top(), **r, o);
}

TEST(TraceReplayTest, OpenLoopFollowsScaledTimestamps) {
  const std::string t = TraceBytes(5, 1 << 20);  // records at 0..4 s
  for (double scale : {100.0, 50.0, 400.0}) {
    auto f = Make("1g");
    ReplayOptions o;
    o.mode = ReplayMode::kOpen;
    o.iodepth = 8;
    o.time_scale_percent = scale;
    auto r = Replay(*f, t, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->records, 5u);
    EXPECT_EQ(r->writes, 3u);
    EXPECT_EQ(r->reads, 2u);
    EXPECT_EQ(r->trace_duration, 4 * kSecond);
    // The last record arrives at 4 s x 100 / scale and completes soon after.
    const Nanos last_arrival = static_cast<Nanos>(4 * kSecond * 100 / scale);
    EXPECT_GE(r->run.end - r->run.start, last_arrival) << scale;
    EXPECT_LT(r->run.end - r->run.start, last_arrival + 50 * kMilli) << scale;
  }
}

TEST(TraceReplayTest, ClosedLoopIgnoresTimestamps) {
  auto f = Make("1g");
  ReplayOptions o;
  o.iodepth = 1;
  auto r = Replay(*f, TraceBytes(5, 1 << 20), o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->run.completed, 5u);
  EXPECT_LT(r->run.end - r->run.start, 100 * kMilli);
  EXPECT_EQ(r->run.metrics.write().ops + r->run.metrics.read().ops, 5u);
}

TEST(TraceReplayTest, WrapOrRejectPastTheEnd) {
  // 64 MiB volume; records every 16 MiB: 0, 16, 32, 48 fit, 64..144 do not.
  const std::string t = TraceBytes(10, 16 << 20);
  {
    auto f = Make("64m");
    auto r = Replay(*f, t, ReplayOptions{});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->wrapped, 6u);
    EXPECT_EQ(r->rejected, 0u);
    EXPECT_EQ(r->run.issued, 10u);
  }
  {
    auto f = Make("64m");
    ReplayOptions o;
    o.reject_past_end = true;
    auto r = Replay(*f, t, o);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->rejected, 6u);
    EXPECT_EQ(r->run.issued, 4u);
  }
  {
    // replay_scale 4 brings every offset (max 144 MiB / 4) inside.
    auto f = Make("64m");
    ReplayOptions o;
    o.reject_past_end = true;
    o.replay_scale = 4;
    auto r = Replay(*f, t, o);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->rejected, 0u);
    EXPECT_EQ(r->run.issued, 10u);
  }
}

TEST(TraceReplayTest, BadOptions) {
  auto f = Make("64m");
  ReplayOptions o;
  o.iodepth = 0;
  auto r = Replay(*f, TraceBytes(2, 4096), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
}

TEST(TraceReplayTest, TimeScaleOutOfRangeIsRefusedNotReplayedAtFullSpeed) {
  for (double scale : {1e-300, 0.0, -5.0, 1e10, std::nan("")}) {
    auto f = Make("64m");
    ReplayOptions o;
    o.mode = ReplayMode::kOpen;
    o.time_scale_percent = scale;
    auto r = Replay(*f, TraceBytes(2, 4096), o);
    ASSERT_FALSE(r.ok()) << scale;
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
    EXPECT_NE(r.error().message.find("replay_time_scale: must be 1e-06..1e+09"), std::string::npos)
        << r.error().message;
  }
  // In range, but a late record scaled past the engine clock's range.
  auto f = Make("64m");
  auto out = std::make_unique<std::ostringstream>();
  std::ostringstream* raw = out.get();
  auto w = CreateTraceWriter(std::move(out), "mem", TraceFormat::kTierlabBin);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Write(TraceRecord{0, IoOp::kWrite, 0, 4096}).ok());
  ASSERT_TRUE((*w)->Write(TraceRecord{100000 * kSecond, IoOp::kWrite, 4096, 4096}).ok());
  ASSERT_TRUE((*w)->Close().ok());
  ReplayOptions o;
  o.mode = ReplayMode::kOpen;
  o.time_scale_percent = 1e-6;
  auto r = Replay(*f, raw->str(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  EXPECT_NE(r.error().message.find("past the engine clock's range"), std::string::npos)
      << r.error().message;
}

TEST(TraceReplayTest, IodepthAboveTheCapIsRefused) {
  auto f = Make("64m");
  ReplayOptions o;
  o.iodepth = 4294967295u;
  auto r = Replay(*f, TraceBytes(2, 4096), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "replay: iodepth: must be 1..65536, got 4294967295");
}

TEST(TraceReplayTest, ATraceWithNoRecordSaysWhatItsLinesWere) {
  // Every event is a queue (Q) or completion (C) event; records come from D.
  const std::string text =
      "  8,0    3        1     0.000000000   697  Q  WS 223490 + 8 [kjournald]\n"
      "  8,0    1        4     0.000150000     0  C  WS 223490 + 8 [0]\n"
      "  8,0    0        7     0.001200000   800  m   N cfq800 insert_request\n"
      "CPU0 (8,0):\n";
  auto f = Make("1g");
  TraceOptions to;
  to.format = TraceFormat::kBlkparse;
  auto reader = OpenTrace(std::make_unique<std::istringstream>(text), "q.blkparse", to);
  ASSERT_TRUE(reader.ok());
  auto r = ReplayTrace(f->engine, f->volume.top(), **reader, ReplayOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  EXPECT_EQ(r.error().message,
            "q.blkparse: no I/O records to replay (4 lines skipped: 3 events of other actions "
            "(C 1, Q 1, m 1; records come from D events, --blkparse-action picks another), 1 "
            "line that is not an event (summaries, messages, blank lines))");
}

}  // namespace
}  // namespace tierlab
