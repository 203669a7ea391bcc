// A preset in a file of its own: what calibrate writes, a layout reads back
// as the same figures; a bad file is refused naming it and the field.

#include <gtest/gtest.h>

#include <fstream>

#include "layouts/Layout.h"
#include "layouts/PresetFile.h"
#include "tests/support/TempDir.h"

namespace tierlab {
namespace {

using testing::TempDir;

using json = nlohmann::json;

DevicePreset Measured() {
  DevicePreset p;
  p.name = "calibrated-vda";
  p.product = "tierlab calibrate x.img";
  p.type = DeviceType::kSsd;
  p.capacity_bytes = 8ull << 30;
  p.read_iops_4k = 61'234;
  p.write_iops_4k = 40'100;
  p.seq_read_mbps = 1'450.5;
  p.seq_write_mbps = 980;
  p.read_latency = 71'500;
  p.write_latency = 88'250;
  p.service_units = 5;
  return p;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A one-tier layout over a catalog preset with `model` overrides.
json OneTierWithModel(const std::string& preset, const json& model) {
  return {{"name", "one"}, {"tiers", {{{"name", "d"}, {"preset", preset}, {"model", model}}}}};
}

Expected<LayoutSpec> LayoutWith(const std::string& preset) {
  json j = {{"name", "one"}, {"tiers", {{{"name", "d"}, {"preset", preset}, {"capacity", "1g"}}}}};
  return ParseLayoutJson(j, "l.json");
}

// A calibrated disk: every mechanical figure the HDD model uses survives the
// file, a zero overhead and "no command queueing" (0 tags) included.
TEST(PresetFileTest, ADiskKeepsEveryMechanicalFigure) {
  DevicePreset d;
  d.name = "calibrated-sda";
  d.product = "tierlab calibrate /dev/sda";
  d.type = DeviceType::kHdd;
  d.capacity_bytes = 4'000'000'000'000ull;
  d.rpm = 5400;
  d.avg_seek_read_ms = 9.5;
  d.avg_seek_write_ms = 10.25;
  d.track_to_track_read_ms = 0.5;
  d.track_to_track_write_ms = 0.75;
  d.max_transfer_mbps = 180;
  d.min_transfer_mbps = 85;
  d.overhead_read_miss = 410'000;
  d.overhead_read_hit = 0;
  d.overhead_write = 95'500;
  d.ncq_depth = 0;
  d.cache_mib = 64;
  d.interface_mbps = 550;
  TempDir dir;
  const std::string path = dir.Path("disk.json");
  Write(path, PresetFileJson(d, nullptr).dump(2));
  auto l = LayoutWith("file:" + path);
  ASSERT_TRUE(l.ok()) << l.error().message;
  const DevicePreset& p = l->tiers[0].preset;
  EXPECT_EQ(p.type, DeviceType::kHdd);
  EXPECT_DOUBLE_EQ(p.rpm, d.rpm);
  EXPECT_DOUBLE_EQ(p.avg_seek_read_ms, d.avg_seek_read_ms);
  EXPECT_DOUBLE_EQ(p.avg_seek_write_ms, d.avg_seek_write_ms);
  EXPECT_DOUBLE_EQ(p.track_to_track_read_ms, d.track_to_track_read_ms);
  EXPECT_DOUBLE_EQ(p.track_to_track_write_ms, d.track_to_track_write_ms);
  EXPECT_DOUBLE_EQ(p.max_transfer_mbps, d.max_transfer_mbps);
  EXPECT_DOUBLE_EQ(p.min_transfer_mbps, d.min_transfer_mbps);
  EXPECT_EQ(p.overhead_read_miss, d.overhead_read_miss);
  EXPECT_EQ(p.overhead_read_hit, d.overhead_read_hit);
  EXPECT_EQ(p.overhead_write, d.overhead_write);
  EXPECT_EQ(p.ncq_depth, 0u);
  EXPECT_EQ(p.cache_mib, d.cache_mib);
  EXPECT_DOUBLE_EQ(p.interface_mbps, d.interface_mbps);
  // A hand-written disk file that leaves the tags out gets SATA's 32.
  Write(path, R"({"preset_file": 1, "name": "d", "capacity": "1t", "model": {"type": "hdd",
      "rpm": 7200, "avg_seek_ms": 8, "max_transfer_mbps": 200, "min_transfer_mbps": 100}})");
  auto hand = LayoutWith("file:" + path);
  ASSERT_TRUE(hand.ok()) << hand.error().message;
  EXPECT_EQ(hand->tiers[0].preset.ncq_depth, 32u);
}

TEST(PresetFileTest, ALayoutReadsBackWhatWasWritten) {
  TempDir dir;
  const std::string path = dir.Path("cal.json");
  Write(path, PresetFileJson(Measured(), json{{"points", json::array()}}).dump(2));
  auto l = LayoutWith("file:" + path);
  ASSERT_TRUE(l.ok()) << l.error().message;
  const DevicePreset& p = l->tiers[0].preset;
  const DevicePreset want = Measured();
  EXPECT_EQ(p.name, "file:" + path);
  EXPECT_EQ(p.product, want.product);
  EXPECT_EQ(p.type, want.type);
  EXPECT_EQ(p.capacity_bytes, want.capacity_bytes);
  EXPECT_DOUBLE_EQ(p.read_iops_4k, want.read_iops_4k);
  EXPECT_DOUBLE_EQ(p.write_iops_4k, want.write_iops_4k);
  EXPECT_DOUBLE_EQ(p.seq_read_mbps, want.seq_read_mbps);
  EXPECT_DOUBLE_EQ(p.seq_write_mbps, want.seq_write_mbps);
  EXPECT_EQ(p.read_latency, want.read_latency);
  EXPECT_EQ(p.write_latency, want.write_latency);
  EXPECT_EQ(p.service_units, want.service_units);
  // Written back, the layout names the file again.
  EXPECT_EQ(LayoutToJson(*l)["tiers"][0]["preset"], "file:" + path);
  auto again = ParseLayoutJson(LayoutToJson(*l), "again");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_DOUBLE_EQ(again->tiers[0].preset.read_iops_4k, want.read_iops_4k);
}

TEST(PresetFileTest, ATiersModelStillOverridesAFilePreset) {
  TempDir dir;
  const std::string path = dir.Path("cal.json");
  Write(path, PresetFileJson(Measured(), nullptr).dump());
  json j = {{"name", "one"},
            {"tiers",
             {{{"name", "d"}, {"preset", "file:" + path}, {"model", {{"read_iops_4k", 5000}}}}}}};
  auto l = ParseLayoutJson(j, "l.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_DOUBLE_EQ(l->tiers[0].preset.read_iops_4k, 5000);
  EXPECT_DOUBLE_EQ(l->tiers[0].preset.write_iops_4k, Measured().write_iops_4k);
}

std::string ErrorOf(const std::string& text) {
  TempDir dir;
  const std::string path = dir.Path("bad.json");
  Write(path, text);
  auto l = LayoutWith("file:" + path);
  if (l.ok()) return "(accepted)";
  // The temp directory differs per run: the message names the file without it.
  std::string m = l.error().message;
  const std::string d = dir.path().string() + "/";
  for (std::size_t at; (at = m.find(d)) != std::string::npos;) m.erase(at, d.size());
  return m;
}

TEST(PresetFileTest, BadFilesAreRefusedNamingTheFileAndField) {
  const json good = PresetFileJson(Measured(), nullptr);
  json no_type = good;
  no_type["model"].erase("type");
  EXPECT_EQ(ErrorOf(no_type.dump()),
            "l.json: tiers[0].preset: bad.json: model.type: missing; one of ram, optane, nvme, "
            "ssd, hdd");
  json no_iops = good;
  no_iops["model"].erase("write_iops_4k");
  EXPECT_EQ(
      ErrorOf(no_iops.dump()),
      "l.json: tiers[0].preset: bad.json: model.write_iops_4k: missing; a ssd model needs it");
  json extra = good;
  extra["speed"] = 1;
  EXPECT_NE(ErrorOf(extra.dump()).find("bad.json: speed: unknown key"), std::string::npos)
      << ErrorOf(extra.dump());
  json bad_figure = good;
  bad_figure["model"]["read_iops_4k"] = -3;
  EXPECT_NE(ErrorOf(bad_figure.dump()).find("bad.json: model.read_iops_4k:"), std::string::npos)
      << ErrorOf(bad_figure.dump());
  json no_version = good;
  no_version.erase("preset_file");
  EXPECT_EQ(ErrorOf(no_version.dump()),
            "l.json: tiers[0].preset: bad.json: preset_file: missing; must be 1");
  json no_capacity = good;
  no_capacity.erase("capacity");
  EXPECT_EQ(ErrorOf(no_capacity.dump()),
            "l.json: tiers[0].preset: bad.json: capacity: missing; the device's size in bytes");
  EXPECT_NE(ErrorOf("[1, 2]").find("a preset file is a JSON object"), std::string::npos);
  EXPECT_NE(ErrorOf("{").find("bad.json"), std::string::npos);
}

// A calibrated write cliff survives the file; its figures must hang
// together, in a file as in a tier's model.
TEST(PresetFileTest, AWriteCliffSurvivesTheFile) {
  DevicePreset p = Measured();
  p.write_cliff_bytes = 24ull << 30;
  p.steady_write_iops_4k = 9'500;
  p.steady_seq_write_mbps = 410.5;
  p.cliff_recovery_mbps = 12.25;
  TempDir dir;
  const std::string path = dir.Path("cal.json");
  Write(path, PresetFileJson(p, nullptr).dump());
  auto l = LayoutWith("file:" + path);
  ASSERT_TRUE(l.ok()) << l.error().message;
  const DevicePreset& q = l->tiers[0].preset;
  EXPECT_EQ(q.write_cliff_bytes, p.write_cliff_bytes);
  EXPECT_DOUBLE_EQ(q.steady_write_iops_4k, p.steady_write_iops_4k);
  EXPECT_DOUBLE_EQ(q.steady_seq_write_mbps, p.steady_seq_write_mbps);
  EXPECT_DOUBLE_EQ(q.cliff_recovery_mbps, p.cliff_recovery_mbps);
  // Without a cliff the file has none of its keys.
  EXPECT_FALSE(PresetFileJson(Measured(), nullptr)["model"].contains("write_cliff"));
}

TEST(PresetFileTest, WriteCliffFiguresThatDoNotHangTogetherAreRefused) {
  json good = PresetFileJson(Measured(), nullptr);
  good["model"]["write_cliff"] = "8g";
  good["model"]["steady_write_iops_4k"] = 9000;
  good["model"]["steady_seq_write_mbps"] = 400;
  EXPECT_EQ(ErrorOf(good.dump()), "(accepted)");
  json no_steady = good;
  no_steady["model"].erase("steady_seq_write_mbps");
  EXPECT_EQ(ErrorOf(no_steady.dump()),
            "l.json: tiers[0].preset: bad.json: model.steady_seq_write_mbps: missing; a "
            "write_cliff needs the bandwidth past it");
  json rising = good;
  rising["model"]["steady_write_iops_4k"] = 50000;
  EXPECT_EQ(ErrorOf(rising.dump()),
            "l.json: tiers[0].preset: bad.json: model.steady_write_iops_4k: is above "
            "write_iops_4k (40100): a cliff falls, it does not rise");
  json no_cliff = good;
  no_cliff["model"].erase("write_cliff");
  EXPECT_EQ(ErrorOf(no_cliff.dump()),
            "l.json: tiers[0].preset: bad.json: model.steady_write_iops_4k: needs write_cliff, "
            "the bytes written before the cliff");
  // The same in a tier's model, over a catalog preset.
  json j = OneTierWithModel(
      "hdd-7200",
      {{"write_cliff", "1g"}, {"steady_write_iops_4k", 100}, {"steady_seq_write_mbps", 100}});
  auto l = ParseLayoutJson(j, "l.json");
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message,
            "l.json: tiers[0].model.write_cliff: is a flash figure; an hdd model has none");
  j["tiers"][0]["preset"] = "ssd-hk4e";
  l = ParseLayoutJson(j, "l.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->tiers[0].preset.write_cliff_bytes, 1ull << 30);
}

// A calibrated device's pauses survive the file; bad ones are refused by
// field, in a file and in a tier's model alike.
TEST(PresetFileTest, PausesSurviveTheFileAndBadOnesAreRefused) {
  DevicePreset p = Measured();
  p.pauses = {{337'500, 1.5}, {1'360'000, 3.25}};
  TempDir dir;
  const std::string path = dir.Path("cal.json");
  Write(path, PresetFileJson(p, nullptr).dump());
  auto l = LayoutWith("file:" + path);
  ASSERT_TRUE(l.ok()) << l.error().message;
  const DevicePreset& q = l->tiers[0].preset;
  ASSERT_EQ(q.pauses.size(), 2u);
  EXPECT_EQ(q.pauses[1].duration, 1'360'000);
  EXPECT_DOUBLE_EQ(q.pauses[1].per_second, 3.25);
  EXPECT_EQ(q.pauses[0].duration, 337'500);
  EXPECT_FALSE(PresetFileJson(Measured(), nullptr)["model"].contains("pauses"));

  json bad = PresetFileJson(p, nullptr);
  bad["model"]["pauses"] = 3;
  EXPECT_EQ(ErrorOf(bad.dump()),
            "l.json: tiers[0].preset: bad.json: model.pauses: must be an array of "
            "{duration_us, per_second}");
  bad["model"]["pauses"] = json::array({{{"per_second", 2}}});
  EXPECT_EQ(ErrorOf(bad.dump()),
            "l.json: tiers[0].preset: bad.json: model.pauses[0].duration_us: missing; how long "
            "a pause is");
  // 10,000 a second of the device's own time of 1 ms: 91% of the time;
  // 1,500 (60%) is a device a calibration on a busy disk may measure.
  auto busy = ParseLayoutJson(
      OneTierWithModel("ssd-hk4e", {{"pauses", {{{"duration_us", 1000}, {"per_second", 10000}}}}}),
      "l.json");
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.error().message,
            "l.json: tiers[0].model.pauses: take 91% of the device's time; at most 90%");
  EXPECT_TRUE(ParseLayoutJson(
                  OneTierWithModel("ssd-hk4e",
                                   {{"pauses", {{{"duration_us", 1000}, {"per_second", 1500}}}}}),
                  "l.json")
                  .ok());
}

TEST(PresetFileTest, AMissingFileIsNamed) {
  auto l = LayoutWith("file:no-such-preset.json");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("tiers[0].preset: no-such-preset.json"), std::string::npos)
      << l.error().message;
}

}  // namespace
}  // namespace tierlab
