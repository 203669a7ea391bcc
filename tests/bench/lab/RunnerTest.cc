// The runner over real stacks: figures match the device models, the ramp is
// excluded, results are reproducible, and --real moves real bytes.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>

#include "bench/lab/RunReport.h"
#include "bench/lab/Runner.h"
#include "bench/workload/WorkloadGenerator.h"
#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "tests/support/SyncIo.h"
#include "tests/support/VerifyHarness.h"
#include "tiering/core/RealEngine.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/DevicePreset.h"
#include "tiering/devices/ModelDevice.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/FaultTarget.h"

namespace tierlab {
namespace {

LayoutSpec OneDevice(const std::string& preset, const std::string& capacity = "1g") {
  nlohmann::json j = {
      {"name", preset},
      {"tiers", {{{"name", "d"}, {"preset", preset}, {"count", 1}, {"capacity", capacity}}}}};
  auto l = ParseLayoutJson(j, "test");
  EXPECT_TRUE(l.ok());
  return *l;
}

Profile MakeProfile(const nlohmann::json& patch) {
  nlohmann::json base = {
      {"name", "t"}, {"rw", "randread"}, {"bs", "4k"}, {"iodepth", 1}, {"runtime", "2s"}};
  base.merge_patch(patch);
  auto p = ParseProfileJson(base, "test");
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return *p;
}

RunResult MustRun(Engine& e, BlockDevice& d, const Profile& p) {
  auto r = RunWorkload(e, d, p);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value()) : RunResult{};
}

TEST(RunnerTest, Qd1RandomReadOnNvmeReportsThePresetLatency) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("nvme-pm1725"), {});
  ASSERT_TRUE(v.ok());
  const RunResult r = MustRun(e, v->top(), MakeProfile(nlohmann::json::object()));
  const DevicePreset preset = *FindPreset("nvme-pm1725");
  const auto& read = r.metrics.read();
  ASSERT_GT(read.ops, 1000u);
  EXPECT_NEAR(read.lat.Mean(), static_cast<double>(preset.read_latency),
              0.01 * preset.read_latency);
  EXPECT_NEAR(read.Iops(r.metrics.window()), 1e9 / static_cast<double>(preset.read_latency),
              0.02 * 1e9 / static_cast<double>(preset.read_latency));
  EXPECT_EQ(r.metrics.write().ops, 0u);
}

TEST(RunnerTest, RampTimeIsExcludedFromTheFigures) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("nvme-pm1725"), {});
  ASSERT_TRUE(v.ok());
  const RunResult r = MustRun(e, v->top(), MakeProfile({{"ramp_time", "1s"}, {"runtime", "1s"}}));
  EXPECT_EQ(r.ramp_end - r.start, kSecond);
  EXPECT_NEAR(static_cast<double>(r.metrics.window()), 1e9, 1e6);
  // About half the I/Os issued fall in the ramp and are not counted.
  const double counted = static_cast<double>(r.metrics.complete().ops);
  EXPECT_NEAR(counted / static_cast<double>(r.issued), 0.5, 0.01);
}

TEST(RunnerTest, NumberIosAndSizeBasedRunsStop) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("nvme-pm1725", "64m"), {});
  ASSERT_TRUE(v.ok());
  RunResult r = MustRun(e, v->top(),
                        MakeProfile({{"runtime", nullptr}, {"number_ios", 777}, {"numjobs", 2}}));
  EXPECT_EQ(r.metrics.complete().ops, 2u * 777);
  // Neither runtime nor number_ios: one pass over `size` per job (fio).
  r = MustRun(e, v->top(),
              MakeProfile({{"runtime", nullptr}, {"rw", "write"}, {"size", "8m"}, {"bs", "64k"}}));
  EXPECT_EQ(r.metrics.write().bytes, 8u << 20);
}

// fio's end-of-job conditions; each count below is what fio 3.33 reports for
// the same job on a file (`fio --name=t --filename=f --size=1m --rw=read:4k
// --bs=4k` reads 128 blocks; with --loops=2 or --io_size=2m, 256).
TEST(RunnerTest, RuntimeWithoutTimeBasedStopsWhenTheBytesAreDone) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("nvme-pm1725", "64m"), {});
  ASSERT_TRUE(v.ok());
  RunResult r = MustRun(
      e, v->top(),
      MakeProfile({{"rw", "randwrite"}, {"size", "64m"}, {"runtime", "60s"}, {"iodepth", 16}}));
  EXPECT_EQ(r.metrics.write().bytes, 64u << 20);
  EXPECT_LT(r.end - r.start, 60 * kSecond);
  // time_based: runs for the runtime, over the region again and again.
  r = MustRun(e, v->top(),
              MakeProfile({{"rw", "randwrite"},
                           {"size", "64m"},
                           {"runtime", "1s"},
                           {"time_based", true},
                           {"iodepth", 16}}));
  EXPECT_GT(r.metrics.write().bytes, 2u * (64u << 20));
  EXPECT_NEAR(static_cast<double>(r.metrics.window()), 1e9, 1e6);
}

TEST(RunnerTest, LoopsIoSizeAndNumberIosAsFio) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("nvme-pm1725", "64m"), {});
  ASSERT_TRUE(v.ok());
  auto ops = [&](const nlohmann::json& patch) {
    nlohmann::json base = {{"runtime", nullptr}, {"size", "1m"}, {"iodepth", 4}};
    base.merge_patch(patch);
    const RunResult r = MustRun(e, v->top(), MakeProfile(base));
    EXPECT_EQ(r.issued, r.metrics.complete().ops);
    return r.metrics.complete().ops;
  };
  EXPECT_EQ(ops({{"rw", "read"}}), 256u);
  EXPECT_EQ(ops({{"rw", "read"}, {"loops", 3}}), 768u);
  EXPECT_EQ(ops({{"rw", "randread"}, {"io_size", "3m"}}), 768u);
  EXPECT_EQ(ops({{"rw", "read"}, {"io_size", "3m"}}), 768u);  // over the region again
  EXPECT_EQ(ops({{"rw", "read"}, {"number_ios", 100}, {"loops", 3}}), 300u);
  EXPECT_EQ(ops({{"rw", "randread"}, {"number_ios", 1000}}), 256u);  // never past the bytes
  // Holes: the pass ends at the region end, before the bytes are done.
  EXPECT_EQ(ops({{"rw", "read:4k"}}), 128u);
  EXPECT_EQ(ops({{"rw", "read:4k"}, {"loops", 2}}), 256u);
  EXPECT_EQ(ops({{"rw", "read:4k"}, {"io_size", "1m"}}), 256u);
  // time_based ignores number_ios, as fio.
  const RunResult t = MustRun(
      e, v->top(),
      MakeProfile(
          {{"runtime", "100ms"}, {"time_based", true}, {"number_ios", 10}, {"size", "1m"}}));
  EXPECT_GT(t.metrics.complete().ops, 1000u);
}

// A tier's read_delay_us is dm-delay in front of each device: QD1 reads
// take the device's latency plus the delay; writes are not delayed.
TEST(RunnerTest, ATierDelayAddsToEachReadOfItsDevices) {
  nlohmann::json j = {
      {"name", "slow"},
      {"tiers",
       {{{"name", "d"}, {"preset", "nvme-pm1725"}, {"capacity", "1g"}, {"read_delay_us", 1000}}}}};
  auto l = ParseLayoutJson(j, "slow.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  const DevicePreset preset = *FindPreset("nvme-pm1725");
  SimEngine e;
  auto v = BuildVolume(e, *l, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  const RunResult r = MustRun(e, v->top(), MakeProfile(nlohmann::json::object()));
  EXPECT_NEAR(r.metrics.read().lat.Mean(), static_cast<double>(preset.read_latency + kMilli),
              0.01 * static_cast<double>(preset.read_latency + kMilli));
  SimEngine e2;
  auto v2 = BuildVolume(e2, *l, {});
  ASSERT_TRUE(v2.ok());
  const RunResult w = MustRun(e2, v2->top(), MakeProfile({{"rw", "randwrite"}}));
  EXPECT_NEAR(w.metrics.write().lat.Mean(), static_cast<double>(preset.write_latency),
              0.02 * static_cast<double>(preset.write_latency));
}

TEST(RunnerTest, ATierRateLimitCapsItsDevicesAtAnyQueueDepth) {
  // An NVMe device throttled to 2,000 reads a second and 1 ms slower: at
  // QD64 it serves 2,000 IOPS (the limit, not the device's 750k), and by
  // Little's law each read takes 64 / 2,000 s = 32 ms. (Two such devices
  // striped would give a little under 4,000: with random placement one of
  // them sometimes has nothing queued, the closed network's balance.)
  nlohmann::json j = {{"name", "throttled"},
                      {"tiers",
                       {{{"name", "d"},
                         {"preset", "nvme-pm1725"},
                         {"capacity", "1g"},
                         {"read_delay_us", 1000},
                         {"read_iops_limit", 2000}}}}};
  auto l = ParseLayoutJson(j, "throttled.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  SimEngine e;
  auto v = BuildVolume(e, *l, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  const RunResult r = MustRun(e, v->top(), MakeProfile({{"iodepth", 64}}));
  const double iops = r.metrics.read().Iops(r.metrics.window());
  EXPECT_NEAR(iops, 2000, 10);
  EXPECT_NEAR(r.metrics.read().lat.Mean(), 32e6, 0.02 * 32e6);
  // At QD1 the limit does not bind: a read takes the device plus the delay.
  SimEngine e1;
  auto v1 = BuildVolume(e1, *l, {});
  ASSERT_TRUE(v1.ok());
  const RunResult q1 = MustRun(e1, v1->top(), MakeProfile(nlohmann::json::object()));
  const double qd1 = static_cast<double>(FindPreset("nvme-pm1725")->read_latency + kMilli);
  EXPECT_NEAR(q1.metrics.read().lat.Mean(), qd1, 0.01 * qd1);
}

TEST(RunnerTest, StartdelayDelaysTheJobsAndIsNotMeasured) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("nvme-pm1725"), {});
  ASSERT_TRUE(v.ok());
  const RunResult r = MustRun(
      e, v->top(),
      MakeProfile(
          {{"startdelay", "2s"}, {"ramp_time", "1s"}, {"runtime", "1s"}, {"time_based", true}}));
  EXPECT_EQ(r.ramp_end - r.start, 3 * kSecond);
  EXPECT_NEAR(static_cast<double>(r.metrics.window()), 1e9, 1e6);
  const RunResult plain = MustRun(
      e, v->top(), MakeProfile({{"ramp_time", "1s"}, {"runtime", "1s"}, {"time_based", true}}));
  // The same I/Os: nothing is issued during the delay.
  EXPECT_NEAR(static_cast<double>(r.issued), static_cast<double>(plain.issued),
              0.01 * static_cast<double>(plain.issued));
}

TEST(RunnerTest, SameSeedSameResultDifferentSeedDifferent) {
  auto run = [](std::uint64_t seed) {
    SimEngine e;
    auto v = BuildVolume(e, *LoadLayout("nvme2+hdd4"), {});
    Profile p = MakeProfile(
        {{"rw", "randrw"}, {"iodepth", 8}, {"numjobs", 2}, {"runtime", "1s"}, {"size", "2g"}});
    p.randseed = seed;
    auto r = RunWorkload(e, v->top(), p);
    return MakeRunJson(*r, p, *v, RunMeta{"sim", seed});
  };
  const nlohmann::json a = run(7), b = run(7), c = run(8);
  EXPECT_EQ(a.at("jobs"), b.at("jobs"));
  EXPECT_EQ(a.at("devices"), b.at("devices"));
  EXPECT_NE(a.at("jobs"), c.at("jobs"));
}

TEST(RunnerTest, OpenLoopHoldsTheRate) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("ssd-hk4e"), {});
  ASSERT_TRUE(v.ok());
  const RunResult r =
      MustRun(e, v->top(), MakeProfile({{"rate_iops", 5000}, {"iodepth", 16}, {"numjobs", 2}}));
  EXPECT_NEAR(r.metrics.complete().Iops(r.metrics.window()), 10000, 100);
  // Far below saturation: latency is the device's QD1 latency, not queueing.
  EXPECT_LT(r.metrics.read().lat.Percentile(99), 3 * FindPreset("ssd-hk4e")->read_latency);
}

// fio's rate_iops is a byte rate, that many I/Os of the smallest size
// (init.c's __setup_rate): sizes drawn from 4k-16k (4k, 8k, 12k, 16k alike,
// 10k on average) give 1000 x 4k / 10k = 400 I/Os a second, as fio 3.33.
TEST(RunnerTest, RateIopsCapsTheBytesOfTheSmallestSize) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("ssd-hk4e"), {});
  ASSERT_TRUE(v.ok());
  const RunResult r = MustRun(e, v->top(),
                              MakeProfile({{"rate_iops", 1000},
                                           {"bsrange", "4k-16k"},
                                           {"iodepth", 8},
                                           {"time_based", true},
                                           {"runtime", "20s"}}));
  const Nanos w = r.metrics.window();
  EXPECT_NEAR(r.metrics.read().BandwidthBytesPerSec(w), 1000 * 4096, 0.01 * 1000 * 4096);
  EXPECT_NEAR(r.metrics.complete().Iops(w), 400, 12);  // 8,000 I/Os: the sizes' spread
}

// fio's rate_process=poisson: the same mean rate, but exponential gaps, so
// at QD1 some arrivals find the previous I/O still in service and wait
// (with even gaps none does).
TEST(RunnerTest, PoissonArrivalsKeepTheMeanRateAndSometimesQueue) {
  const nlohmann::json base = {
      {"rate_iops", 1000}, {"time_based", true}, {"runtime", "20s"}, {"iodepth", 1}};
  Nanos p99[2] = {0, 0};
  for (const bool poisson : {false, true}) {
    SimEngine e;
    auto v = BuildVolume(e, OneDevice("ssd-hk4e"), {});
    ASSERT_TRUE(v.ok());
    nlohmann::json patch = base;
    if (poisson) patch["rate_process"] = "poisson";
    const RunResult r = MustRun(e, v->top(), MakeProfile(patch));
    // 20,000 arrivals; a Poisson count's sd is sqrt(20,000) = 141.
    EXPECT_NEAR(static_cast<double>(r.metrics.complete().ops), 20000, poisson ? 600 : 2);
    p99[poisson] = r.metrics.read().lat.Percentile(99);
  }
  const Nanos service = FindPreset("ssd-hk4e")->read_latency;
  EXPECT_LT(p99[0], service + service / 10);
  EXPECT_GT(p99[1], service + service / 3);
}

// fio's steadystate: a time-based job at a steady rate stops once a window
// of ss_dur is within the limit, and says so; an impossible limit runs on.
TEST(RunnerTest, SteadyStateStopsTheJobOnceAttained) {
  for (const bool reachable : {true, false}) {
    SimEngine e;
    auto v = BuildVolume(e, OneDevice("ssd-hk4e"), {});
    ASSERT_TRUE(v.ok());
    const RunResult r =
        MustRun(e, v->top(),
                MakeProfile({{"rate_iops", 2000},
                             {"time_based", true},
                             {"runtime", "30s"},
                             {"steadystate", reachable ? "iops:1%" : "iops_slope:0%"},
                             {"ss_dur", "5s"},
                             {"ss_ramp", "2s"}}));
    ASSERT_TRUE(r.steadystate.has_value());
    EXPECT_EQ(r.steadystate->attained(), reachable);
    const Nanos ran = r.end - r.ramp_end;
    if (reachable) {
      // Samples from 3 s (one interval after ss_ramp), five of them: 7 s.
      EXPECT_NEAR(static_cast<double>(ran), 7e9, 0.01e9);
      EXPECT_EQ(r.steadystate->Json()["data"]["iops"][0], 2000);
    } else {
      EXPECT_NEAR(static_cast<double>(ran), 30e9, 0.01e9);
    }
  }
}

TEST(RunnerTest, RejectsAProfileThatDoesNotFitTheVolume) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("nvme-pm1725", "64m"), {});
  ASSERT_TRUE(v.ok());
  auto r = RunWorkload(e, v->top(), MakeProfile({{"size", "1g"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
}

TEST(RunnerTest, RealModeMovesRealBytesThroughFiles) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("tierlab-runner-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  {
    RealEngine e;
    BuildOptions bo;
    bo.temp_dir = dir.string();
    auto v = BuildVolume(e, OneDevice("nvme-pm1725", "32m"), bo);
    ASSERT_TRUE(v.ok()) << v.error().message;
    ASSERT_EQ(v->created_files().size(), 1u);
    EXPECT_EQ(std::filesystem::file_size(v->created_files()[0]), 32u << 20);
    const RunResult r = MustRun(
        e, v->top(),
        MakeProfile(
            {{"rw", "randrw"}, {"iodepth", 8}, {"runtime", nullptr}, {"number_ios", 2000}}));
    EXPECT_EQ(r.metrics.complete().ops, 2000u);
    const DeviceStats s = v->tiers()[0].devices[0]->stats();
    EXPECT_EQ(s.read_bytes + s.write_bytes, 2000u * 4096);
    // The same stack keeps data correctly: the verification harness on it.
    testing::VerifyOptions o;
    o.ops = 1500;
    o.align = 4096;
    auto vr = testing::RunVerify(e, v->top(), o);
    EXPECT_TRUE(vr.ok()) << vr.first_problem;
  }
  // The volume removed the files it created.
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

// Records what the runner submits and hints, forwarding to a RAM device.
class HintRecorder final : public BlockDevice {
 public:
  explicit HintRecorder(Engine& e) : BlockDevice(e, "rec"), inner_(e, "ram", 1ull << 30) {}
  std::uint64_t Size() const override { return inner_.Size(); }
  std::uint32_t BlockSize() const override { return inner_.BlockSize(); }
  std::string Kind() const override { return "recorder"; }
  void PrefetchHint(IoOp op, std::uint64_t offset, int distance) override {
    (distance == 2 ? hinted2 : hinted1).push_back(offset);
    if (distance == 2) hinted2_ops.push_back(op);
  }
  std::vector<std::uint64_t> submitted, hinted1, hinted2;
  std::vector<IoOp> hinted2_ops, ops;

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    submitted.push_back(req.offset);
    ops.push_back(req.op);
    inner_.Submit(req, std::move(done));
  }

 private:
  RamDevice inner_;
};

// The runner draws requests two ahead to hint the stack: the requests and
// their order must be the generator's, and each is hinted at distance 2, then
// 1, before it is submitted.
TEST(RunnerTest, HintsEachRequestTwoAheadWithoutChangingTheRequests) {
  SimEngine e;
  HintRecorder d(e);
  const Profile p = MakeProfile(
      {{"rw", "randrw"}, {"iodepth", 4}, {"runtime", "0"}, {"number_ios", 200}, {"size", "256m"}});
  MustRun(e, d, p);
  auto g = WorkloadGenerator::Create(p, d.Size(), d.BlockSize(), 0);
  ASSERT_TRUE(g.ok());
  std::vector<std::uint64_t> seq;
  std::vector<IoOp> ops;
  for (int i = 0; i < 202; ++i) {
    const NextIo io = g->Next();
    seq.push_back(io.offset);
    ops.push_back(io.op);
  }
  ASSERT_EQ(d.submitted.size(), 200u);
  EXPECT_EQ(d.submitted, std::vector<std::uint64_t>(seq.begin(), seq.begin() + 200));
  EXPECT_EQ(d.hinted1, std::vector<std::uint64_t>(seq.begin() + 1, seq.begin() + 201));
  EXPECT_EQ(d.hinted2, std::vector<std::uint64_t>(seq.begin() + 2, seq.begin() + 202));
  EXPECT_EQ(d.hinted2_ops, std::vector<IoOp>(ops.begin() + 2, ops.begin() + 202));
  EXPECT_NE(std::count(ops.begin(), ops.end(), IoOp::kWrite), 0);
}

TEST(RunnerTest, RefusesMoreOutstandingRequestsThanTheCapBeforeAllocatingThem) {
  SimEngine e;
  RamDevice d(e, "ram", 64 << 20);
  Profile p = MakeProfile(nlohmann::json::object());
  p.iodepth = 65536;
  p.numjobs = 4096;  // each field in range; 2^28 slots would be about 17 GB
  auto r = RunWorkload(e, d, p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  EXPECT_NE(r.error().message.find("outstanding requests"), std::string::npos) << r.error().message;
}

TEST(RunnerTest, SectionsThatStartTogetherShareTheCap) {
  SimEngine e;
  RamDevice d(e, "ram", 64 << 20);
  Profile p = MakeProfile(nlohmann::json::object());
  p.iodepth = 65536;
  p.numjobs = 16;  // 2^20: the cap, for one section
  auto r = RunSections(e, d, {SectionWork{&p, {}, {}}, SectionWork{&p, {}, {}}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  EXPECT_NE(r.error().message.find("start together keep 2097152 outstanding requests"),
            std::string::npos)
      << r.error().message;
}

TEST(RunnerTest, CancelStopsASimulatedRun) {
  const LayoutSpec l = OneDevice("nvme-pm1725");
  SimEngine e;
  auto v = BuildVolume(e, l, BuildOptions{});
  ASSERT_TRUE(v.ok());
  std::atomic<bool> cancel{true};
  RunOptions o;
  o.cancel = &cancel;
  auto r = RunWorkload(e, v->top(), MakeProfile({{"runtime", "3600s"}, {"iodepth", 16}}), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cancelled"), std::string::npos);
}

// Completes each request after a latency that varies with its offset (no
// two alike in a row), recording what was submitted and how many requests
// were outstanding just before.
class DelayDevice final : public BlockDevice {
 public:
  explicit DelayDevice(Engine& e) : BlockDevice(e, "delay"), e_(e) {}
  std::uint64_t Size() const override { return 1ull << 30; }
  std::uint32_t BlockSize() const override { return 512; }
  std::string Kind() const override { return "delay"; }
  struct Submitted {
    Nanos at;
    IoOp op;
    std::uint64_t outstanding;
  };
  std::vector<Submitted> log;

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    log.push_back({e_.Now(), req.op, outstanding_});
    ++outstanding_;
    const Nanos lat = 10 * kMicro + static_cast<Nanos>((req.offset / 4096) % 97) * kMicro + n_++;
    e_.ScheduleAfter(lat, [this, d = std::move(done)]() mutable {
      --outstanding_;
      d(Status::kOk);
    });
  }

 private:
  Engine& e_;
  std::uint64_t outstanding_ = 0;
  Nanos n_ = 0;
};

// Submissions grouped by instant: (outstanding before the group, size).
std::vector<std::pair<std::uint64_t, std::size_t>> Refills(const DelayDevice& d) {
  std::vector<std::pair<std::uint64_t, std::size_t>> out;
  for (std::size_t i = 0; i < d.log.size(); ++i) {
    if (i == 0 || d.log[i].at != d.log[i - 1].at) {
      out.push_back({d.log[i].outstanding, 1});
    } else {
      ++out.back().second;
    }
  }
  return out;
}

TEST(RunnerTest, IodepthLowRefillsTheQueueOnlyOnceItIsDownToTheMark) {
  const nlohmann::json base = {{"iodepth", 8}, {"runtime", "0"}, {"number_ios", 800}};
  SimEngine e1;
  DelayDevice plain(e1);
  MustRun(e1, plain, MakeProfile(base));
  ASSERT_EQ(plain.log.size(), 800u);
  const auto one_by_one = Refills(plain);
  EXPECT_GT(one_by_one.size(), 700u);  // a slot is refilled as it completes

  SimEngine e2;
  DelayDevice low(e2);
  nlohmann::json p = base;
  p["iodepth_low"] = 2;
  const RunResult r = MustRun(e2, low, MakeProfile(p));
  ASSERT_EQ(low.log.size(), 800u);  // the same I/Os
  EXPECT_EQ(r.metrics.read().ops, 800u);
  const auto groups = Refills(low);
  ASSERT_GT(groups.size(), 2u);
  EXPECT_EQ(groups[0], std::make_pair(std::uint64_t{0}, std::size_t{8}));
  // fio's wait_for_completions: one at a time down to iodepth_low, then 6.
  for (std::size_t i = 1; i + 1 < groups.size(); ++i)
    EXPECT_EQ(groups[i], std::make_pair(std::uint64_t{2}, std::size_t{6})) << i;

  // iodepth_batch_complete_min=4: nothing is refilled until 4 completed.
  SimEngine e3;
  DelayDevice batch(e3);
  p = base;
  p["iodepth"] = 4;
  p["iodepth_batch_complete_min"] = 4;
  MustRun(e3, batch, MakeProfile(p));
  ASSERT_EQ(batch.log.size(), 800u);
  for (const auto& g : Refills(batch))
    EXPECT_EQ(g, std::make_pair(std::uint64_t{0}, std::size_t{4}));
}

// The job's submissions between two pauses: a gap of a pause or more
// between two submissions ends a group (the device takes < 0.2 ms).
std::vector<std::size_t> ThinkGroups(const DelayDevice& d, Nanos pause) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < d.log.size(); ++i) {
    if (i == 0 || d.log[i].at - d.log[i - 1].at >= pause) out.push_back(0);
    ++out.back();
  }
  return out;
}

TEST(RunnerTest, ThinktimeDrainsTheQueueAndPausesAsFioDoes) {
  // The groups are fio 3.33's (write_iolog of the same job with libaio,
  // iodepth=8, thinktime=20ms, on a file: issues between pauses). fio's
  // loop asks for a pause after each issue and each reap of a full queue;
  // a pause drains the queue, and the count it compares is taken before
  // the drain, so with thinktime_blocks=1 only one I/O is in flight after
  // the first.
  struct Case {
    std::uint32_t blocks;
    const char* type;
    std::uint64_t ios;
    std::vector<std::size_t> groups;
  };
  const std::vector<std::size_t> ones(22, 1);
  std::vector<std::size_t> eight_then_ones = {8};
  eight_then_ones.insert(eight_then_ones.end(), ones.begin(), ones.end());
  const std::vector<Case> cases = {
      {1, "complete", 30, eight_then_ones},
      {1, "issue", 30, std::vector<std::size_t>(30, 1)},
      {3, "complete", 30, {10, 1, 9, 1, 9}},
      {3, "issue", 30, std::vector<std::size_t>(10, 3)},
      {4, "complete", 40, {11, 1, 10, 1, 10, 1, 6}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.blocks) + " " + c.type);
    SimEngine e;
    DelayDevice d(e);
    MustRun(e, d,
            MakeProfile({{"iodepth", 8},
                         {"runtime", "0"},
                         {"number_ios", c.ios},
                         {"thinktime", "1ms"},
                         {"thinktime_blocks", c.blocks},
                         {"thinktime_blocks_type", c.type}}));
    ASSERT_EQ(d.log.size(), c.ios);
    EXPECT_EQ(ThinkGroups(d, kMilli), c.groups);
    // Every group after a pause starts from an empty queue.
    for (std::size_t i = 1; i < d.log.size(); ++i) {
      if (d.log[i].at - d.log[i - 1].at >= kMilli) {
        EXPECT_EQ(d.log[i].outstanding, 0u) << i;
      }
    }
  }
}

TEST(RunnerTest, AJobsLastPauseIsInItsRuntime) {
  // fio 3.33, iodepth=8, thinktime=100ms, number_ios=12 on a file (I/O in
  // ~20 us): job_runtime 503 ms with thinktime_blocks=1 (5 pauses: after
  // the first reap, then after each of the 4 single I/Os, the last too),
  // 401 ms with 3 issued (4 pauses), 200 ms with 3 completed (2 pauses; the
  // job's last I/O leaves a pause 2 short).
  struct Case {
    std::uint32_t blocks;
    const char* type;
    int pauses;
  };
  for (const Case& c : {Case{1, "complete", 5}, Case{3, "issue", 4}, Case{3, "complete", 2}}) {
    SCOPED_TRACE(std::to_string(c.blocks) + " " + c.type);
    SimEngine e;
    DelayDevice d(e);
    const RunResult r = MustRun(e, d,
                                MakeProfile({{"iodepth", 8},
                                             {"runtime", "0"},
                                             {"number_ios", 12},
                                             {"thinktime", "100ms"},
                                             {"thinktime_blocks", c.blocks},
                                             {"thinktime_blocks_type", c.type}}));
    ASSERT_EQ(r.metrics.read().ops, 12u);
    const Nanos runtime = r.end - r.ramp_end;
    EXPECT_GE(runtime, c.pauses * 100 * kMilli);
    EXPECT_LT(runtime, c.pauses * 100 * kMilli + 2 * kMilli);  // the I/Os take < 0.2 ms each
  }
}

TEST(RunnerTest, ThinktimeSpinIsClampedToThinktime) {
  // fio 3.33 clamps thinktime_spin to thinktime (its init.c), so the pause
  // is thinktime: with thinktime=1ms and thinktime_spin=2ms its iolog shows
  // gaps of about 1.07 ms.
  for (const char* spin : {"2ms", "500us"}) {
    SimEngine e;
    DelayDevice d(e);
    MustRun(
        e, d,
        MakeProfile(
            {{"runtime", "0"}, {"number_ios", 3}, {"thinktime", "1ms"}, {"thinktime_spin", spin}}));
    ASSERT_EQ(d.log.size(), 3u);
    // Depth 1: the next issue is the pause after the completion, which is
    // under 0.2 ms after the issue.
    const Nanos gap = d.log[1].at - d.log[0].at;
    EXPECT_GE(gap, kMilli) << spin;
    EXPECT_LT(gap, kMilli + kMilli / 5) << spin;
  }
}

// When the job's pauses began: the last submission before each gap of at
// least `pause` between two submissions, from the first submission.
std::vector<Nanos> PauseStarts(const DelayDevice& d, Nanos pause) {
  std::vector<Nanos> out;
  for (std::size_t i = 1; i < d.log.size(); ++i) {
    if (d.log[i].at - d.log[i - 1].at >= pause) out.push_back(d.log[i - 1].at - d.log[0].at);
  }
  return out;
}

TEST(RunnerTest, ThinktimeIotimePausesAfterThatLongOfIoAsFioDoes) {
  // fio 3.33, libaio, iodepth=4, thinktime=30ms, thinktime_iotime=40ms,
  // runtime=250ms, time_based, on a file: its write_iolog has pauses from
  // 70.0 to 100.0, 139.9 to 170.0 and 210.0 to 240.0 ms. The time counts
  // from the job's start, then from when each pause was due (before its
  // drain), so the first window of I/O is a pause longer than the others.
  // Without thinktime_blocks the count plays no part; set, even to its
  // default of 1, it pauses too, whichever comes first (fio's
  // handle_thinktime). With a ramp, the time restarts at the ramp's end, as
  // in fio 3.35 and later (3.33 keeps counting from the last pause).
  struct Case {
    nlohmann::json extra;
    std::vector<Nanos> starts;  // ms
  };
  const std::vector<Case> cases = {
      {{{"runtime", "250ms"}}, {70, 140, 210}},
      {{{"runtime", "200ms"}, {"ramp_time", "120ms"}}, {70, 190, 260}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.extra.dump());
    SimEngine e;
    DelayDevice d(e);
    nlohmann::json p = {
        {"iodepth", 4}, {"time_based", true}, {"thinktime", "30ms"}, {"thinktime_iotime", "40ms"}};
    p.update(c.extra);
    MustRun(e, d, MakeProfile(p));
    const std::vector<Nanos> starts = PauseStarts(d, 20 * kMilli);
    ASSERT_EQ(starts.size(), c.starts.size());
    for (std::size_t i = 0; i < starts.size(); ++i) {
      // Due at the first completion from then on (the device takes < 0.2
      // ms), and each window counts from the last one's due time.
      EXPECT_NEAR(static_cast<double>(starts[i]), static_cast<double>(c.starts[i] * kMilli),
                  kMilli / 2)
          << i;
    }
    EXPECT_GT(d.log.size(), 1000u);  // I/O between the pauses, at depth 4
  }
  // thinktime_blocks set to 1: a pause after the first reap, then after
  // every I/O, as without thinktime_iotime (30 ms each: 8 in 250 ms).
  SimEngine e;
  DelayDevice d(e);
  MustRun(e, d,
          MakeProfile({{"iodepth", 4},
                       {"runtime", "250ms"},
                       {"time_based", true},
                       {"thinktime", "30ms"},
                       {"thinktime_blocks", 1},
                       {"thinktime_iotime", "40ms"}}));
  EXPECT_EQ(ThinkGroups(d, 20 * kMilli), (std::vector<std::size_t>{4, 1, 1, 1, 1, 1, 1, 1, 1}));
}

TEST(RunnerTest, APauseRunsWholePastTheRuntime) {
  // fio 3.33 sleeps a pause whole (later fio caps it at the runtime):
  // iodepth=8 thinktime=1s runtime=300ms gives job_runtime 1000 ms and 8
  // I/Os; iodepth=1 thinktime=200ms runtime=300ms time_based, 400 ms.
  struct Case {
    nlohmann::json profile;
    std::uint64_t ios;
    Nanos runtime;
  };
  for (const Case& c :
       {Case{{{"iodepth", 8}, {"thinktime", "1s"}, {"runtime", "300ms"}}, 8, kSecond},
        Case{{{"thinktime", "200ms"}, {"runtime", "300ms"}, {"time_based", true}},
             2,
             400 * kMilli}}) {
    SimEngine e;
    DelayDevice d(e);
    const RunResult r = MustRun(e, d, MakeProfile(c.profile));
    EXPECT_EQ(r.metrics.read().ops, c.ios) << c.profile.dump();
    EXPECT_GE(r.end - r.ramp_end, c.runtime) << c.profile.dump();
    EXPECT_LT(r.end - r.ramp_end, c.runtime + kMilli) << c.profile.dump();
  }
}

TEST(RunnerTest, AJobThatFailsDoesNotPause) {
  // fio leaves its loop on the error before handle_thinktime: a job whose
  // first write fails (12k is no atomic write) ends at once, not after
  // its 2 s pause.
  SimEngine e;
  DelayDevice d(e);
  auto r = RunWorkload(e, d,
                       MakeProfile({{"rw", "write"},
                                    {"bs", "12k"},
                                    {"atomic", true},
                                    {"runtime", "0"},
                                    {"number_ios", 5},
                                    {"thinktime", "2s"}}));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->errors.error, EINVAL);
  EXPECT_LT(r->end - r->start, kMilli);
}

TEST(RunnerTest, ThinktimeIsRefusedWithARate) {
  for (const auto& extra : {nlohmann::json{{"rate_iops", 100}}, nlohmann::json{{"rate", "1m"}}}) {
    nlohmann::json j = {{"rw", "read"}, {"thinktime", "10"}};
    j.merge_patch(extra);
    auto p = ParseProfileJson(j, "t.json");
    ASSERT_FALSE(p.ok()) << extra.dump();
    EXPECT_NE(p.error().message.find("t.json: thinktime: with rate or rate_iops"),
              std::string::npos)
        << p.error().message;
  }
}

TEST(RunnerTest, BatchedReapingIsRefusedWithRateOrThinktime) {
  for (const auto& extra : {nlohmann::json{{"rate_iops", 100}}, nlohmann::json{{"rate", "1m"}},
                            nlohmann::json{{"thinktime", "10"}}}) {
    nlohmann::json j = {{"rw", "read"}, {"iodepth", 4}, {"iodepth_low", 1}};
    j.merge_patch(extra);
    auto p = ParseProfileJson(j, "t.json");
    ASSERT_FALSE(p.ok()) << extra.dump();
    EXPECT_NE(p.error().message.find("t.json: iodepth_low:"), std::string::npos);
  }
}

TEST(RunnerTest, FlushesAfterEveryNWritesAndAtTheEnd) {
  SimEngine e;
  DelayDevice d(e);
  const RunResult r = MustRun(e, d,
                              MakeProfile({{"rw", "write"},
                                           {"runtime", "0"},
                                           {"size", "64k"},
                                           {"iodepth", 4},
                                           {"fsync", 3},
                                           {"end_fsync", 1}}));
  std::string ops;
  for (const auto& s : d.log) ops += s.op == IoOp::kFlush ? 'F' : 'W';
  // fio's iolog of the same job: 16 writes, a sync after every third, and
  // end_fsync's after all have completed.
  EXPECT_EQ(ops, "WWWFWWWFWWWFWWWFWWWFWF");
  EXPECT_EQ(d.log.back().outstanding, 0u);
  EXPECT_EQ(r.issued, 16u);
  EXPECT_EQ(r.issued_flushes, 6u);
  EXPECT_EQ(r.metrics.sync().ops, 5u);  // as fio's sync.total_ios: not the end flush
  EXPECT_EQ(r.metrics.write().ops, 16u);
  const nlohmann::json j = r.metrics.ToJson();
  EXPECT_EQ(j["sync"]["total_ios"], 5);
  EXPECT_EQ(j["sync"]["lat_ns"]["N"], 5);
}

TEST(RunnerTest, TrimsAreDiscardsCountedAsFioTrim) {
  SimEngine e;
  DelayDevice d(e);
  const RunResult r = MustRun(
      e, d,
      MakeProfile({{"rw", "trimwrite"}, {"runtime", "0"}, {"size", "64k"}, {"bs", "4k,4k,8k"}}));
  EXPECT_EQ(r.issued_by_size[2], (std::map<std::uint64_t, std::uint64_t>{{8192, 8}}));
  EXPECT_EQ(r.issued_by_size[1], (std::map<std::uint64_t, std::uint64_t>{{4096, 15}}));
  EXPECT_EQ(r.metrics.trim().ops, 8u);
  EXPECT_EQ(r.metrics.trim().bytes, 64u * 1024);
  EXPECT_EQ(r.metrics.ToJson()["trim"]["total_ios"], 8);
  EXPECT_EQ(std::count_if(d.log.begin(), d.log.end(),
                          [](const auto& s) { return s.op == IoOp::kDiscard; }),
            8);
}

TEST(RunnerTest, PassesAndTrimwriteIssueFiosCounts) {
  // fio 3.33's I/O counts (JSON total_ios; write_iolog for the trims):
  // - a job does `loops` passes of `size`, then, with io_size, more passes
  //   while less than io_size is done by at least its largest block, all
  //   within io_size x loops (backend.c's keep_running, io_bytes_exceeded);
  // - a trimwrite pass trims and writes it all, io_size counts both, and
  //   number_ios is doubled as the bytes (backend.c);
  // - a trimwrite job issues no flush whatever fsync says: set_rw_ddir
  //   turns it into the next trim or write.
  struct Case {
    nlohmann::json profile;
    std::uint64_t reads, writes, trims;
  };
  const std::vector<Case> cases = {
      {{{"rw", "write"}, {"bs", "16k"}, {"size", "32k"}, {"io_size", "40k"}}, 0, 2, 0},
      {{{"rw", "write"}, {"size", "32k"}, {"io_size", "48k"}, {"loops", 2}}, 0, 16, 0},
      {{{"rw", "write"}, {"size", "32k"}, {"io_size", "100k"}, {"loops", 2}}, 0, 32, 0},
      {{{"rw", "read"}, {"size", "32k"}, {"io_size", "80k"}}, 20, 0, 0},
      // Passes of 8k (holes): after the loops, 16k done of 20k, so one more.
      {{{"rw", "read:4k"}, {"size", "16k"}, {"io_size", "20k"}, {"loops", 2}}, 6, 0, 0},
      {{{"rw", "randread"}, {"size", "32k"}, {"io_size", "100k"}, {"loops", 3}}, 32, 0, 0},
      {{{"rw", "trim"}, {"bs", "8k"}, {"size", "64k"}, {"io_size", "100k"}, {"loops", 2}},
       0,
       0,
       16},
      {{{"rw", "trimwrite"}, {"size", "16k"}, {"loops", 2}}, 0, 8, 8},
      {{{"rw", "trimwrite"}, {"size", "16k"}, {"io_size", "32k"}}, 0, 4, 4},
      {{{"rw", "trimwrite"}, {"size", "16k"}, {"number_ios", 3}}, 0, 3, 3},
      {{{"rw", "randtrimwrite"}, {"bs", "8k"}, {"size", "128k"}, {"number_ios", 6}}, 0, 6, 6},
      {{{"rw", "trimwrite"}, {"size", "16k"}, {"fsync", 1}}, 0, 4, 4},
      {{{"rw", "randtrimwrite"}, {"size", "32k"}, {"fsync", 3}}, 0, 8, 8},
  };
  for (const Case& c : cases) {
    SimEngine e;
    DelayDevice d(e);
    nlohmann::json p = c.profile;
    p["runtime"] = "0";
    const RunResult r = MustRun(e, d, MakeProfile(p));
    EXPECT_EQ(r.metrics.read().ops, c.reads) << p.dump();
    EXPECT_EQ(r.metrics.write().ops, c.writes) << p.dump();
    EXPECT_EQ(r.metrics.trim().ops, c.trims) << p.dump();
    EXPECT_EQ(std::count_if(d.log.begin(), d.log.end(),
                            [](const auto& s) { return s.op == IoOp::kFlush; }),
              0)
        << p.dump();
  }
  // fio counts a trimwrite job's writes against its bytes, so every trim
  // gets its write, whatever sizes bsrange draws.
  SimEngine e;
  DelayDevice d(e);
  const RunResult r = MustRun(e, d,
                              MakeProfile({{"rw", "randtrimwrite"},
                                           {"bsrange", "4k-16k"},
                                           {"size", "32k"},
                                           {"loops", 3},
                                           {"runtime", "0"}}));
  EXPECT_EQ(r.metrics.trim().ops, r.metrics.write().ops);
  EXPECT_EQ(r.metrics.trim().bytes, r.metrics.write().bytes);
  EXPECT_GE(r.metrics.write().bytes, 3u * 32 * 1024);
}

TEST(RunnerTest, RateHoldsTheBandwidth) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("ssd-hk4e"), {});
  ASSERT_TRUE(v.ok());
  const RunResult r = MustRun(
      e, v->top(), MakeProfile({{"rate", "4m"}, {"bs", "8k"}, {"iodepth", 8}, {"time_based", 1}}));
  EXPECT_NEAR(r.metrics.read().BandwidthBytesPerSec(r.metrics.window()), 4 << 20, 0.01 * (4 << 20));
  // bssplit: the cap is on bytes, so the IOPS follow the mean size.
  SimEngine e2;
  auto v2 = BuildVolume(e2, OneDevice("ssd-hk4e"), {});
  ASSERT_TRUE(v2.ok());
  const RunResult s = MustRun(
      e2, v2->top(),
      MakeProfile(
          {{"rate", "4m"}, {"bssplit", "4k/50:60k/50"}, {"iodepth", 8}, {"time_based", 1}}));
  EXPECT_NEAR(s.metrics.read().BandwidthBytesPerSec(s.metrics.window()), 4 << 20, 0.03 * (4 << 20));
}

TEST(RunnerTest, RateMinFailsTheRunWithFiosMessage) {
  SimEngine e;
  auto v = BuildVolume(e, OneDevice("ssd-hk4e"), {});
  ASSERT_TRUE(v.ok());
  auto r = RunWorkload(
      e, v->top(),
      MakeProfile({{"rate", "1m"}, {"rate_min", "2m"}, {"runtime", "5s"}, {"time_based", 1}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInconsistent);
  EXPECT_NE(r.error().message.find("profile 't': rate_min=2097152B/s not met, got 10"),
            std::string::npos)
      << r.error().message;
  SimEngine e2;
  auto v2 = BuildVolume(e2, OneDevice("ssd-hk4e"), {});
  ASSERT_TRUE(v2.ok());
  auto iops = RunWorkload(
      e2, v2->top(),
      MakeProfile(
          {{"rate_iops", 100}, {"rate_iops_min", 200}, {"runtime", "5s"}, {"time_based", 1}}));
  ASSERT_FALSE(iops.ok());
  EXPECT_NE(iops.error().message.find("rate_iops_min=200 not met, got 100 IOPS"), std::string::npos)
      << iops.error().message;
  // Met: the run ends normally.
  SimEngine e3;
  auto v3 = BuildVolume(e3, OneDevice("ssd-hk4e"), {});
  ASSERT_TRUE(v3.ok());
  MustRun(e3, v3->top(),
          MakeProfile({{"rate", "4m"}, {"rate_min", "2m"}, {"runtime", "5s"}, {"time_based", 1}}));
}
// fio's continue_on_error: a RAM disk whose writes fail from 64 KiB to
// 72 KiB (two 4 KiB blocks), under a sequential writer at QD1.
struct FailingWrites {
  SimEngine e;
  FaultTarget disk;
  explicit FailingWrites(Status status = Status::kIoError)
      : disk(e, "fault", std::make_unique<RamDevice>(e, "ram", 1 << 20)) {
    FaultRule rule;
    rule.op_mask = FaultRule::Ops({IoOp::kWrite});
    rule.start = 64 << 10;
    rule.end = 72 << 10;
    rule.status = status;
    disk.SetRules({rule});
  }
  RunResult Run(const nlohmann::json& patch) {
    nlohmann::json j = {{"rw", "write"}, {"runtime", "0"}, {"size", "256k"}, {"end_fsync", 1}};
    j.merge_patch(patch);
    return MustRun(e, disk, MakeProfile(j));
  }
};

TEST(RunnerTest, AnErrorEndsTheJobByDefaultAsFiosDoes) {
  FailingWrites f;
  const RunResult r = f.Run(nlohmann::json::object());
  EXPECT_EQ(r.issued, 17u);  // 16 good writes, then the one that fails
  EXPECT_EQ(r.metrics.write().ops, 16u);
  EXPECT_EQ(r.metrics.write().errors, 1u);
  EXPECT_EQ(r.errors.error, EIO);
  EXPECT_TRUE(r.errors.ended_job);
  EXPECT_EQ(r.errors.total, 0u);
  EXPECT_EQ(r.issued_flushes, 0u);  // a failed job does no end_fsync (fio's do_io)
}

TEST(RunnerTest, ContinueOnErrorGoesOnAfterEioAndCountsIt) {
  FailingWrites f;
  const RunResult r = f.Run({{"continue_on_error", "write"}});
  EXPECT_EQ(r.issued, 64u);
  EXPECT_EQ(r.metrics.write().ops, 62u);
  EXPECT_EQ(r.errors.total, 2u);
  EXPECT_EQ(r.errors.first, EIO);
  EXPECT_EQ(r.errors.error, EIO);  // fio reports the first error as the job's
  EXPECT_FALSE(r.errors.ended_job);
  EXPECT_EQ(r.issued_flushes, 1u);
  // A read error is not a write error.
  FailingWrites g;
  EXPECT_TRUE(g.Run({{"continue_on_error", "read"}}).errors.ended_job);
}

TEST(RunnerTest, IgnoreErrorNamesTheErrorsAJobGoesOnAfter) {
  FailingWrites f(Status::kNoSpace);
  EXPECT_EQ(f.Run({{"continue_on_error", "write"}}).issued, 17u);  // ENOSPC is not "non-fatal"
  FailingWrites g(Status::kNoSpace);
  const RunResult r = g.Run({{"ignore_error", ",ENOSPC"}});
  EXPECT_EQ(r.issued, 64u);
  EXPECT_EQ(r.errors.first, ENOSPC);
}

TEST(RunnerTest, FillDeviceEndsTheJobAtEnospcWithoutAnError) {
  FailingWrites f(Status::kNoSpace);
  const RunResult r = f.Run({{"fill_device", 1}});
  EXPECT_EQ(r.issued, 17u);
  EXPECT_EQ(r.errors.error, 0);
  EXPECT_EQ(r.issued_flushes, 1u);  // not a failure: its end_fsync still runs
}

// A device whose requests each take `unit` per request in flight when they
// arrive: latency grows with the queue, as a saturated device's does.
class QueueBoundDevice final : public BlockDevice {
 public:
  QueueBoundDevice(Engine& e, Nanos unit) : BlockDevice(e, "queue"), unit_(unit) {}
  std::uint64_t Size() const override { return 1ull << 30; }
  std::uint32_t BlockSize() const override { return 4096; }
  std::string Kind() const override { return "queue"; }
  std::uint32_t deepest = 0;

 protected:
  void SubmitImpl(const IoRequest&, IoCallback done) override {
    deepest = std::max(deepest, in_flight());
    engine().ScheduleAt(engine().Now() + unit_ * in_flight(),
                        [this, d = std::move(done)]() mutable { Finish(d, Status::kOk); });
  }

 private:
  Nanos unit_;
};

TEST(RunnerTest, LatencyTargetFindsTheDeepestQueueThatMeetsIt) {
  SimEngine e;
  QueueBoundDevice d(e, 100 * kMicro);  // depth 10: 1 ms
  const Profile p = MakeProfile({{"iodepth", 64},
                                 {"runtime", "0"},
                                 {"size", "1g"},
                                 {"latency_target", "1ms"},
                                 {"latency_window", "100ms"},
                                 {"latency_percentile", 99}});
  const RunResult r = MustRun(e, d, p);
  EXPECT_EQ(r.latency_depth, 10u);
  EXPECT_GT(d.deepest, 10u);  // the search went past it
  // The figures are the final run's, at depth 10: within the target.
  EXPECT_LE(r.metrics.read().lat.Max(), kMilli);
  EXPECT_GT(r.ramp_end, r.start);
  EXPECT_NEAR(static_cast<double>(r.metrics.window()), 100e6, 2e6);
  EXPECT_EQ(r.errors.error, 0);
  // Without it the job keeps 64 in flight: 6.4 ms.
  SimEngine e2;
  QueueBoundDevice d2(e2, 100 * kMicro);
  const RunResult full = MustRun(e2, d2, MakeProfile({{"iodepth", 64}, {"number_ios", 1000}}));
  EXPECT_GT(full.metrics.read().lat.Max(), 6 * kMilli);
}

TEST(RunnerTest, LatencyTargetMissedAtDepthOneEndsTheJobWithEtimedout) {
  SimEngine e;
  QueueBoundDevice d(e, 2 * kMilli);
  const RunResult r =
      MustRun(e, d, MakeProfile({{"iodepth", 8}, {"runtime", "0"}, {"latency_target", "1ms"}}));
  EXPECT_EQ(r.issued, 1u);
  EXPECT_EQ(r.errors.error, ETIMEDOUT);
  EXPECT_TRUE(r.errors.ended_job);
}

TEST(RunnerTest, AtomicWritesThatAreNotAPowerOfTwoFailWithEinval) {
  SimEngine e;
  RamDevice d(e, "ram", 64 << 20);
  const RunResult ok = MustRun(
      e, d,
      MakeProfile({{"rw", "randwrite"}, {"number_ios", 100}, {"atomic", 1}, {"runtime", "0"}}));
  EXPECT_EQ(ok.metrics.write().ops, 100u);
  const RunResult bad =
      MustRun(e, d, MakeProfile({{"rw", "write"}, {"bs", "12k"}, {"atomic", 1}, {"runtime", "0"}}));
  EXPECT_EQ(bad.issued, 1u);
  EXPECT_EQ(bad.errors.error, EINVAL);
  EXPECT_EQ(d.stats().write_ops, 100u);  // the refused write never reached the device
  // A job that does not write is not concerned (fio turns atomic off for it).
  EXPECT_EQ(MustRun(e, d, MakeProfile({{"bs", "12k"}, {"atomic", 1}, {"number_ios", 10}})).issued,
            10u);
}

TEST(RunnerTest, VerifyBacklogReadsBackWhileWriting) {
  SimEngine e;
  HintRecorder d(e);
  const RunResult r = MustRun(e, d,
                              MakeProfile({{"rw", "write"},
                                           {"size", "40k"},
                                           {"runtime", "0"},
                                           {"verify", "crc32c"},
                                           {"verify_backlog", 4}}));
  std::string ops;
  for (IoOp op : d.ops) ops += op == IoOp::kRead ? 'r' : 'w';
  EXPECT_EQ(ops, "wwwwrrrrwwwwrrrrwwrr");  // the last two: the verify phase
  EXPECT_EQ(r.verify.reads, 10u);
}

// A RAM disk that lands each request later the earlier it came (of every
// 32 in turn): two writes to one block in flight together land newest
// first, as io_uring's workers may land them on a file being allocated.
class NewestFirstDevice final : public BlockDevice {
 public:
  explicit NewestFirstDevice(Engine& e) : BlockDevice(e, "newest-first"), ram_(e, "ram", 8 << 20) {}
  std::uint64_t Size() const override { return ram_.Size(); }
  std::uint32_t BlockSize() const override { return ram_.BlockSize(); }
  bool RequiresData() const override { return true; }
  std::string Kind() const override { return "newest-first"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    const std::uint64_t id = count_++;
    const Nanos delay = (32 - static_cast<Nanos>(id % 32)) * 10 * kMicro;
    waiting_.emplace(id, Waiting{req, std::move(done)});
    engine().ScheduleAt(engine().Now() + delay, [this, id] {
      ram_.Submit(waiting_.at(id).req, [this, id](Status st) {
        IoCallback d = std::move(waiting_.at(id).done);
        waiting_.erase(id);
        Finish(d, st);
      });
    });
  }

 private:
  struct Waiting {
    IoRequest req;
    IoCallback done;
  };
  RamDevice ram_;
  std::uint64_t count_ = 0;
  std::map<std::uint64_t, Waiting> waiting_;
};

// Without a random map a verifying job's random writes hit some block twice
// while the first is in flight; were both in flight together, the device
// could land them in either order and verify would report the older as a
// mismatch the volume did not make. They are serialized (fio's
// serialize_overlap), so verify finds nothing, and says how many waited.
TEST(RunnerTest, AVerifyingJobNeverHasTwoOverlappingIosInFlight) {
  SimEngine e;
  NewestFirstDevice d(e);
  const RunResult r = MustRun(e, d,
                              MakeProfile({{"rw", "randwrite"},
                                           {"size", "1m"},
                                           {"iodepth", 16},
                                           {"time_based", 1},
                                           {"runtime", "200ms"},
                                           {"norandommap", true},
                                           {"verify", "crc32c"},
                                           {"verify_backlog", 8}}));
  EXPECT_TRUE(r.verify.checked);
  EXPECT_GT(r.verify.reads, 1000u);
  EXPECT_EQ(r.verify.mismatches, 0u);
  EXPECT_EQ(r.errors.error, 0);
  // 256 blocks, 15 others in flight: one write in 17 finds one on its block.
  EXPECT_GT(r.metrics.write().ops, 2000u);
  EXPECT_GT(r.verify.overlaps_held, r.metrics.write().ops / 40);
}

TEST(RunnerTest, CmdprioPercentageGivesThatShareOfIosItsPriority) {
  SimEngine e;
  RamDevice d(e, "ram", 64 << 20);
  const Profile p = MakeProfile({{"number_ios", 4000},
                                 {"runtime", "0"},
                                 {"prioclass", 3},
                                 {"cmdprio_percentage", 20},
                                 {"cmdprio_class", 1}});
  const RunResult r = MustRun(e, d, p);
  const nlohmann::json prios = r.prios.Json(0);
  ASSERT_EQ(prios.size(), 2u) << prios.dump();
  EXPECT_EQ(prios[0]["prioclass"], 3);  // the job's own first
  EXPECT_EQ(prios[1]["prioclass"], 1);
  const double rt = prios[1]["clat_ns"]["N"].get<double>();
  EXPECT_NEAR(rt / 4000, 0.2, 0.03);
  EXPECT_TRUE(r.prios.Json(1).is_null());  // no writes
}

// fio's buffer options reach the volume's data: dedupe_percentage=100
// writes one buffer everywhere, zero_buffers zeros.
TEST(RunnerTest, TheWritesCarryWhatTheBufferOptionsSay) {
  SimEngine e;
  ModelOptions mo;
  mo.capacity = 16 << 20;
  mo.with_data = true;
  auto d = MakeModelDevice(e, *FindPreset("ssd-hk4e"), "ssd", mo);
  MustRun(e, *d,
          MakeProfile({{"rw", "write"},
                       {"size", "64k"},
                       {"runtime", "0"},
                       {"iodepth", 4},
                       {"dedupe_percentage", 100}}));
  MustRun(e, *d,
          MakeProfile({{"rw", "write"},
                       {"size", "64k"},
                       {"offset", "1m"},
                       {"runtime", "0"},
                       {"zero_buffers", 1}}));
  std::vector<std::byte> a(4096), b(4096);
  ASSERT_EQ(testing::SubmitAndRun(e, *d, IoOp::kRead, 0, 4096, a.data()), Status::kOk);
  ASSERT_EQ(testing::SubmitAndRun(e, *d, IoOp::kRead, 60 << 10, 4096, b.data()), Status::kOk);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, std::vector<std::byte>(4096));
  ASSERT_EQ(testing::SubmitAndRun(e, *d, IoOp::kRead, (1 << 20) + 8192, 4096, b.data()),
            Status::kOk);
  EXPECT_EQ(b, std::vector<std::byte>(4096));
}

}  // namespace
}  // namespace tierlab
