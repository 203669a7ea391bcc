#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "bench/workload/BuiltinProfiles.h"
#include "bench/workload/FioJobFile.h"
#include "bench/workload/FioUnits.h"
#include "bench/workload/FleetProfiles.h"
#include "bench/workload/Profile.h"

namespace tierlab {
namespace {

using nlohmann::json;

std::string ErrorOf(const json& j) {
  auto p = ParseProfileJson(j, "job.json");
  EXPECT_FALSE(p.ok()) << j.dump();
  if (p.ok()) return "";
  EXPECT_EQ(p.error().kind, ErrorKind::kInput);
  return p.error().message;
}

TEST(FioUnitsTest, SizesFollowFioKbBase) {
  EXPECT_EQ(*ParseFioSize("4096"), 4096u);
  EXPECT_EQ(*ParseFioSize("4k"), 4096u);
  EXPECT_EQ(*ParseFioSize("4K"), 4096u);
  EXPECT_EQ(*ParseFioSize("4kb"), 4096u);
  EXPECT_EQ(*ParseFioSize("64m"), 64u << 20);
  EXPECT_EQ(*ParseFioSize("1g"), 1ull << 30);
  EXPECT_EQ(*ParseFioSize("2t"), 2ull << 40);
  EXPECT_EQ(*ParseFioSize("0x1000"), 4096u);
  // fio's compatibility mode: the IEC spelling means powers of 10.
  EXPECT_EQ(*ParseFioSize("4kib"), 4000u);
  EXPECT_EQ(*ParseFioSize("4k", 1000), 4000u);
  EXPECT_EQ(*ParseFioSize("4kib", 1000), 4096u);
  // Only the spelling that ends in "ib" is swapped: "ki" is a plain "k".
  EXPECT_EQ(*ParseFioSize("4ki"), 4096u);
  EXPECT_EQ(*ParseFioSize("1Mi"), 1u << 20);
  EXPECT_EQ(*ParseFioSize("4ki", 1000), 4000u);
  EXPECT_FALSE(ParseFioSize("abc").ok());
  EXPECT_FALSE(ParseFioSize("4q").ok());
  EXPECT_FALSE(ParseFioSize("-4k").ok());
  EXPECT_FALSE(ParseFioSize("99999999999999p").ok());
}

TEST(FioUnitsTest, TimesFollowFio) {
  EXPECT_EQ(*ParseFioTime("30", kSecond), 30 * kSecond);
  EXPECT_EQ(*ParseFioTime("500ms", kSecond), 500 * kMilli);
  EXPECT_EQ(*ParseFioTime("2m", kSecond), 120 * kSecond);
  EXPECT_EQ(*ParseFioTime("1h", kSecond), 3600 * kSecond);
  EXPECT_EQ(*ParseFioTime("100", kMicro), 100 * kMicro);
  EXPECT_EQ(*ParseFioTime("250us", kSecond), 250 * kMicro);
  EXPECT_FALSE(ParseFioTime("5x", kSecond).ok());
  // Only fio's suffixes: fio reads any other letters as microseconds.
  for (const char* t : {"2sec", "1hr", "1day", "500ns", "3min", "9nsec"}) {
    EXPECT_FALSE(ParseFioTime(t, kSecond).ok()) << t;
  }
  EXPECT_EQ(*ParseFioTime("2usec", kSecond), 2 * kMicro);
  EXPECT_EQ(*ParseFioTime("7MSEC", kSecond), 7 * kMilli);
  EXPECT_EQ(FormatFioTime(1500 * kMilli), "1500ms");
  EXPECT_EQ(FormatFioTime(60 * kSecond), "1m");
  EXPECT_EQ(FormatFioSize(4096), "4k");
  EXPECT_EQ(FormatFioSize(1000), "1000");
  EXPECT_EQ(FormatFioSize(3ull << 30), "3g");
}

TEST(ProfileTest, ParsesFioNamedFields) {
  const json j = {{"name", "oltp"},
                  {"rw", "randrw"},
                  {"rwmixread", 70},
                  {"bssplit", "4k/50:8k/30:64k/20"},
                  {"iodepth", 32},
                  {"numjobs", 4},
                  {"size", "50%"},
                  {"offset", "1g"},
                  {"runtime", "2m"},
                  {"ramp_time", 10},
                  {"random_distribution", "zipf:1.2"},
                  {"percentage_random", 80},
                  {"rate_iops", 5000},
                  {"randseed", 42},
                  {"ioengine", "libaio"},
                  {"direct", 1}};
  auto p = ParseProfileJson(j, "job.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->name, "oltp");
  EXPECT_EQ(p->rw, RwMode::kRandRw);
  EXPECT_EQ(p->rwmixread, 70u);
  ASSERT_EQ(p->bssplit.size(), 3u);
  EXPECT_EQ(p->bssplit[2], (BsSplitEntry{65536, 20}));
  EXPECT_EQ(p->min_bs(), 4096u);
  EXPECT_EQ(p->max_bs(), 65536u);
  EXPECT_EQ(p->iodepth, 32u);
  EXPECT_EQ(p->numjobs, 4u);
  EXPECT_TRUE(p->has_size);
  EXPECT_TRUE(p->size.is_percent);
  EXPECT_DOUBLE_EQ(p->size.percent, 50);
  EXPECT_EQ(p->offset.bytes, 1ull << 30);
  EXPECT_EQ(p->runtime, 120 * kSecond);
  EXPECT_EQ(p->ramp_time, 10 * kSecond);
  EXPECT_EQ(p->random_distribution, RandomDistribution::kZipf);
  EXPECT_DOUBLE_EQ(p->zipf_theta, 1.2);
  EXPECT_EQ(p->percentage_random, 80u);
  EXPECT_EQ(p->rate_iops, 5000u);
  EXPECT_EQ(p->randseed, 42u);
  // thinktime goes without a rate (tierlab refuses the two together).
  auto t = ParseProfileJson(json{{"thinktime", 100},
                                 {"thinktime_blocks", 4},
                                 {"thinktime_blocks_type", "issue"},
                                 {"thinktime_spin", 150},
                                 {"thinktime_iotime", 2}},
                            "job.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->thinktime, 100 * kMicro);
  EXPECT_EQ(t->thinktime_blocks, 4u);
  EXPECT_EQ(t->thinktime_blocks_type, ThinkBlocks::kIssue);
  EXPECT_EQ(t->thinktime_spin, 150 * kMicro);
  EXPECT_EQ(t->thinktime_iotime, 2 * kSecond);  // fio: a bare number is seconds
  auto unset = ParseProfileJson(json{{"thinktime", 100}}, "job.json");
  ASSERT_TRUE(unset.ok());
  EXPECT_FALSE(unset->thinktime_blocks.has_value());  // 1, but unset (thinktime_iotime)
  EXPECT_EQ(unset->thinktime_iotime, 0);
  EXPECT_EQ(ErrorOf({{"thinktime_blocks_type", "done"}}),
            "job.json: thinktime_blocks_type: unknown value 'done' (valid: complete, issue)");
}

TEST(ProfileTest, AliasesAndComplements) {
  auto p = ParseProfileJson(
      json{{"readwrite", "rw"}, {"rwmixwrite", 30}, {"percentage_sequential", 25}}, "x");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->rw, RwMode::kReadWrite);
  EXPECT_EQ(p->rwmixread, 70u);
  EXPECT_EQ(p->percentage_random, 75u);
  EXPECT_NE(
      ErrorOf({{"rwmixread", 50}, {"rwmixwrite", 30}}).find("rwmixwrite: contradicts rwmixread"),
      std::string::npos);
}

TEST(ProfileTest, BsSplitBlankPercentagesShareTheRest) {
  auto p = ParseProfileJson(json{{"bssplit", "4k/50:8k/:16k/"}}, "x");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->bssplit.size(), 3u);
  EXPECT_EQ(p->bssplit[1].percent, 25u);
  EXPECT_EQ(p->bssplit[2].percent, 25u);
}

TEST(ProfileTest, ZipfAndParetoWithoutAParameterTakeFiosDefaults) {
  // fio 3.33 runs random_distribution=zipf and =pareto with FIO_DEF_ZIPF
  // (1.1) and FIO_DEF_PARETO (0.2); "zipf:" fails there as here.
  auto z = ParseProfileJson(json{{"random_distribution", "zipf"}}, "x");
  ASSERT_TRUE(z.ok()) << z.error().message;
  EXPECT_EQ(z->random_distribution, RandomDistribution::kZipf);
  EXPECT_DOUBLE_EQ(z->zipf_theta, 1.1);
  auto p = ParseProfileJson(json{{"random_distribution", "pareto"}}, "x");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->random_distribution, RandomDistribution::kPareto);
  EXPECT_DOUBLE_EQ(p->pareto_h, 0.2);
}

TEST(ProfileTest, PreciseErrors) {
  EXPECT_EQ(ErrorOf({{"rwmixread", 150}}), "job.json: rwmixread: must be 0..100, got 150");
  EXPECT_EQ(ErrorOf({{"rw", "random"}}),
            "job.json: rw: unknown value 'random' (valid: read, write, randread, randwrite, rw, "
            "readwrite, randrw, trim, randtrim, trimwrite, randtrimwrite, each with an optional "
            ":N offset modifier)");
  EXPECT_EQ(ErrorOf({{"bs", 0}}), "job.json: bs: must be > 0, got 0");
  EXPECT_EQ(ErrorOf({{"bs", "0k"}}), "job.json: bs: must be > 0, got 0");
  EXPECT_NE(ErrorOf({{"iodepth", "4,8"}}).find("job.json: iodepth: per-direction values"),
            std::string::npos);
  EXPECT_EQ(ErrorOf({{"random_distribution", "zipf:abc"}}),
            "job.json: random_distribution: zipf parameter: expected a number, got 'abc'");
  EXPECT_EQ(ErrorOf({{"random_distribution", "zipf:"}}),
            "job.json: random_distribution: zipf needs a parameter, e.g. zipf:1.2");
  EXPECT_NE(ErrorOf({{"random_distribution", "zipf:0"}}).find("zipf theta must be > 0"),
            std::string::npos);
  EXPECT_EQ(
      ErrorOf({{"random_distribution", "zipf:1.0"}}),
      "job.json: random_distribution: zipf theta must not be 1 (fio refuses it too), got 1.0");
  EXPECT_NE(ErrorOf({{"random_distribution", "pareto:1.5"}}).find("pareto h must be > 0 and < 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"random_distribution", "zoned:60/10:30/20"}})
                .find("access percentages must add up to 100, got 90"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"random_distribution", "lognormal"}}).find("(valid: random, zipf:<theta>"),
            std::string::npos);
  EXPECT_EQ(ErrorOf({{"bssplit", "4k/50:8k/30"}}),
            "job.json: bssplit: percentages must add up to 100, got 80");
  EXPECT_EQ(ErrorOf({{"iodepth", 0}}), "job.json: iodepth: must be 1..65536, got 0");
  EXPECT_EQ(ErrorOf({{"runtime", "10x"}}),
            "job.json: runtime: unknown time suffix in '10x' (fio would read it as microseconds; "
            "valid: us, ms, s, m, h, d)");
  EXPECT_NE(ErrorOf({{"size", "150%"}}).find("job.json: size: percentage must be"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"size", "60%"}, {"offset", "50%"}}).find("exceeds the volume"),
            std::string::npos);
  const std::string unknown = ErrorOf({{"blocksz", "4k"}});
  EXPECT_EQ(unknown.rfind(
                "job.json: blocksz: unknown field (valid: rw, readwrite, rw_sequencer, name,", 0),
            0u)
      << unknown;
  EXPECT_EQ(ErrorOf({{"iodepth", json::array()}}),
            "job.json: iodepth: must be a string or a number");
  EXPECT_EQ(ErrorOf(json::array()), "job.json: a profile must be a JSON object");
}

TEST(ProfileTest, ToJsonRoundTrips) {
  Profile p;
  p.name = "mix";
  p.rw = RwMode::kRandRw;
  p.rwmixread = 65;
  p.bssplit = {{4096, 60}, {1 << 20, 40}};
  p.has_size = true;
  p.size = SizeSpec{0, 37.5, true};
  p.offset = SizeSpec{8192, 0, false};
  p.offset_increment = SizeSpec{0, 12.5, true};
  p.runtime = 1500 * kMilli;
  p.ramp_time = 3 * kSecond;
  p.number_ios = 1000;
  p.random_distribution = RandomDistribution::kZoned;
  p.zones = {{60, 10}, {30, 20}, {10, 70}};
  p.percentage_random = 50;
  p.rate_iops = 777;
  p.randseed = 0xfeedfacecafebeefull;
  p.random_scatter = false;
  auto back = ParseProfileJson(ToJson(p), "roundtrip");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, p) << ToJson(p).dump();

  Profile think;
  think.thinktime = 25 * kMicro;
  think.thinktime_blocks = 0;
  think.thinktime_blocks_type = ThinkBlocks::kIssue;
  think.thinktime_spin = 40 * kMicro;
  think.thinktime_iotime = 40 * kMilli;
  auto think_back = ParseProfileJson(ToJson(think), "roundtrip");
  ASSERT_TRUE(think_back.ok()) << think_back.error().message;
  EXPECT_EQ(*think_back, think) << ToJson(think).dump();
  // Set to its default, thinktime_blocks is written: with thinktime_iotime,
  // set and unset differ.
  think.thinktime_blocks = 1;
  auto one_back = ParseProfileJson(ToJson(think), "roundtrip");
  ASSERT_TRUE(one_back.ok()) << one_back.error().message;
  EXPECT_EQ(*one_back, think) << ToJson(think).dump();

  for (const char* dist : {"zipf:0.99", "pareto:0.2", "normal", "normal:7.5", "random"}) {
    auto q = ParseProfileJson(json{{"random_distribution", dist}}, "x");
    ASSERT_TRUE(q.ok()) << q.error().message;
    auto r = ParseProfileJson(ToJson(*q), "x");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, *q) << dist;
    EXPECT_EQ(RandomDistributionString(*r), dist);
  }
}

TEST(ProfileTest, ToJsonRoundTripsTheQueueingFlushAndRateFields) {
  Profile p;
  p.rw = RwMode::kTrimWrite;
  p.bs = 4096;
  p.write_bs = 8192;
  p.trim_bs = 16384;
  p.bs_max[1] = 32768;
  p.bs_max[2] = 65536;
  p.ba = 65536;
  p.rate_min[0] = 1 << 20;
  p.rate_min[1] = 2 << 20;
  p.rate_iops_min[1] = 50;
  p.fsync = 3;
  p.fdatasync = 5;
  p.end_fsync = true;
  p.fsync_on_close = true;
  p.iodepth = 16;
  p.iodepth_batch = 4;
  p.iodepth_batch_complete_min = 2;
  p.iodepth_batch_complete_max = 8;
  p.iodepth_low = 4;
  auto back = ParseProfileJson(ToJson(p), "roundtrip");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, p) << ToJson(p).dump();
  Profile q;  // rate is not for batched reaping
  q.rw = RwMode::kRandRw;
  q.rate = 3 << 20;
  auto q_back = ParseProfileJson(ToJson(q), "roundtrip");
  ASSERT_TRUE(q_back.ok()) << q_back.error().message;
  EXPECT_EQ(*q_back, q) << ToJson(q).dump();
  // Defaults write nothing new, so existing profiles read as before.
  const json d = ToJson(Profile{});
  for (const char* k : {"bsrange", "ba", "rate", "rate_min", "rate_iops_min", "fsync", "fdatasync",
                        "end_fsync", "fsync_on_close", "iodepth_batch",
                        "iodepth_batch_complete_min", "iodepth_batch_complete_max", "iodepth_low"})
    EXPECT_FALSE(d.contains(k)) << k;
  // bs in a patch replaces a range, as a later bs= line does in fio.
  auto patched = ApplyProfilePatch(p, json{{"bs", "8k"}}, "m.json");
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  EXPECT_EQ(patched->max_bs(), 8192u);
}

TEST(ProfileTest, PerDirectionRatesRefuseWhatTheyCannotFollow) {
  Profile p;
  auto r = SetProfileOption(p, "rate", "1m,2m,3m", true, 1024);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("rate: a trim value (third) different"), std::string::npos);
  r = SetProfileOption(p, "rate_iops", "10,20,30", true, 1024);
  ASSERT_FALSE(r.ok());  // was silently dropped before trims existed
  r = SetProfileOption(p, "ba", "4k,8k", true, 1024);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("ba: one alignment for all directions"), std::string::npos);
  auto m = ParseProfileJson(json{{"rw", "randrw"}, {"rate", "1m,2m"}}, "j.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("j.json: rate: separate caps"), std::string::npos);
  auto w = ParseProfileJson(json{{"rw", "write"}, {"rate", ",2m"}}, "j.json");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->effective_rate(), 2u << 20);
}

// fio's td->rate_bps: `rate` wins; rate_iops counts I/Os of the smallest
// size of the directions the job does.
TEST(ProfileTest, RateBpsIsFiosByteRate) {
  auto p = ParseProfileJson(json{{"rw", "randwrite"}, {"bs", "64k,8k"}, {"rate_iops", 100}}, "r");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->rate_bps(), 100u * 8192);
  p = ParseProfileJson(json{{"rw", "randread"}, {"bsrange", "4k-16k"}, {"rate_iops", 100}}, "r");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->rate_bps(), 100u * 4096);
  p = ParseProfileJson(json{{"rate_iops", 100}, {"rate", "1m"}}, "r");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->rate_bps(), 1u << 20);
  EXPECT_EQ(Profile{}.rate_bps(), 0u);
}

// The options of issue 16's last block I/O examples, as a fio job file
// writes them: each reads back from ToJson, and what fio refuses is refused.
TEST(ProfileTest, ToJsonRoundTripsErrorsLatencyVerifyDataAndPriorityOptions) {
  Profile p;
  p.rw = RwMode::kRandRw;
  for (auto [key, value] : {std::pair{"continue_on_error", "verify"},
                            {"ignore_error", "EAGAIN,ENOSPC:122"},
                            {"fill_device", "1"},
                            {"latency_target", "500ms"},
                            {"latency_window", "5000000"},
                            {"latency_percentile", "99.9"},
                            {"latency_run", "1"},
                            {"verify_pattern", "0xaa555aa5"},
                            {"verify_interval", "512"},
                            {"verify_backlog", "1024"},
                            {"verify_backlog_batch", "8"},
                            {"verify_write_sequence", "0"},
                            {"dedupe_percentage", "30"},
                            {"dedupe_mode", "working_set"},
                            {"dedupe_working_set_percentage", "50"},
                            {"dedupe_global", "1"},
                            {"size", "100m"},
                            {"buffer_compress_percentage", "50"},
                            {"buffer_compress_chunk", "4k"},
                            {"buffer_pattern", "\"ab\"0x01"},
                            {"zero_buffers", "1"},
                            {"atomic", "1"},
                            {"prio", "7"},
                            {"prioclass", "2"},
                            {"cmdprio_class", "1,3"},
                            {"cmdprio", "0,5"},
                            {"cmdprio_bssplit", "64k/25/1/1:64k/75/3/2:1m/0,1m/10"},
                            {"log_prio", "1"},
                            {"bssplit", "64k/40:1m/60,1m/100"}}) {
    auto r = SetProfileOption(p, key, value, true, 1024);
    ASSERT_TRUE(r.ok()) << key << ": " << r.error().message;
    EXPECT_EQ(*r, OptionResult::kApplied) << key;
  }
  ASSERT_TRUE(ValidateProfile(p).ok()) << ValidateProfile(p).error().message;
  EXPECT_EQ(p.verify, "meta");  // verify_pattern without verify: fio's header-and-pattern check
  EXPECT_EQ(p.latency_target, 500 * kMilli);
  EXPECT_EQ(p.latency_window, 5 * kSecond);  // a bare number is in microseconds
  EXPECT_EQ(p.priorities.job(), IoprioValue(2, 7));
  EXPECT_EQ(p.priorities.cmdprio_bssplit[0].size(), 2u);  // the 0 % entry is left out
  EXPECT_EQ(p.bssplit_for(IoOp::kWrite), (std::vector<BsSplitEntry>{{1 << 20, 100}}));
  auto back = ParseProfileJson(ToJson(p), "roundtrip");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, p) << ToJson(p).dump();
  // Defaults write nothing new, so existing profiles read as before.
  const json d = ToJson(Profile{});
  for (const char* k : {"continue_on_error", "ignore_error", "latency_target", "verify_pattern",
                        "verify_backlog", "dedupe_percentage", "prio", "cmdprio_percentage",
                        "cmdprio_bssplit", "atomic", "log_prio", "verify_write_sequence"})
    EXPECT_FALSE(d.contains(k)) << k;
}

TEST(ProfileTest, RefusesWhatFioRefusesInTheNewOptions) {
  auto error = [](const json& j) {
    auto r = ParseProfileJson(j, "j.json");
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_NE(error({{"cmdprio_percentage", 10}, {"cmdprio_bssplit", "4k/10"}}).find("exclusive"),
            std::string::npos);
  EXPECT_NE(error({{"cmdprio_bssplit", "4k/60/1/0:4k/60"}}).find("more than 100"),
            std::string::npos);
  EXPECT_NE(error({{"cmdprio_bssplit", "4k/60/1"}}).find("BS/PCT/CLASS/LEVEL"), std::string::npos);
  EXPECT_NE(error({{"dedupe_percentage", 10}, {"dedupe_mode", "working_set"}})
                .find("needs the job's size"),
            std::string::npos);
  EXPECT_NE(error({{"size", "1m"},
                   {"dedupe_percentage", 60},
                   {"dedupe_mode", "working_set"},
                   {"dedupe_working_set_percentage", 50}})
                .find("exceed 100 %"),
            std::string::npos);
  EXPECT_NE(error({{"verify", "pattern"}}).find("needs verify_pattern"), std::string::npos);
  EXPECT_NE(error({{"verify_interval", 64}}).find("at least 80"), std::string::npos);
  EXPECT_NE(error({{"latency_target", "1ms"}, {"rate_iops", 100}}).find("closed loop"),
            std::string::npos);
  EXPECT_NE(error({{"buffer_pattern", "%o"}}).find("verify_pattern only"), std::string::npos);
  EXPECT_NE(error({{"prio", 8}}).find("must be 0..7"), std::string::npos);
  EXPECT_NE(RefusalReason("sprandom").find("newer than fio 3.33"), std::string::npos);
  EXPECT_EQ(RefusalReason("bs"), "");
}

TEST(ProfileTest, VerifyIntervalFollowsFiosFixups) {
  auto interval = [](const json& j) {
    auto p = ParseProfileJson(j, "j.json");
    EXPECT_TRUE(p.ok()) << p.error().message;
    return p.ok() ? p->verify_interval_bytes() : 0;
  };
  EXPECT_EQ(interval({{"rw", "write"}, {"bs", "64k"}}), 65536u);  // default: the write
  EXPECT_EQ(interval({{"rw", "write"}, {"bs", "64k"}, {"verify_interval", 512}}), 512u);
  EXPECT_EQ(interval({{"rw", "write"}, {"bs", "4k"}, {"verify_interval", "8k"}}), 4096u);
  EXPECT_EQ(interval({{"rw", "write"}, {"bsrange", "4k-12k"}}), 4096u);
  EXPECT_EQ(interval({{"rw", "write"}, {"bssplit", "8k/50:12k/50"}, {"verify_interval", "3k"}}),
            4096u);  // does not divide 8k: their gcd
}

TEST(ProfileTest, PatchAndSetFieldRevalidate) {
  auto base = FindBuiltinProfile("4k-70-30");
  ASSERT_TRUE(base.ok());
  auto patched = ApplyProfilePatch(*base, json{{"rwmixwrite", 10}, {"bs", "8k"}}, "matrix.json");
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  EXPECT_EQ(patched->rwmixread, 90u);
  EXPECT_EQ(patched->bs, 8192u);
  EXPECT_EQ(patched->iodepth, base->iodepth);

  auto bad = ApplyProfilePatch(*base, json{{"rwmixread", 150}}, "matrix.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "matrix.json: rwmixread: must be 0..100, got 150");

  Profile p = *base;
  ASSERT_TRUE(SetProfileField(p, "/iodepth", 8).ok());
  EXPECT_EQ(p.iodepth, 8u);
  ASSERT_TRUE(SetProfileField(p, "size", "25%").ok());
  EXPECT_TRUE(p.has_size);
  ASSERT_TRUE(SetProfileField(p, "size", nullptr).ok());  // null restores the default
  EXPECT_FALSE(p.has_size);
  auto r = SetProfileField(p, "numjobs", 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "override: numjobs: must be 1..4096, got 0");
  EXPECT_EQ(p.iodepth, 8u);  // unchanged on error
  EXPECT_FALSE(SetProfileField(p, "a/b", 1).ok());
}

TEST(BuiltinProfilesTest, ListIsCompleteAndEveryProfileIsValid) {
  const std::set<std::string> expected = {"4k-randread",
                                          "4k-randwrite",
                                          "4k-70-30",
                                          "4k-30-70",
                                          "8k-70-30",
                                          "64k-seqread",
                                          "64k-seqwrite",
                                          "hcibench-4k-50rand-r0",
                                          "hcibench-4k-50rand-r30",
                                          "hcibench-4k-50rand-r70",
                                          "hcibench-4k-50rand-r100"};
  std::set<std::string> listed;
  std::set<std::string> fleet;  // FleetProfilesTest checks these
  for (const auto& b : FleetProfiles()) fleet.insert(std::string(b.info.name));
  for (const auto& b : BuiltinProfileList()) {
    listed.insert(std::string(b.name));
    EXPECT_FALSE(b.description.empty()) << b.name;
    EXPECT_FALSE(b.source.empty()) << b.name;
    EXPECT_EQ(b.description.find('\n'), std::string_view::npos);
    auto p = FindBuiltinProfile(b.name);
    ASSERT_TRUE(p.ok()) << b.name;
    EXPECT_EQ(p->name, b.name);
    EXPECT_TRUE(ValidateProfile(*p).ok()) << b.name;
    auto back = ParseProfileJson(ToJson(*p), "builtin");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, *p) << b.name;
  }
  for (const std::string& name : fleet) EXPECT_EQ(listed.erase(name), 1u) << name;
  EXPECT_EQ(listed, expected);

  auto p7030 = FindBuiltinProfile("4k-70-30");
  EXPECT_EQ(p7030->rw, RwMode::kRandRw);
  EXPECT_EQ(p7030->rwmixread, 70u);
  EXPECT_EQ(p7030->bs, 4096u);
  EXPECT_EQ(FindBuiltinProfile("64k-seqread")->rw, RwMode::kRead);
  EXPECT_EQ(FindBuiltinProfile("64k-seqwrite")->bs, 65536u);

  auto group = ExpandProfileName("hcibench-4k-50rand");
  ASSERT_TRUE(group.ok());
  ASSERT_EQ(group->size(), 4u);
  const std::uint32_t reads[] = {0, 30, 70, 100};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ((*group)[i].rwmixread, reads[i]);
    EXPECT_EQ((*group)[i].percentage_random, 50u);
    EXPECT_EQ((*group)[i].rw, RwMode::kRandRw);
  }
  auto unknown = FindBuiltinProfile("4k-random");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("valid: 4k-randread"), std::string::npos);
  EXPECT_EQ(ExpandProfileName("8k-70-30")->size(), 1u);
}

TEST(ProfileTest, SplitSizeIsWrittenOnlyWhenSetAndRefusesOffsetIncrement) {
  auto p = ParseProfileJson(
      json{{"name", "vm"}, {"numjobs", 4}, {"size", "40%"}, {"split_size", true}}, "x.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_TRUE(p->split_size);
  EXPECT_EQ(ToJson(*p).at("split_size"), true);
  // Unset, the key is left out: the JSON of every other profile (and the
  // matrix cell ids hashed from it) is what it was before the key existed.
  EXPECT_FALSE(ToJson(Profile{}).contains("split_size"));
  auto fio = ParseFioJobFile("[vm]\nnumjobs=4\nsize=40%\nsplit_size\n", "t.fio", false);
  ASSERT_TRUE(fio.ok()) << fio.error().message;
  EXPECT_EQ(fio->front(), *p);

  auto bad = ParseProfileJson(json{{"numjobs", 4}, {"split_size", 1}, {"offset_increment", "10%"}},
                              "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("x.json: offset_increment: not with split_size", 0), 0u)
      << bad.error().message;
}

TEST(ProfileTest, SplitSizePartIsEachJobsShareRoundedToTheAlignment) {
  Profile p;
  p.numjobs = 3;
  p.has_size = true;
  p.size = SizeSpec{0, 30, true};
  const std::uint64_t volume = 1000ull << 20;
  const std::uint64_t total = p.size.Resolve(volume, 4096);
  EXPECT_EQ(SplitSizePart(p, volume, 4096), total / 3 / 4096 * 4096);
  // Without a size, the rest of the volume after offset is shared.
  p.has_size = false;
  p.offset = SizeSpec{100ull << 20, 0, false};
  EXPECT_EQ(SplitSizePart(p, volume, 4096), (volume - (100ull << 20)) / 3 / 4096 * 4096);
}

TEST(ProfileTest, OutstandingRequestsPerRunAreCapped) {
  // Each within its own limit, together 2^28 requests in flight.
  auto p = ParseProfileJson({{"name", "big"}, {"iodepth", 65536}, {"numjobs", 4096}}, "big.json");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message,
            "big.json: iodepth: numjobs 4096 x iodepth 65536 = 268435456 outstanding requests; a "
            "run keeps at most 1048576");
  EXPECT_TRUE(
      ParseProfileJson({{"name", "ok"}, {"iodepth", 256}, {"numjobs", 4096}}, "ok.json").ok());
  auto fio = ParseFioJobFile("[j]\niodepth=65536\nnumjobs=17\n", "j.fio", false);
  ASSERT_FALSE(fio.ok());
  EXPECT_NE(fio.error().message.find("outstanding requests"), std::string::npos);
}

}  // namespace
}  // namespace tierlab
