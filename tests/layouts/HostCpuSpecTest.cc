// A layout's "cpu": the figures or a cpu file, the errors naming the field,
// the host CPU on top of a simulated stack and none on a real one.

#include <gtest/gtest.h>

#include <fstream>
#include <utility>
#include <vector>

#include "layouts/HostCpuSpec.h"
#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "tests/support/TempDir.h"
#include "tiering/core/RealEngine.h"
#include "tiering/core/SimEngine.h"

namespace tierlab {
namespace {

using json = nlohmann::json;

json WithCpu(json cpu) {
  json j = {{"name", "c"},
            {"tiers",
             {{{"name", "cache"}, {"preset", "ram"}, {"capacity", "64m"}},
              {{"name", "capacity"}, {"preset", "ram"}, {"capacity", "256m"}}}},
            {"cache", {{"tier", "cache"}, {"line_size", "4k"}}}};
  j["cpu"] = std::move(cpu);
  return j;
}

std::string ErrorOf(const json& layout) {
  auto l = ParseLayoutJson(layout, "x.json");
  return l.ok() ? "" : l.error().message;
}

TEST(HostCpuSpecTest, FiguresAreReadAndWrittenBack) {
  auto l = ParseLayoutJson(WithCpu({{"per_io_ns", 780},
                                    {"per_write_io_ns", 950},
                                    {"per_kib_ns", 40},
                                    {"per_write_kib_ns", 90}}),
                           "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_TRUE(l->cpu.has_value());
  EXPECT_EQ(l->cpu->cpu.cores, 1u);
  EXPECT_EQ(l->cpu->cpu.per_io, 780);
  EXPECT_EQ(l->cpu->cpu.per_write_io, 950);
  EXPECT_EQ(l->cpu->cpu.per_kib, 40);
  EXPECT_EQ(l->cpu->cpu.per_write_kib, 90);
  const json back = LayoutToJson(*l);
  EXPECT_EQ(back["cpu"], json({{"cores", 1},
                               {"per_io_ns", 780},
                               {"per_kib_ns", 40},
                               {"per_write_io_ns", 950},
                               {"per_write_kib_ns", 90}}));
  auto again = ParseLayoutJson(back, "x.json");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->cpu->cpu.per_write_io, 950);
  EXPECT_FALSE(ParseLayoutJson(WithCpu(nullptr), "x.json")->cpu.has_value());
}

TEST(HostCpuSpecTest, BadFiguresNameTheField) {
  EXPECT_EQ(ErrorOf(WithCpu({{"cores", 2}})),
            "x.json: cpu.per_io_ns: missing; a CPU needs a cost (per_io_ns, per_kib_ns or a "
            "write's)");
  EXPECT_EQ(ErrorOf(WithCpu({{"cores", 0}, {"per_io_ns", 1}})),
            "x.json: cpu.cores: must be 1..1024, got 0");
  EXPECT_EQ(ErrorOf(WithCpu({{"per_io_ns", -5}})),
            "x.json: cpu.per_io_ns: must be 0..1000000000, got -5");
  EXPECT_NE(ErrorOf(WithCpu({{"per_op_ns", 5}})).find("x.json: cpu.per_op_ns: unknown key"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(WithCpu(12)), "x.json: cpu: must be an object of figures or \"file:PATH\"");
  EXPECT_EQ(ErrorOf(WithCpu("cpu.json")),
            "x.json: cpu: \"cpu.json\" is not a file; an object of figures, or \"file:PATH\" "
            "(tierlab calibrate --cpu writes one)");
  json cluster = WithCpu({{"per_io_ns", 5}});
  cluster["cluster"] = {{"nodes", 2}};
  EXPECT_EQ(ErrorOf(cluster),
            "x.json: cpu: a cluster's nodes have cluster.cpu; the layout's cpu is one node's");
}

TEST(HostCpuSpecTest, StallsAreReadCheckedAndWrittenBack) {
  auto l = ParseLayoutJson(WithCpu({{"per_io_ns", 600},
                                    {"stalls",
                                     {{{"duration_ns", 14000}, {"per_second", 800}},
                                      {{"duration_ns", 30000}, {"per_second", 2.5}}}}}),
                           "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_EQ(l->cpu->cpu.stalls.size(), 2u);
  EXPECT_EQ(l->cpu->cpu.stalls[0].duration, 14000);
  EXPECT_DOUBLE_EQ(l->cpu->cpu.stalls[1].per_second, 2.5);
  const json back = LayoutToJson(*l)["cpu"];
  EXPECT_EQ(back["stalls"], json::parse(R"([{"duration_ns": 14000, "per_second": 800.0},
                                            {"duration_ns": 30000, "per_second": 2.5}])"));
  EXPECT_FALSE(
      LayoutToJson(*ParseLayoutJson(WithCpu({{"per_io_ns", 1}}), "x.json"))["cpu"].contains(
          "stalls"));

  EXPECT_EQ(ErrorOf(WithCpu({{"per_io_ns", 1}, {"stalls", 5}})),
            "x.json: cpu.stalls: must be an array of {duration_ns, per_second}");
  EXPECT_EQ(ErrorOf(WithCpu({{"per_io_ns", 1}, {"stalls", {{{"per_second", 5}}}}})),
            "x.json: cpu.stalls[0].duration_ns: missing; how long a stall is");
  EXPECT_EQ(ErrorOf(WithCpu({{"per_io_ns", 1}, {"stalls", {{{"duration_ns", 0}}}}})),
            "x.json: cpu.stalls[0].duration_ns: must be 1..1000000000, got 0");
  EXPECT_NE(ErrorOf(WithCpu({{"per_io_ns", 1}, {"stalls", {{{"duration_ns", 5}, {"rate", 1}}}}}))
                .find("x.json: cpu.stalls[0].rate: unknown key"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(WithCpu({{"per_io_ns", 1}, {"stalls", {7}}})),
            "x.json: cpu.stalls[0]: must be a JSON object");
  // 100 us, 15,000 times a second of the core's own time: 60% of the time.
  EXPECT_EQ(ErrorOf(WithCpu({{"per_io_ns", 1},
                             {"stalls", {{{"duration_ns", 100000}, {"per_second", 15000}}}}})),
            "x.json: cpu.stalls: take 60% of the core's time; at most 50%");
}

TEST(HostCpuSpecTest, SpeedIsReadCheckedAndWrittenBack) {
  auto l =
      ParseLayoutJson(WithCpu({{"per_io_ns", 600},
                               {"speed", {{"window_ns", 1000000}, {"levels", {0.9, 1.0, 1.25}}}}}),
                      "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->cpu->cpu.speed.window, 1000000);
  EXPECT_EQ(l->cpu->cpu.speed.levels, (std::vector<double>{0.9, 1.0, 1.25}));
  EXPECT_EQ(LayoutToJson(*l)["cpu"]["speed"],
            json::parse(R"({"window_ns": 1000000, "levels": [0.9, 1.0, 1.25]})"));
  EXPECT_FALSE(
      LayoutToJson(*ParseLayoutJson(WithCpu({{"per_io_ns", 1}}), "x.json"))["cpu"].contains(
          "speed"));

  const auto speed = [](json s) { return ErrorOf(WithCpu({{"per_io_ns", 1}, {"speed", s}})); };
  EXPECT_EQ(speed(2), "x.json: cpu.speed: must be an object {window_ns, levels}");
  EXPECT_EQ(speed({{"levels", {1}}}),
            "x.json: cpu.speed.window_ns: missing; how long a level lasts");
  EXPECT_EQ(speed({{"window_ns", 5}, {"levels", {1}}}),
            "x.json: cpu.speed.window_ns: must be 1000..1000000000, got 5");
  EXPECT_EQ(speed({{"window_ns", 1000}, {"levels", json::array()}}),
            "x.json: cpu.speed.levels: missing; an array of 1 to 1000 relative speeds, each "
            "above 0");
  EXPECT_EQ(speed({{"window_ns", 1000}, {"levels", {1, 0}}}),
            "x.json: cpu.speed.levels[1]: must be a number above 0");
  EXPECT_EQ(speed({{"window_ns", 1000}, {"levels", {1, "fast"}}}),
            "x.json: cpu.speed.levels[1]: must be a number above 0");
  EXPECT_EQ(speed({{"window_ns", 1000}, {"levels", {0.01, 5}}}),
            "x.json: cpu.speed.levels: the fastest is 500x the slowest; at most 100x");
  EXPECT_NE(speed({{"window_ns", 1000}, {"levels", {1}}, {"p10", 1}})
                .find("x.json: cpu.speed.p10: unknown key"),
            std::string::npos);
}

TEST(HostCpuSpecTest, ACpuFileIsReadAndNamedAgain) {
  testing::TempDir dir;
  const std::string path = dir.path().string() + "/cpu.json";
  NodeCpuSpec spec{
      .cores = 1, .per_io = 700, .per_kib = 30, .per_write_io = 900, .per_write_kib = 60};
  std::ofstream(path) << CpuFileJson(spec, {{"date", "today"}}).dump(2);
  auto l = ParseLayoutJson(WithCpu("file:" + path), "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->cpu->cpu.per_io, 700);
  EXPECT_EQ(l->cpu->cpu.per_write_io, 900);
  EXPECT_EQ(l->cpu->cpu.per_kib, 30);
  EXPECT_EQ(l->cpu->cpu.per_write_kib, 60);
  EXPECT_EQ(LayoutToJson(*l)["cpu"], "file:" + path);

  EXPECT_NE(ErrorOf(WithCpu("file:" + dir.path().string() + "/none.json"))
                .find("x.json: cpu: " + dir.path().string() + "/none.json"),
            std::string::npos);
  std::ofstream(path) << R"({"cpu": {"per_io_ns": 5}})";
  EXPECT_EQ(ErrorOf(WithCpu("file:" + path)),
            "x.json: cpu: " + path + ": cpu_file: missing; must be 1");
  std::ofstream(path) << R"({"cpu_file": 1, "cpu": {"per_io_ns": "fast"}})";
  EXPECT_NE(ErrorOf(WithCpu("file:" + path)).find("x.json: cpu: " + path + ": cpu.per_io_ns: "),
            std::string::npos);
}

TEST(HostCpuSpecTest, ACpuFilesReferenceIsReadAndChecked) {
  testing::TempDir dir;
  const std::string path = dir.path().string() + "/cpu.json";
  const NodeCpuSpec spec{.cores = 1, .per_io = 700};
  std::ofstream(path)
      << CpuFileJson(spec, {}, HostCpuReference{128ull << 20, "/dev/shm", 842.5, 977.5}).dump(2);
  auto l = ParseLayoutJson(WithCpu("file:" + path), "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_TRUE(l->cpu->reference.has_value());
  EXPECT_EQ(l->cpu->reference->region, 128ull << 20);
  EXPECT_EQ(l->cpu->reference->dir, "/dev/shm");
  EXPECT_DOUBLE_EQ(l->cpu->reference->read_ns_per_io, 842.5);
  EXPECT_DOUBLE_EQ(l->cpu->reference->write_ns_per_io, 977.5);
  // Without one, none; figures written in the layout never have one.
  std::ofstream(path) << CpuFileJson(spec, {}).dump(2);
  EXPECT_FALSE(ParseLayoutJson(WithCpu("file:" + path), "x.json")->cpu->reference.has_value());
  EXPECT_NE(ErrorOf(WithCpu({{"per_io_ns", 1}, {"reference", json::object()}}))
                .find("x.json: cpu.reference: unknown key"),
            std::string::npos);

  auto with_reference = [&](const json& ref) {
    json f = CpuFileJson(spec, {});
    f["reference"] = ref;
    std::ofstream(path) << f.dump(2);
    return ErrorOf(WithCpu("file:" + path));
  };
  const std::string at = "x.json: cpu: " + path + ": reference";
  const json good = {
      {"region", "8m"}, {"dir", "/tmp"}, {"read_ns_per_io", 900}, {"write_ns_per_io", 1100}};
  EXPECT_EQ(with_reference(good), "");
  EXPECT_EQ(with_reference(7), at + ": must be an object");
  // Each change to the good one (null: the key removed) and its error.
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"region", nullptr}}, ".region: missing or below 4k; the bytes the probe covers"},
      {{{"dir", nullptr}}, ".dir: missing; where the probe's RAM files go"},
      {{{"read_ns_per_io", 0}}, ".read_ns_per_io: missing; above 0"},
      {{{"write_ns_per_io", nullptr}}, ".write_ns_per_io: missing; above 0"}};
  for (const auto& [change, error] : cases) {
    json bad = good;
    bad.merge_patch(change);
    EXPECT_EQ(with_reference(bad), at + error) << change;
  }
  json bad = good;
  bad["speed"] = 1;
  EXPECT_NE(with_reference(bad).find(at + ".speed: unknown key"), std::string::npos);
}

TEST(HostCpuSpecTest, TheHostCpuIsOnTopInSimulationAndAbsentInARealRun) {
  auto l = ParseLayoutJson(WithCpu({{"per_io_ns", 2000}}), "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  SimEngine sim;
  auto v = BuildVolume(sim, *l, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_NE(v->host_cpu(), nullptr);
  EXPECT_EQ(v->top().Kind(), "cpu");
  EXPECT_EQ(v->host_cpu()->spec().per_io, 2000);
  ASSERT_NE(v->cache(), nullptr);

  testing::TempDir dir;
  RealEngine real;
  BuildOptions o;
  o.temp_dir = dir.path().string();
  auto r = BuildVolume(real, *l, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->host_cpu(), nullptr);
  EXPECT_NE(r->top().Kind(), "cpu");
}

// The time one 4k read at `offset` takes on a fresh volume of `layout`, in
// simulation, alone: the clock at its completion, not after the engine
// runs dry (SubmitAndRun's), since a miss's promotion may end later.
Nanos QdOneRead(const json& layout, std::uint64_t offset) {
  auto l = ParseLayoutJson(layout, "x.json");
  EXPECT_TRUE(l.ok()) << l.error().message;
  if (!l.ok()) return -1;
  SimEngine sim;
  auto v = BuildVolume(sim, *l, {});
  EXPECT_TRUE(v.ok()) << v.error().message;
  if (!v.ok()) return -1;
  Nanos done = -1;
  v->top().Submit(IoRequest{IoOp::kRead, 0, offset, 4096, nullptr}, [&](Status st) {
    EXPECT_EQ(st, Status::kOk);
    done = sim.Now();
  });
  sim.Run();
  return done;
}

TEST(HostCpuSpecTest, ARamDevicesTimeIsTheHostCpusOnce) {
  // The CPU's costs are measured on mapped RAM files, so they hold the RAM
  // device's copies: under the layout's cpu a RAM device takes no time of
  // its own, and a read at QD1 costs the CPU's figure alone.
  const json cpu = {{"per_io_ns", 2000}};
  EXPECT_EQ(QdOneRead(WithCpu(cpu), 0), 2000);
  EXPECT_EQ(QdOneRead(WithCpu(cpu), 128 << 20), 2000);
  // Without a cpu the RAM devices' own latency is the whole of it.
  json no_cpu = WithCpu(cpu);
  no_cpu.erase("cpu");
  const Nanos ram = QdOneRead(no_cpu, 0);
  EXPECT_GT(ram, 0);
  EXPECT_LT(ram, 2000);
  // A device that is not RAM keeps its own time below the CPU: a miss on an
  // NVMe capacity tier pays the CPU and the NVMe read.
  json nvme = WithCpu(cpu);
  nvme["tiers"][1]["preset"] = "nvme-pm1725";
  json nvme_alone = nvme;
  nvme_alone.erase("cpu");
  EXPECT_EQ(QdOneRead(nvme, 0), 2000 + QdOneRead(nvme_alone, 0));
  EXPECT_GT(QdOneRead(nvme_alone, 0), 10'000);
}

}  // namespace
}  // namespace tierlab
