// Layout parsing, shorthand expansion and stack building.

#include <gtest/gtest.h>

#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "tests/support/SyncIo.h"
#include "tests/support/VerifyHarness.h"
#include "tiering/core/SimEngine.h"
#include "tiering/targets/LogStructuredTarget.h"
#include "tiering/targets/ParityTarget.h"
#include "tiering/tier/TierTarget.h"

namespace tierlab {
namespace {

LayoutSpec MustLoad(const std::string& name) {
  auto l = LoadLayout(name);
  EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message);
  return l.ok() ? *l : LayoutSpec{};
}

std::string ErrorOf(const nlohmann::json& j) {
  auto l = ParseLayoutJson(j, "x.json");
  if (l.ok()) {
    SimEngine e;
    auto v = BuildVolume(e, *l, {});
    return v.ok() ? "" : v.error().message;
  }
  EXPECT_EQ(l.error().kind, ErrorKind::kInput);
  return l.error().message;
}

TEST(LayoutTest, HybridShorthandCachesReadsAndWrites) {
  const LayoutSpec l = MustLoad("nvme2+hdd4");
  ASSERT_EQ(l.tiers.size(), 2u);
  EXPECT_EQ(l.tiers[0].name, "cache");
  EXPECT_EQ(l.tiers[0].preset.type, DeviceType::kNvme);
  EXPECT_EQ(l.tiers[0].count, 2u);
  EXPECT_EQ(l.tiers[1].preset.type, DeviceType::kHdd);
  EXPECT_EQ(l.tiers[1].count, 4u);
  ASSERT_TRUE(l.cache);
  EXPECT_TRUE(l.cache->config.read);
  EXPECT_EQ(l.cache->config.write, WriteMode::kWriteBack);
}

TEST(LayoutTest, AllFlashShorthandCachesWritesOnly) {
  const LayoutSpec l = MustLoad("nvme4+ssd4");
  ASSERT_TRUE(l.cache);
  EXPECT_FALSE(l.cache->config.read);
  EXPECT_EQ(l.cache->config.write, WriteMode::kWriteOnly);
}

TEST(LayoutTest, ThreeTypesCacheOverSsdAndHdd) {
  // Order of the parts does not matter: the fastest type is the cache.
  const LayoutSpec l = MustLoad("hdd4+ssd4+nvme2");
  ASSERT_EQ(l.tiers.size(), 3u);
  EXPECT_EQ(l.tiers[0].preset.type, DeviceType::kNvme);
  EXPECT_EQ(l.tiers[1].preset.type, DeviceType::kSsd);
  EXPECT_EQ(l.tiers[2].preset.type, DeviceType::kHdd);
  ASSERT_TRUE(l.cache);
  EXPECT_TRUE(l.cache->config.read);
  EXPECT_TRUE(l.cache->read_hdd);  // S2D: reads are cached for the HDDs only
  EXPECT_EQ(l.cache->config.write, WriteMode::kWriteBack);
  EXPECT_EQ(LayoutToJson(l).at("cache").at("read"), "hdd");
}

// Storage Spaces Direct binds the cache to the capacity devices and caches
// reads only for HDDs. With SSD and HDD capacity tiers, a read miss on an
// extent the tier target holds on the SSD tier is not promoted; one on the
// HDD tier is; writes are cached for both.
TEST(LayoutTest, ThreeTypesCacheReadsOfHddExtentsOnly) {
  nlohmann::json j = LayoutToJson(MustLoad("nvme1+ssd1+hdd1"));
  j["size"] = "80g";  // 64 GiB fit the SSD; fixed provisioning puts the rest on the HDD
  auto spec = ParseLayoutJson(j, "x.json");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  SimEngine e;
  auto v = BuildVolume(e, *spec, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_NE(v->cache(), nullptr);
  ASSERT_NE(v->tier_target(), nullptr);
  const std::uint64_t on_ssd = 4096, on_hdd = 70ull << 30;
  ASSERT_EQ(v->tier_target()->PlacementAt(on_ssd)->tier, 0u);
  ASSERT_EQ(v->tier_target()->PlacementAt(on_hdd)->tier, 1u);

  BlockDevice& top = v->top();
  ASSERT_EQ(testing::SubmitAndRun(e, top, IoOp::kRead, on_ssd, 4096), Status::kOk);
  EXPECT_EQ(v->cache()->cache_stats().promotions, 0u);
  ASSERT_EQ(testing::SubmitAndRun(e, top, IoOp::kRead, on_hdd, 4096), Status::kOk);
  EXPECT_EQ(v->cache()->cache_stats().promotions, 1u);
  ASSERT_EQ(testing::SubmitAndRun(e, top, IoOp::kWrite, on_ssd + 8192, 4096), Status::kOk);
  EXPECT_EQ(v->cache()->cache_stats().dirty_lines, 1u);

  // The same layout with "read": true caches the SSD extent's read too.
  j["cache"]["read"] = true;
  auto all = ParseLayoutJson(j, "x.json");
  ASSERT_TRUE(all.ok()) << all.error().message;
  SimEngine e2;
  auto v2 = BuildVolume(e2, *all, {});
  ASSERT_TRUE(v2.ok()) << v2.error().message;
  ASSERT_EQ(testing::SubmitAndRun(e2, v2->top(), IoOp::kRead, on_ssd, 4096), Status::kOk);
  EXPECT_EQ(v2->cache()->cache_stats().promotions, 1u);

  j["cache"]["read"] = "ssd";
  EXPECT_EQ(ErrorOf(j),
            "x.json: cache.read: must be true/false, \"on\"/\"off\" or \"hdd\", got \"ssd\"");
}

TEST(LayoutTest, SlashMeansTiersWithoutCache) {
  const LayoutSpec l = MustLoad("ssd4/hdd4");
  EXPECT_FALSE(l.cache);
  EXPECT_EQ(l.tiers.size(), 2u);
}

TEST(LayoutTest, BadShorthandNamesThePart) {
  auto l = LoadLayout("nvme2+floppy4");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("\"floppy4\""), std::string::npos) << l.error().message;
  EXPECT_FALSE(LoadLayout("nvme2+nvme4").ok());
  EXPECT_FALSE(LoadLayout("nvme0+hdd4").ok());
  auto missing = LoadLayout("no/such/layout.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no/such/layout.json"), std::string::npos);
}

TEST(LayoutTest, RoundTripsThroughJson) {
  const LayoutSpec l = MustLoad("nvme2+ssd4+hdd4");
  auto again = ParseLayoutJson(LayoutToJson(l), "again");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(LayoutToJson(*again), LayoutToJson(l));
}

// A tier's engine is read and written back; the default (auto) is left out,
// so layouts written before the key existed keep their cell ids.
TEST(LayoutTest, TheTierEngineRoundTripsAndItsDefaultIsNotWritten) {
  nlohmann::json j = {{"name", "e"},
                      {"tiers",
                       {{{"name", "a"}, {"preset", "nvme-pm1725"}, {"engine", "libaio"}},
                        {{"name", "b"}, {"preset", "hdd-7200"}}}}};
  auto l = ParseLayoutJson(j, "e.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->tiers[0].engine, FileEngine::kLibaio);
  EXPECT_EQ(l->tiers[1].engine, FileEngine::kAuto);
  const nlohmann::json out = LayoutToJson(*l);
  EXPECT_EQ(out["tiers"][0]["engine"], "libaio");
  EXPECT_FALSE(out["tiers"][1].contains("engine"));
  EXPECT_FALSE(LayoutAsWrittenJson(*l)["tiers"][1].contains("engine"));
}

// A tier's delays are read in microseconds and written back only when set.
TEST(LayoutTest, TierDelaysRoundTripAndAreLeftOutWhenZero) {
  nlohmann::json j = {{"name", "d"},
                      {"tiers",
                       {{{"name", "a"}, {"preset", "nvme-pm1725"}},
                        {{"name", "b"},
                         {"preset", "ssd-hk4e"},
                         {"read_delay_us", 1500},
                         {"write_delay_us", 0.5}}}}};
  auto l = ParseLayoutJson(j, "d.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->tiers[1].read_delay, 1'500'000);
  EXPECT_EQ(l->tiers[1].write_delay, 500);
  EXPECT_EQ(l->tiers[0].read_delay, 0);
  const nlohmann::json out = LayoutToJson(*l);
  EXPECT_EQ(out["tiers"][1]["read_delay_us"], 1500.0);
  EXPECT_EQ(out["tiers"][1]["write_delay_us"], 0.5);
  EXPECT_FALSE(out["tiers"][0].contains("read_delay_us"));
  EXPECT_FALSE(LayoutAsWrittenJson(*l)["tiers"][0].contains("write_delay_us"));
  j["tiers"][1]["read_delay_us"] = -1;
  EXPECT_EQ(ErrorOf(j).rfind("x.json: tiers[1].read_delay_us: must be", 0), 0u) << ErrorOf(j);
}

TEST(LayoutTest, TierRateLimitsRoundTripAndAreLeftOutWhenZero) {
  nlohmann::json j = {{"name", "r"},
                      {"tiers",
                       {{{"name", "a"}, {"preset", "nvme-pm1725"}},
                        {{"name", "b"},
                         {"preset", "ssd-hk4e"},
                         {"read_iops_limit", 2000},
                         {"write_iops_limit", 150.5},
                         {"read_bw_limit", "200m"},
                         {"write_bw_limit", "64k"}}}}};
  auto l = ParseLayoutJson(j, "r.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->tiers[1].read_iops_limit, 2000.0);
  EXPECT_EQ(l->tiers[1].write_iops_limit, 150.5);
  EXPECT_EQ(l->tiers[1].read_bw_limit, 200u << 20);
  EXPECT_EQ(l->tiers[1].write_bw_limit, 64u << 10);
  const nlohmann::json out = LayoutToJson(*l);
  EXPECT_EQ(out["tiers"][1]["read_iops_limit"], 2000.0);
  EXPECT_EQ(out["tiers"][1]["read_bw_limit"], "200m");
  for (const char* k : {"read_iops_limit", "write_iops_limit", "read_bw_limit", "write_bw_limit"}) {
    EXPECT_FALSE(out["tiers"][0].contains(k)) << k;
  }
  auto again = ParseLayoutJson(out, "again");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->tiers[1].write_bw_limit, 64u << 10);
  j["tiers"][1]["read_iops_limit"] = -5;
  EXPECT_EQ(ErrorOf(j).rfind("x.json: tiers[1].read_iops_limit: must be", 0), 0u) << ErrorOf(j);
  j["tiers"][1]["read_iops_limit"] = 1;
  j["tiers"][1]["read_bw_limit"] = "fast";
  EXPECT_EQ(ErrorOf(j).rfind("x.json: tiers[1].read_bw_limit:", 0), 0u) << ErrorOf(j);
}

// A user's text in an error is quoted with control bytes as '?', so the
// message stays one line (ConfigJsonFuzz: a matrix's "mode": "\nsim").
TEST(LayoutTest, ErrorsShowAUsersTextOnOneLine) {
  nlohmann::json j = {{"tiers", {{{"preset", "hdd-7200"}, {"engine", "io\n_uring"}}}}};
  EXPECT_EQ(ErrorOf(j),
            "x.json: tiers[0].engine: unknown \"io?_uring\"; known: auto, io_uring, libaio");
  j = {{"tiers", {{{"preset", "nv\x1b[2Jme"}}}}};
  EXPECT_EQ(ErrorOf(j).rfind("x.json: tiers[0].preset: unknown \"nv?[2Jme\"; known: ", 0), 0u)
      << ErrorOf(j);
  auto shorthand = LoadLayout("nvme2+h\ndd4");
  ASSERT_FALSE(shorthand.ok());
  EXPECT_EQ(shorthand.error().message.rfind(
                "layout \"nvme2+h?dd4\": bad part \"h?dd4\"; expected TYPE COUNT", 0),
            0u)
      << shorthand.error().message;
}

TEST(LayoutTest, ErrorsNameFileFieldAndChoices) {
  nlohmann::json j = {{"tiers", {{{"preset", "optane"}, {"count", 2}}}}};
  std::string e = ErrorOf(j);
  EXPECT_EQ(
      e.rfind("x.json: tiers[0].preset: unknown \"optane\"; known: ram, optane-p4800x, nvme-pm1725",
              0),
      0u)
      << e;

  j = {{"tiers", {{{"preset", "hdd-7200"}, {"count", 0}}}}};
  EXPECT_EQ(ErrorOf(j), "x.json: tiers[0].count: must be 1..1024, got 0");

  j = {{"tiers", {{{"preset", "hdd-7200"}, {"colour", "red"}}}}};
  EXPECT_NE(ErrorOf(j).find("tiers[0].colour: unknown key; known:"), std::string::npos);

  j = {{"tiers", {{{"preset", "hdd-7200"}, {"count", 2}, {"paths", {"/a"}}}}}};
  EXPECT_NE(ErrorOf(j).find("tiers[0].paths: has 1 entries for count 2"), std::string::npos);

  j = {{"tiers", nlohmann::json::array()}};
  EXPECT_EQ(ErrorOf(j), "x.json: tiers: must be a non-empty array of tiers");

  j = {{"tiers", {{{"preset", "hdd-7200"}, {"engine", "spdk"}}}}};
  EXPECT_EQ(ErrorOf(j), "x.json: tiers[0].engine: unknown \"spdk\"; known: auto, io_uring, libaio")
      << ErrorOf(j);

  nlohmann::json l = LayoutToJson(MustLoad("nvme2+hdd4"));
  l["cache"]["write"] = "writesometimes";
  EXPECT_NE(ErrorOf(l).find("x.json: cache.write: unknown \"writesometimes\"; known: off,"),
            std::string::npos)
      << ErrorOf(l);
  l = LayoutToJson(MustLoad("nvme2+hdd4"));
  l["cache"]["policy"] = "mru";
  EXPECT_NE(ErrorOf(l).find("cache.policy: unknown \"mru\"; known: "), std::string::npos)
      << ErrorOf(l);
  l = LayoutToJson(MustLoad("nvme2+hdd4"));
  l["cache"]["tier"] = "nope";
  EXPECT_NE(ErrorOf(l).find("cache.tier: unknown tier \"nope\""), std::string::npos);
}

TEST(LayoutTest, SectionsAreCheckedWhenTheLayoutIsRead) {
  // Each section fails in ParseLayoutJson itself, before anything is built,
  // even where the stack would not use it (tiering with one capacity tier).
  nlohmann::json l = LayoutToJson(MustLoad("nvme2+hdd4"));
  l["cache"]["line_size"] = "3k";
  auto bad = ParseLayoutJson(l, "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("x.json: cache.line_size: ", 0), 0u) << bad.error().message;

  l = LayoutToJson(MustLoad("nvme2+hdd4"));
  l["tiering"] = {{"schedule", "hourly"}};
  bad = ParseLayoutJson(l, "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("x.json: tiering.schedule: unknown \"hourly\"", 0), 0u)
      << bad.error().message;

  l = LayoutToJson(MustLoad("nvme2+hdd4"));
  l["block_cache"] = {{"locks", 0}};
  bad = ParseLayoutJson(l, "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "x.json: block_cache.locks: must be 1..65536, got 0");

  l = LayoutToJson(MustLoad("nvme2+hdd4"));
  l["tiering"] = {{"pins", {{{"offset", "1g"}, {"length", "0"}}}}};
  bad = ParseLayoutJson(l, "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "x.json: tiering.pins[0].length: must be > 0");
}

TEST(LayoutTest, EffectiveJsonFillsDefaultsAndAsWrittenKeepsTheSections) {
  nlohmann::json j = {{"tiers",
                       {{{"name", "cache"}, {"preset", "nvme-pm1725"}},
                        {{"name", "capacity"}, {"preset", "hdd-7200"}, {"count", 2}}}},
                      {"cache", {{"write", "wb"}}},
                      {"block_cache", {{"size", "64m"}}}};
  auto l = ParseLayoutJson(j, "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  const nlohmann::json eff = LayoutToJson(*l);
  EXPECT_EQ(eff.at("cache").at("tier"), "cache");
  EXPECT_EQ(eff.at("cache").at("write"), "writeback");
  EXPECT_EQ(eff.at("cache").at("line_size"), "4k");
  EXPECT_EQ(eff.at("cache").at("destage_order"), "lba");
  EXPECT_EQ(eff.at("cache").at("promotion_concurrency"), 64);
  EXPECT_FALSE(eff.at("cache").contains("capacity"));  // 0: all the devices hold
  EXPECT_EQ(eff.at("block_cache").at("policy"), "lru");
  EXPECT_EQ(eff.at("tiers")[1].at("chunk"), "256k");
  auto again = ParseLayoutJson(eff, "x.json");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(LayoutToJson(*again), eff);

  const nlohmann::json written = LayoutAsWrittenJson(*l);
  EXPECT_EQ(written.at("cache"), j.at("cache"));
  EXPECT_EQ(written.at("block_cache"), j.at("block_cache"));
  EXPECT_EQ(written.at("tiers"), eff.at("tiers"));
  EXPECT_FALSE(written.contains("tiering"));
}

TEST(LayoutTest, VolumeSizeMustFitTheCapacityTiers) {
  nlohmann::json l = LayoutToJson(MustLoad("ssd2+hdd4"));
  l["size"] = "100t";
  const std::string e = ErrorOf(l);
  EXPECT_EQ(e.rfind("x.json: size: 100t does not fit the capacity tiers", 0), 0u) << e;

  l["size"] = "10g";
  auto spec = ParseLayoutJson(l, "x.json");
  ASSERT_TRUE(spec.ok());
  SimEngine e2;
  auto v = BuildVolume(e2, *spec, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->top().Size(), 10ull << 30);
}

nlohmann::json ParityLayout(const std::string& combine, int count) {
  return {{"name", "p"},
          {"tiers",
           {{{"name", "cap"},
             {"preset", "ssd-hk4e"},
             {"count", count},
             {"combine", combine},
             {"chunk", "64k"},
             {"capacity", "64m"}}}}};
}

TEST(LayoutTest, ParityCombinesRoundTripAndBuildParityTargets) {
  const std::pair<const char*, int> levels[] = {{"raid5", 1}, {"raid6", 2}, {"raid-tp", 3}};
  for (const auto& [name, m] : levels) {
    auto l = ParseLayoutJson(ParityLayout(name, m + 3), "p.json");
    ASSERT_TRUE(l.ok()) << l.error().message;
    EXPECT_EQ(ParityChunks(l->tiers[0].combine), m);
    const nlohmann::json out = LayoutToJson(*l);
    EXPECT_EQ(out["tiers"][0]["combine"], name);
    auto again = ParseLayoutJson(out, "again");
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(LayoutToJson(*again), out);

    SimEngine e;
    auto v = BuildVolume(e, *l, {});
    ASSERT_TRUE(v.ok()) << v.error().message;
    EXPECT_EQ(v->top().Kind(), name);
    // k = 3 devices' worth of the tier's m + 3.
    EXPECT_EQ(v->top().Size(), 3 * (64ull << 20));
    EXPECT_EQ(v->tiers()[0].devices.size(), static_cast<std::size_t>(m + 3));
  }
}

TEST(LayoutTest, ParityCombineErrorsNameTheFieldAndTheNeed) {
  EXPECT_EQ(ErrorOf(ParityLayout("raid6", 3)),
            "x.json: tiers[0].combine: raid6 needs count >= 4 (2 data + 2 parity chunks per "
            "stripe), got 3");
  EXPECT_EQ(ErrorOf(ParityLayout("raid-tp", 300)),
            "x.json: tiers[0].combine: raid-tp takes at most 256 devices (its codes are over "
            "GF(2^8)), got 300");
  EXPECT_EQ(ErrorOf(ParityLayout("raid7", 5)),
            "x.json: tiers[0].combine: unknown \"raid7\"; known: stripe, mirror, linear, raid5, "
            "raid6, raid-tp");
  // The cache tier's devices are the cache's own: parity there is refused.
  nlohmann::json l = LayoutToJson(MustLoad("nvme2+hdd4"));
  l["tiers"][0]["count"] = 3;
  l["tiers"][0]["combine"] = "raid5";
  EXPECT_NE(ErrorOf(l).find("x.json: tiers[0].combine: raid5 is for capacity tiers"),
            std::string::npos)
      << ErrorOf(l);
}

// A parity tier built from a layout with data, in simulation: the
// verification harness passes over the models, healthy and with a device
// lost halfway through.
TEST(LayoutTest, ParityTierOfModelsKeepsDataWithADeviceLost) {
  auto l = ParseLayoutJson(ParityLayout("raid6", 5), "p.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  SimEngine e;
  BuildOptions o;
  o.with_data = true;
  auto v = BuildVolume(e, *l, o);
  ASSERT_TRUE(v.ok()) << v.error().message;
  auto* raid = dynamic_cast<ParityTarget*>(&v->top());
  ASSERT_NE(raid, nullptr);
  testing::VerifyOptions vo;
  vo.ops = 2000;
  vo.region = 16ull << 20;
  vo.max_in_flight = 16;
  vo.max_length = 256 * 1024;
  vo.align = 4096;
  vo.on_complete = [raid](std::uint64_t done) {
    if (done == 1000) raid->FailMember(3);
  };
  auto r = testing::RunVerify(e, v->top(), vo);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_GT(raid->parity_stats().degraded_reads, 0u);
  EXPECT_GT(raid->parity_stats().rmw_writes + raid->parity_stats().reconstruct_writes, 0u);
}

// A raid6 tier of 6 x 64 MiB written as a log with small segments.
nlohmann::json LogLayout() {
  nlohmann::json l = ParityLayout("raid6", 6);
  l["tiers"][0]["log"] = {
      {"segment_bytes", "1m"}, {"usable", 0.7}, {"nvram", {{"capacity", "8m"}, {"mirror", true}}}};
  return l;
}

TEST(LayoutTest, LogTierRoundTripsAndBuildsALogOverTheParityTier) {
  auto l = ParseLayoutJson(LogLayout(), "log.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_TRUE(l->tiers[0].log.has_value());
  EXPECT_EQ(l->tiers[0].log->segment_bytes, 1u << 20);
  EXPECT_EQ(l->tiers[0].log->nvram_preset, "ram");  // the default
  const nlohmann::json written = LayoutToJson(*l);
  EXPECT_EQ(written["tiers"][0]["log"]["cleaner_start"], 0.95);
  auto again = ParseLayoutJson(written, "again.json");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(LayoutToJson(*again), written);
  // Without "log" the key is not written.
  EXPECT_FALSE(LayoutToJson(MustLoad("nvme2+hdd4"))["tiers"][1].contains("log"));

  SimEngine e;
  BuildOptions o;
  o.with_data = true;
  auto v = BuildVolume(e, *l, o);
  ASSERT_TRUE(v.ok()) << v.error().message;
  auto* log = dynamic_cast<LogStructuredTarget*>(&v->top());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->capacity().Kind(), "raid6");
  EXPECT_EQ(log->nvram().Kind(), "mirror");
  // 1 MiB is four 256 KiB stripes; 4 x 64 MiB of data holds 256 segments.
  EXPECT_EQ(log->segment_bytes(), 1u << 20);
  EXPECT_EQ(log->segments(), 256u);
  testing::VerifyOptions vo;
  vo.ops = 1500;
  vo.region = 4ull << 20;
  vo.max_length = 64 * 1024;
  auto r = testing::RunVerify(e, v->top(), vo);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  auto* raid = dynamic_cast<ParityTarget*>(&log->capacity());
  ASSERT_NE(raid, nullptr);
  EXPECT_EQ(raid->parity_stats().rmw_writes + raid->parity_stats().reconstruct_writes, 0u);
}

TEST(LayoutTest, LogTierErrorsNameTheField) {
  nlohmann::json l = LogLayout();
  l["tiers"][0]["log"]["usable"] = 0.99;
  EXPECT_NE(ErrorOf(l).find("x.json: tiers[0].log.usable"), std::string::npos) << ErrorOf(l);
  l = LogLayout();
  l["tiers"][0]["log"]["nvram"]["preset"] = "nvram-9000";
  EXPECT_NE(ErrorOf(l).find("x.json: tiers[0].log.nvram.preset: unknown \"nvram-9000\""),
            std::string::npos)
      << ErrorOf(l);
  l = LogLayout();
  l["tiers"][0]["log"]["segments"] = 3;
  EXPECT_NE(ErrorOf(l).find("x.json: tiers[0].log.segments: unknown key"), std::string::npos)
      << ErrorOf(l);
  // Segments so large that the cleaner would have no room: refused at build.
  l = LogLayout();
  l["tiers"][0]["log"]["segment_bytes"] = "64m";
  EXPECT_NE(ErrorOf(l).find("x.json: tiers[0].log: usable"), std::string::npos) << ErrorOf(l);
  // The cache tier cannot be a log.
  nlohmann::json c = LayoutToJson(MustLoad("nvme2+hdd4"));
  c["tiers"][0]["log"] = nlohmann::json::object();
  EXPECT_NE(ErrorOf(c).find("x.json: tiers[0].log: is for capacity tiers"), std::string::npos)
      << ErrorOf(c);
}

TEST(LayoutTest, BuildsModelStackWithCacheAndTierViews) {
  SimEngine e;
  auto v = BuildVolume(e, MustLoad("nvme2+hdd4"), {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_NE(v->cache(), nullptr);
  EXPECT_EQ(v->top().Kind(), "cache");
  ASSERT_EQ(v->tiers().size(), 2u);
  EXPECT_EQ(v->tiers()[0].role, "cache");
  EXPECT_EQ(v->tiers()[0].devices.size(), 2u);
  EXPECT_EQ(v->tiers()[1].role, "capacity");
  EXPECT_EQ(v->tiers()[1].devices.size(), 4u);
  EXPECT_EQ(v->tiers()[1].devices[0]->Kind(), "hdd");
  // 4 HDDs of 128 GiB striped.
  EXPECT_EQ(v->top().Size(), 4 * (128ull << 30));
  EXPECT_EQ(v->effective().at("cache").at("write"), "writeback");
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

nlohmann::json ReducedLayout(const char* where) {
  return {{"name", "reduced"},
          {"tiers",
           {{{"name", "cache"}, {"preset", "nvme-pm1725"}, {"capacity", "64m"}},
            {{"name", "flash"},
             {"preset", "ssd-hk4e"},
             {"count", 2},
             {"combine", "mirror"},
             {"capacity", "256m"}}}},
          {"cache", {{"tier", "cache"}, {"write", "writeback"}}},
          {"reduction", {{"compression", "zstd"}, {"where", where}, {"cpu_threads", 2}}}};
}

// The section round-trips, places the target above or below the cache
// target, keeps data in simulation, and passes the harness either way.
TEST(LayoutTest, ReductionRoundTripsAndSitsAboveOrBelowTheCache) {
  for (const char* where : {"inline", "destage"}) {
    auto l = ParseLayoutJson(ReducedLayout(where), "r.json");
    ASSERT_TRUE(l.ok()) << l.error().message;
    ASSERT_TRUE(l->reduction.has_value());
    const nlohmann::json written = LayoutToJson(*l);
    EXPECT_EQ(written["reduction"]["keep_compressed_max"], "2k");
    EXPECT_EQ(written["reduction"]["dedupe"], true);
    auto again = ParseLayoutJson(written, "again.json");
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(LayoutToJson(*again), written);
    EXPECT_EQ(LayoutAsWrittenJson(*l)["reduction"], ReducedLayout(where)["reduction"]);

    SimEngine e;
    auto v = BuildVolume(e, *l, BuildOptions{});  // no with_data asked: reduction needs it
    ASSERT_TRUE(v.ok()) << v.error().message;
    ASSERT_NE(v->reduction(), nullptr);
    EXPECT_TRUE(v->reduction()->config().model_cpu);
    EXPECT_EQ(v->reduction()->config().cpu.compress_ns,
              MeasuredCpuCost(CompressionKind::kZstd).compress_ns);
    if (std::string(where) == "inline") {
      EXPECT_EQ(&v->top(), v->reduction());
      EXPECT_EQ(v->reduction()->child().Kind(), v->cache()->Kind());
    } else {
      EXPECT_EQ(&v->top(), static_cast<BlockDevice*>(v->cache()));
      EXPECT_EQ(v->reduction()->child().Kind(), "mirror");
    }
    testing::VerifyOptions vo;
    vo.ops = 1500;
    vo.region = 32ull << 20;
    auto r = testing::RunVerify(e, v->top(), vo);
    EXPECT_TRUE(r.ok()) << where << ": " << r.first_problem;
  }
  EXPECT_FALSE(LayoutToJson(MustLoad("nvme2+hdd4")).contains("reduction"));
}

TEST(LayoutTest, ReductionErrorsNameTheFieldAndPersistentVolumesRefuseIt) {
  nlohmann::json l = ReducedLayout("inline");
  l["reduction"]["compression"] = "gzip";
  EXPECT_NE(ErrorOf(l).find("x.json: reduction.compression"), std::string::npos) << ErrorOf(l);
  EXPECT_NE(ErrorOf(l).find("lz4"), std::string::npos) << ErrorOf(l);
  l = ReducedLayout("inline");
  l["reduction"]["keep_compressed_max"] = "4k";
  EXPECT_NE(ErrorOf(l).find("reduction.keep_compressed_max: must be between 1 and 4095"),
            std::string::npos)
      << ErrorOf(l);
  l = ReducedLayout("sideways");
  EXPECT_NE(ErrorOf(l).find("reduction.where"), std::string::npos) << ErrorOf(l);

  auto spec = ParseLayoutJson(ReducedLayout("inline"), "r.json");
  ASSERT_TRUE(spec.ok());
  SimEngine e;
  BuildOptions o;
  o.metadata_reserve = 1 << 20;  // what create asks for
  auto v = BuildVolume(e, *spec, o);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("r.json: reduction: not in a persistent volume"),
            std::string::npos)
      << v.error().message;
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

// The longest of `n` 4 KiB reads one at a time on a one-tier layout of
// ssd-hk4e with `model` overrides, in simulation.
Nanos LongestRead(const nlohmann::json& model, int n) {
  nlohmann::json j = {
      {"name", "one"},
      {"tiers", {{{"name", "d"}, {"preset", "ssd-hk4e"}, {"capacity", "1g"}, {"model", model}}}}};
  auto l = ParseLayoutJson(j, "l.json");
  EXPECT_TRUE(l.ok()) << l.error().message;
  if (!l.ok()) return -1;
  SimEngine e;
  auto v = BuildVolume(e, *l, {});
  EXPECT_TRUE(v.ok()) << v.error().message;
  if (!v.ok()) return -1;
  Nanos longest = 0;
  for (int i = 0; i < n; ++i) {
    const Nanos at = e.Now();
    EXPECT_EQ(
        testing::SubmitAndRun(e, v->top(), IoOp::kRead,
                              static_cast<std::uint64_t>(i) * 4096 % (1ull << 30), 4096, nullptr),
        Status::kOk);
    longest = std::max(longest, e.Now() - at);
  }
  return longest;
}

// A preset's pauses hold a simulated device's completions: 2 ms pauses 50
// times a second (10% of the time) make some of 2,000 reads of about 85 us
// wait most of one; without them none waits.
TEST(LayoutTest, APresetsPausesHoldTheSimulatedDevicesCompletions) {
  const Nanos plain = LongestRead(nlohmann::json::object(), 2000);
  EXPECT_GT(plain, 0);
  EXPECT_LT(plain, 500 * kMicro);
  const Nanos paused =
      LongestRead({{"pauses", {{{"duration_us", 2000}, {"per_second", 50}}}}}, 2000);
  EXPECT_GT(paused, 1500 * kMicro);
  EXPECT_LE(paused, plain + 2 * kMilli);
}

}  // namespace
}  // namespace tierlab
