// The preset catalog: lookup, error messages, and that every preset's figures
// are consistent enough for the models to reproduce them.

#include <gtest/gtest.h>

#include <algorithm>

#include "tiering/devices/DevicePreset.h"

namespace tierlab {
namespace {

TEST(DevicePresetTest, RequiredPresetsExistWithTheirType) {
  const std::pair<const char*, DeviceType> required[] = {
      {"optane-p4800x", DeviceType::kOptane}, {"nvme-pm1725", DeviceType::kNvme},
      {"ssd-hk4e", DeviceType::kSsd},         {"hdd-7200", DeviceType::kHdd},
      {"hdd-10k", DeviceType::kHdd},          {"ram", DeviceType::kRam},
  };
  for (const auto& [name, type] : required) {
    Expected<DevicePreset> p = FindPreset(name);
    ASSERT_TRUE(p.ok()) << name;
    EXPECT_EQ(p->name, name);
    EXPECT_EQ(p->type, type) << name;
    EXPECT_GT(p->capacity_bytes, 0u) << name;
    EXPECT_FALSE(p->product.empty()) << name;
  }
}

TEST(DevicePresetTest, UnknownNameListsKnownOnes) {
  Expected<DevicePreset> p = FindPreset("nvme-nope");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind, ErrorKind::kInput);
  EXPECT_NE(p.error().message.find("nvme-nope"), std::string::npos);
  for (const std::string& n : PresetNames()) {
    EXPECT_NE(p.error().message.find(n), std::string::npos) << n;
  }
}

TEST(DevicePresetTest, NamesAreUniqueAndListed) {
  std::vector<std::string> names = PresetNames();
  EXPECT_EQ(names.size(), AllPresets().size());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  const std::string list = KnownPresetList();
  EXPECT_EQ(list.rfind(std::string(AllPresets().front().name) + ", ", 0), 0u) << list;
  EXPECT_EQ(list.size() - list.rfind(AllPresets().back().name), AllPresets().back().name.size());
}

TEST(DevicePresetTest, DeviceTypesParseAndRankFastestFirst) {
  for (DeviceType t : {DeviceType::kRam, DeviceType::kOptane, DeviceType::kNvme, DeviceType::kSsd,
                       DeviceType::kHdd}) {
    Expected<DeviceType> back = ParseDeviceType(ToString(t));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, t);
  }
  EXPECT_FALSE(ParseDeviceType("tape").ok());
  EXPECT_GT(SpeedRank(DeviceType::kRam), SpeedRank(DeviceType::kOptane));
  EXPECT_GT(SpeedRank(DeviceType::kOptane), SpeedRank(DeviceType::kNvme));
  EXPECT_GT(SpeedRank(DeviceType::kNvme), SpeedRank(DeviceType::kSsd));
  EXPECT_GT(SpeedRank(DeviceType::kSsd), SpeedRank(DeviceType::kHdd));
}

// The SSD model reaches a preset's QD1 latency only if one op's back-end cost
// (1/IOPS) fits inside it, and its 4 KiB IOPS only if 4 KiB is IOPS-bound.
TEST(DevicePresetTest, FlashFiguresAreSelfConsistent) {
  for (const DevicePreset& p : AllPresets()) {
    if (p.is_hdd()) continue;
    SCOPED_TRACE(std::string(p.name));
    EXPECT_GT(p.read_iops_4k, 0);
    EXPECT_GT(p.write_iops_4k, 0);
    EXPECT_GT(p.seq_read_mbps, 0);
    EXPECT_GT(p.seq_write_mbps, 0);
    EXPECT_GE(static_cast<double>(p.read_latency), 1e9 / p.read_iops_4k);
    EXPECT_GE(static_cast<double>(p.write_latency), 1e9 / p.write_iops_4k);
    EXPECT_GE(p.service_units, 1u);
    EXPECT_GE(p.endurance_dwpd, 0);
  }
}

TEST(DevicePresetTest, HddFiguresAreSelfConsistent) {
  int hdds = 0;
  for (const DevicePreset& p : AllPresets()) {
    if (!p.is_hdd()) continue;
    ++hdds;
    SCOPED_TRACE(std::string(p.name));
    EXPECT_GT(p.rpm, 0);
    EXPECT_GT(p.avg_seek_read_ms, p.track_to_track_read_ms);
    EXPECT_GT(p.avg_seek_write_ms, p.track_to_track_write_ms);
    EXPECT_GT(p.track_to_track_read_ms, 0);
    EXPECT_GE(p.max_transfer_mbps, p.min_transfer_mbps);
    EXPECT_GT(p.min_transfer_mbps, 0);
    EXPECT_GT(p.ncq_depth, 1u);
    EXPECT_NEAR(p.revolution_ns(), 60e9 / p.rpm, 1e-6);
  }
  EXPECT_GE(hdds, 2);
}

}  // namespace
}  // namespace tierlab
