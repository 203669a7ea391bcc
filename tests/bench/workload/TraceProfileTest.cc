// A block trace as a matrix profile: the trace profile schema, matrix
// expansion with trace profiles (axes, overrides, identity, errors) and a
// trace cell run by the matrix runner.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/lab/Matrix.h"
#include "bench/lab/MatrixRunner.h"
#include "bench/workload/ProfileLoader.h"
#include "bench/workload/TraceProfile.h"
#include "layouts/MatrixSpec.h"

namespace tierlab {
namespace {

const std::string kTraces = std::string(TIERLAB_SOURCE_DIR) + "/tests/data/traces";
// 1000 records of MSR Cambridge "hm" (reads and writes, 512 B .. 64 KiB).
const std::string kMsr = "msr-cambridge1-sample.csv";

TEST(TraceProfileTest, DefaultsAndEffectiveJson) {
  auto p = ParseTraceProfileJson({{"trace", kMsr}}, "t.json", kTraces);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->name, kMsr);
  EXPECT_EQ(p->path, kTraces + "/" + kMsr);  // found next to base_dir
  EXPECT_EQ(p->trace_options.format, TraceFormat::kAuto);
  EXPECT_EQ(p->replay.mode, ReplayMode::kClosed);
  EXPECT_EQ(p->replay.iodepth, 1u);
  EXPECT_FALSE(p->replay.reject_past_end);
  EXPECT_FALSE(ToJson(*p).contains("iodepth"));  // follows the mode until set

  auto open = ParseTraceProfileJson({{"trace", kMsr},
                                     {"replay_mode", "open"},
                                     {"replay_time_scale", 200},
                                     {"replay_scale", 4},
                                     {"replay_past_end", "reject"},
                                     {"format", "msr"},
                                     {"number_ios", 100}},
                                    "t.json", kTraces);
  ASSERT_TRUE(open.ok()) << open.error().message;
  EXPECT_EQ(open->replay.iodepth, 256u);  // the open-loop default, as tierlab run
  EXPECT_EQ(open->replay.time_scale_percent, 200);
  EXPECT_EQ(open->replay.replay_scale, 4u);
  EXPECT_TRUE(open->replay.reject_past_end);
  EXPECT_EQ(open->replay.max_records, 100u);
  EXPECT_EQ(open->trace_options.format, TraceFormat::kMsrCsv);
  auto again = ParseTraceProfileJson(ToJson(*open), "again", kTraces);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ToJson(*again), ToJson(*open));

  auto patched = ApplyTraceProfilePatch(*open, {{"iodepth", 16}}, "patch");
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  EXPECT_EQ(patched->replay.iodepth, 16u);
  EXPECT_EQ(patched->path, open->path);
}

TEST(TraceProfileTest, ErrorsNameTheKey) {
  auto unknown = ParseTraceProfileJson({{"trace", kMsr}, {"bs", "4k"}}, "m.json: profiles[1]");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("m.json: profiles[1]"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("bs"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("replay_time_scale"), std::string::npos);  // valid keys
  EXPECT_EQ(unknown.error().kind, ErrorKind::kInput);

  auto mode = ParseTraceProfileJson({{"trace", kMsr}, {"replay_mode", "sideways"}}, "m.json");
  ASSERT_FALSE(mode.ok());
  EXPECT_NE(mode.error().message.find("replay_mode"), std::string::npos);
  EXPECT_FALSE(ParseTraceProfileJson({{"trace", ""}}, "m.json").ok());
  EXPECT_FALSE(ParseTraceProfileJson({{"trace", kMsr}, {"iodepth", 0}}, "m.json").ok());
  EXPECT_FALSE(ParseTraceProfileJson({{"trace", kMsr}, {"format", "csv?"}}, "m.json").ok());

  auto missing = ParseTraceProfileJson({{"trace", "no-such.csv"}}, "m.json", kTraces);
  ASSERT_TRUE(missing.ok());  // parsing does not open the file
  auto check = CheckTraceProfile(*missing);
  ASSERT_FALSE(check.ok());
  EXPECT_NE(check.error().message.find("no-such.csv"), std::string::npos);
}

// object_size: parsed for key-only traces, in the effective JSON only for
// them (or when changed), so other traces' results keep their shape.
TEST(TraceProfileTest, ObjectSizeOfKeyTraces) {
  auto keys = ParseTraceProfileJson({{"trace", "k.bin"}, {"format", "keys-u64"}}, "t.json");
  ASSERT_TRUE(keys.ok()) << keys.error().message;
  EXPECT_EQ(keys->trace_options.format, TraceFormat::kKeysU64);
  EXPECT_EQ(keys->trace_options.object_size, 4096u);
  EXPECT_EQ(ToJson(*keys)["object_size"], 4096);
  auto small = ParseTraceProfileJson({{"trace", kMsr}, {"object_size", 512}}, "t.json");
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->trace_options.object_size, 512u);
  EXPECT_EQ(ParseTraceProfileJson(ToJson(*small), "again")->trace_options.object_size, 512u);
  auto msr = ParseTraceProfileJson({{"trace", kMsr}}, "t.json");
  ASSERT_TRUE(msr.ok());
  EXPECT_FALSE(ToJson(*msr).contains("object_size"));
  EXPECT_FALSE(ParseTraceProfileJson({{"trace", kMsr}, {"object_size", 0}}, "t.json").ok());
}

// "-" is standard input: never resolved against the matrix directory, named
// "stdin", and refused by the matrix check (a matrix reads its traces more
// than once).
TEST(TraceProfileTest, StandardInputIsNotForMatrices) {
  auto p = ParseTraceProfileJson({{"trace", "-"}}, "t.json", kTraces);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->path, "-");
  EXPECT_EQ(p->name, "stdin");
  auto check = CheckTraceProfile(*p);
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.error().kind, ErrorKind::kInput);
  EXPECT_NE(check.error().message.find("standard input can be read only once"), std::string::npos)
      << check.error().message;
}

nlohmann::json TraceMatrix() {
  return {{"name", "traces"},
          {"layouts", {"nvme1+hdd2"}},
          {"profiles", {{{"trace", kMsr}, {"name", "hm"}}, "4k-randread"}},
          {"profile_override", {{"runtime", "20ms"}, {"size", "1g"}, {"iodepth", 4}}},
          {"axes", {{"iodepth", {1, 8}}}}};
}

TEST(TraceProfileTest, MatrixExpandsTraceProfilesWithAxes) {
  auto spec = ParseMatrixJson(TraceMatrix(), "m.json", kTraces);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto m = ExpandMatrix(*spec);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->cells.size(), 4u);  // 2 profiles x 2 iodepths
  const MatrixCell& t1 = m->cells[0];
  const MatrixCell& t8 = m->cells[1];
  ASSERT_TRUE(t1.trace.has_value());
  ASSERT_TRUE(t8.trace.has_value());
  EXPECT_FALSE(m->cells[2].trace.has_value());  // the synthetic profile
  EXPECT_EQ(t1.profile_name, "hm");
  EXPECT_EQ(t1.label, "nvme1+hdd2 | hm | iodepth=1");
  EXPECT_EQ(t1.trace->replay.iodepth, 1u);  // the axis wins over profile_override
  EXPECT_EQ(t8.trace->replay.iodepth, 8u);
  EXPECT_EQ(t8.profile.iodepth, 8u);
  EXPECT_NE(t1.id, t8.id);
  EXPECT_EQ(t1.trace->path, kTraces + "/" + kMsr);

  // Without the axis, profile_override's iodepth reaches the trace and its
  // runtime/size (not trace keys) are left to the synthetic profile.
  nlohmann::json j = TraceMatrix();
  j.erase("axes");
  auto spec2 = ParseMatrixJson(j, "m.json", kTraces);
  ASSERT_TRUE(spec2.ok());
  auto m2 = ExpandMatrix(*spec2);
  ASSERT_TRUE(m2.ok()) << m2.error().message;
  ASSERT_EQ(m2->cells.size(), 2u);
  EXPECT_EQ(m2->cells[0].trace->replay.iodepth, 4u);
  EXPECT_EQ(m2->cells[1].profile.runtime, 20 * kMilli);
}

TEST(TraceProfileTest, MatrixErrorsNameTheMatrixAndTheAxis) {
  nlohmann::json bad_axis = TraceMatrix();
  bad_axis["axes"] = {{"bs", {"4k", "8k"}}};
  auto spec = ParseMatrixJson(bad_axis, "m.json", kTraces);
  ASSERT_TRUE(spec.ok());
  auto m = ExpandMatrix(*spec);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("axes.\"bs\""), std::string::npos) << m.error().message;

  nlohmann::json missing = TraceMatrix();
  missing["profiles"] = {{{"trace", "missing.csv"}}};
  auto spec2 = ParseMatrixJson(missing, "m.json", kTraces);
  ASSERT_TRUE(spec2.ok());
  auto m2 = ExpandMatrix(*spec2);
  ASSERT_FALSE(m2.ok());
  EXPECT_NE(m2.error().message.find("m.json: profiles[0]"), std::string::npos)
      << m2.error().message;
  EXPECT_NE(m2.error().message.find("missing.csv"), std::string::npos);
}

// A trace profile in its own file: a matrix names it like a profile file
// (the trace resolves next to it); LoadProfiles (tierlab run --profile) says
// what it is rather than "unknown key trace".
TEST(TraceProfileTest, TraceProfileFileInAMatrixAndInLoadProfiles) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("tierlab-traceprofile-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir / "p");
  std::filesystem::copy_file(kTraces + "/" + kMsr, dir / "p" / kMsr,
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "p" / "hm.json") << R"({"trace": ")" << kMsr << R"(", "name": "hm-file"})";
  auto spec = ParseMatrixJson({{"layouts", {"nvme1+hdd2"}}, {"profiles", {"p/hm.json"}}}, "m.json",
                              dir.string());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto m = ExpandMatrix(*spec);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->cells.size(), 1u);
  ASSERT_TRUE(m->cells[0].trace.has_value());
  EXPECT_EQ(m->cells[0].profile_name, "hm-file");
  EXPECT_EQ(m->cells[0].trace->path, (dir / "p" / kMsr).string());

  auto loaded = LoadProfiles((dir / "p" / "hm.json").string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("trace profile"), std::string::npos)
      << loaded.error().message;
  std::filesystem::remove_all(dir);
}

// A trace cell replays every record and reports like `tierlab run --trace`.
TEST(TraceProfileTest, RunnerReplaysTheTraceOfACell) {
  nlohmann::json j = TraceMatrix();
  j["profiles"] = {{{"trace", kMsr}, {"name", "hm"}, {"iodepth", 4}}};
  j.erase("axes");
  auto spec = ParseMatrixJson(j, "m.json", kTraces);
  ASSERT_TRUE(spec.ok());
  auto m = ExpandMatrix(*spec);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->cells.size(), 1u);
  MatrixRunOptions one_job;
  one_job.jobs = 1;
  auto r = RunMatrix(*m, one_job);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const nlohmann::json& cell = r->at("cells").at(0);
  const nlohmann::json& replay = cell.at("replay");
  EXPECT_EQ(replay.at("records"), 1000);
  EXPECT_EQ(replay.at("format"), "msr");
  EXPECT_EQ(replay.at("iodepth"), 4);
  EXPECT_EQ(replay.at("rejected"), 0);
  const auto reads = replay.at("reads").get<std::uint64_t>();
  const auto writes = replay.at("writes").get<std::uint64_t>();
  EXPECT_GT(reads, 0u);
  EXPECT_GT(writes, 0u);
  const nlohmann::json& job = cell.at("jobs").at(0);
  EXPECT_EQ(job.at("read").at("total_ios").get<std::uint64_t>(), reads);
  EXPECT_EQ(job.at("write").at("total_ios").get<std::uint64_t>(), writes);
  EXPECT_EQ(cell.at("profile").at("name"), "hm");
  EXPECT_EQ(cell.at("profile_name"), "hm");

  // The same matrix gives the same bytes (nothing depends on wall time).
  auto again = RunMatrix(*m, one_job);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->dump(), r->dump());
}

}  // namespace
}  // namespace tierlab
