#include "bench/workload/BuiltinProfiles.h"

namespace tierlab {
namespace {

Profile Random(std::string name, RwMode rw, std::uint32_t read_pct, std::uint64_t bs) {
  Profile p;
  p.name = std::move(name);
  p.rw = rw;
  p.rwmixread = read_pct;
  p.bs = bs;
  p.iodepth = 32;
  p.numjobs = 4;
  p.runtime = 60 * kSecond;
  p.time_based = true;
  p.ramp_time = 10 * kSecond;
  return p;
}

Profile Sequential(std::string name, RwMode rw) {
  Profile p = Random(std::move(name), rw, rw == RwMode::kRead ? 100 : 0, 64 * 1024);
  p.iodepth = 16;
  p.has_size = true;
  p.size = SizeSpec{0, 25, true};
  p.offset_increment = SizeSpec{0, 25, true};
  return p;
}

Profile Hci(std::uint32_t read_pct) {
  Profile p =
      Random("hcibench-4k-50rand-r" + std::to_string(read_pct), RwMode::kRandRw, read_pct, 4096);
  p.percentage_random = 50;
  return p;
}

struct Entry {
  BuiltinProfileInfo info;
  Profile (*make)();
};

const std::vector<Entry>& Entries() {
  static const std::vector<Entry> kEntries = {
      {{"4k-randread", "4 KiB random read, QD32 x 4 jobs"},
       [] { return Random("4k-randread", RwMode::kRandRead, 100, 4096); }},
      {{"4k-randwrite", "4 KiB random write, QD32 x 4 jobs"},
       [] { return Random("4k-randwrite", RwMode::kRandWrite, 0, 4096); }},
      {{"4k-70-30", "4 KiB random, 70% read / 30% write (OLTP-like), QD32 x 4 jobs"},
       [] { return Random("4k-70-30", RwMode::kRandRw, 70, 4096); }},
      {{"4k-30-70", "4 KiB random, 30% read / 70% write, QD32 x 4 jobs"},
       [] { return Random("4k-30-70", RwMode::kRandRw, 30, 4096); }},
      {{"8k-70-30", "8 KiB random, 70% read / 30% write (database-like), QD32 x 4 jobs"},
       [] { return Random("8k-70-30", RwMode::kRandRw, 70, 8192); }},
      {{"64k-seqread", "64 KiB sequential read, QD16 x 4 jobs, each on its own quarter"},
       [] { return Sequential("64k-seqread", RwMode::kRead); }},
      {{"64k-seqwrite", "64 KiB sequential write, QD16 x 4 jobs, each on its own quarter"},
       [] { return Sequential("64k-seqwrite", RwMode::kWrite); }},
      {{"hcibench-4k-50rand-r0", "HCIBench 4 KiB, 50% random (vdbench seekpct=50), 0% read"},
       [] { return Hci(0); }},
      {{"hcibench-4k-50rand-r30", "HCIBench 4 KiB, 50% random (vdbench seekpct=50), 30% read"},
       [] { return Hci(30); }},
      {{"hcibench-4k-50rand-r70", "HCIBench 4 KiB, 50% random (vdbench seekpct=50), 70% read"},
       [] { return Hci(70); }},
      {{"hcibench-4k-50rand-r100", "HCIBench 4 KiB, 50% random (vdbench seekpct=50), 100% read"},
       [] { return Hci(100); }},
  };
  return kEntries;
}

constexpr std::string_view kHciGroup = "hcibench-4k-50rand";

std::string ValidNames() {
  std::string s;
  for (const auto& e : Entries())
    s += std::string(s.empty() ? "" : ", ") + std::string(e.info.name);
  return s + ", " + std::string(kHciGroup);
}

}  // namespace

const std::vector<BuiltinProfileInfo>& BuiltinProfileList() {
  static const std::vector<BuiltinProfileInfo> kList = [] {
    std::vector<BuiltinProfileInfo> v;
    for (const auto& e : Entries()) v.push_back(e.info);
    return v;
  }();
  return kList;
}

Expected<Profile> FindBuiltinProfile(std::string_view name) {
  for (const auto& e : Entries()) {
    if (e.info.name == name) return e.make();
  }
  return MakeError("unknown profile '" + std::string(name) + "' (valid: " + ValidNames() + ")");
}

Expected<std::vector<Profile>> ExpandProfileName(std::string_view name) {
  if (name == kHciGroup) {
    std::vector<Profile> v;
    for (std::uint32_t r : {0u, 30u, 70u, 100u}) v.push_back(Hci(r));
    return v;
  }
  auto p = FindBuiltinProfile(name);
  if (!p) return p.error();
  return std::vector<Profile>{std::move(*p)};
}

}  // namespace tierlab
