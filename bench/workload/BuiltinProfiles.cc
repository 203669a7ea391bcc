#include "bench/workload/BuiltinProfiles.h"

#include "bench/workload/FleetProfiles.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

constexpr std::string_view kOwnDefaults =
    "tierlab's saturating defaults for a hybrid array (bench/workload/BuiltinProfiles.h)";
constexpr std::string_view kOldHciEasyRun =
    "HCIBench's earlier easy run: 4k, vdbench seekpct=50 (percentage_random) at four read "
    "ratios; the current easy run (vmware-labs/hci-benchmark-appliance, "
    "HCIBench/automation/lib/easy-run.rb) is the hcibench-4k* / -8k* / -256k* family";

Profile Random(RwMode rw, std::uint32_t read_pct, std::uint64_t bs) {
  Profile p;
  p.rw = rw;
  p.rwmixread = read_pct;
  p.bs = bs;
  p.iodepth = 32;
  p.numjobs = 4;
  p.runtime = 60 * kSecond;
  p.time_based = true;
  p.ramp_time = 10 * kSecond;
  // Offsets drawn with repeats: with fio's random map a region larger than
  // the cache hits in cycles of a pass each (RandomMap.h), and a window
  // shorter than a pass would report where in the pass it fell.
  p.norandommap = true;
  return p;
}

Profile Sequential(RwMode rw) {
  Profile p = Random(rw, rw == RwMode::kRead ? 100 : 0, std::uint64_t{64} << 10);
  p.iodepth = 16;
  p.has_size = true;
  p.size = SizeSpec{0, 25, true};
  p.offset_increment = SizeSpec{0, 25, true};
  return p;
}

Profile Hci(std::uint32_t read_pct) {
  Profile p = Random(RwMode::kRandRw, read_pct, 4096);
  p.percentage_random = 50;
  return p;
}

std::vector<BuiltinProfile> OwnProfiles() {
  auto own = [](std::string name, std::string description, Profile p) {
    return MakeBuiltin(std::move(name), std::move(description), kOwnDefaults, std::move(p));
  };
  std::vector<BuiltinProfile> v = {
      own("4k-randread", "4 KiB random read, QD32 x 4 jobs", Random(RwMode::kRandRead, 100, 4096)),
      own("4k-randwrite", "4 KiB random write, QD32 x 4 jobs", Random(RwMode::kRandWrite, 0, 4096)),
      own("4k-70-30", "4 KiB random, 70% read / 30% write (OLTP-like), QD32 x 4 jobs",
          Random(RwMode::kRandRw, 70, 4096)),
      own("4k-30-70", "4 KiB random, 30% read / 70% write, QD32 x 4 jobs",
          Random(RwMode::kRandRw, 30, 4096)),
      own("8k-70-30", "8 KiB random, 70% read / 30% write (database-like), QD32 x 4 jobs",
          Random(RwMode::kRandRw, 70, 8192)),
      own("64k-seqread", "64 KiB sequential read, QD16 x 4 jobs, each on its own quarter",
          Sequential(RwMode::kRead)),
      own("64k-seqwrite", "64 KiB sequential write, QD16 x 4 jobs, each on its own quarter",
          Sequential(RwMode::kWrite)),
  };
  for (std::uint32_t r : {0u, 30u, 70u, 100u}) {
    v.push_back(MakeBuiltin(
        "hcibench-4k-50rand-r" + std::to_string(r),
        "HCIBench 4 KiB, 50% random (vdbench seekpct=50), " + std::to_string(r) + "% read",
        kOldHciEasyRun, Hci(r)));
  }
  return v;
}

const std::vector<BuiltinProfile>& Entries() {
  static const std::vector<BuiltinProfile> kEntries = [] {
    std::vector<BuiltinProfile> v = OwnProfiles();
    for (const BuiltinProfile& b : FleetProfiles()) v.push_back(b);
    return v;
  }();
  return kEntries;
}

bool InGroup(std::string_view profile, std::string_view group) {
  return profile.size() > group.size() && profile.starts_with(group) &&
         profile[group.size()] == '-';
}

std::string ValidNames() {
  std::string s;
  for (const auto& e : Entries())
    s += std::string(s.empty() ? "" : ", ") + std::string(e.info.name);
  for (const auto& g : BuiltinGroupList()) s += ", " + std::string(g.name);
  return s;
}

}  // namespace

BuiltinProfile MakeBuiltin(std::string name, std::string description, std::string_view source,
                           Profile p) {
  p.name = name;
  p.warmup_fast = true;
  p.ss = SteadyStateSpec{};
  p.ss.snia = true;
  p.ss.slope = false;
  p.ss.limit = 20;
  p.ss.dur = 5 * kSecond;
  p.ss.interval = kSecond;
  return {{std::move(name), std::move(description), source}, std::move(p)};
}

const std::vector<BuiltinProfileInfo>& BuiltinProfileList() {
  static const std::vector<BuiltinProfileInfo> kList = [] {
    std::vector<BuiltinProfileInfo> v;
    for (const auto& e : Entries()) v.push_back(e.info);
    return v;
  }();
  return kList;
}

const std::vector<BuiltinGroupInfo>& BuiltinGroupList() {
  static const std::vector<BuiltinGroupInfo> kGroups = {
      {"hcibench-4k-50rand", "the four hcibench-4k-50rand-r* profiles"},
      {"vmfleet", "every vmfleet-* profile (VMFleet's mixes through DISKSPD)"},
      {"hcibench", "every hcibench-* profile (HCIBench's easy runs through vdbench)"},
      {"sqlio", "every sqlio-* profile (SQLIO's classic read/write tests)"},
  };
  return kGroups;
}

Expected<Profile> FindBuiltinProfile(std::string_view name) {
  for (const auto& e : Entries()) {
    if (e.info.name == name) return e.profile;
  }
  return MakeError("unknown profile " + QuotedText(name) + " (valid: " + ValidNames() + ")");
}

Expected<std::vector<Profile>> ExpandProfileName(std::string_view name) {
  for (const auto& g : BuiltinGroupList()) {
    if (g.name != name) continue;
    std::vector<Profile> v;
    for (const auto& e : Entries()) {
      if (InGroup(e.info.name, g.name)) v.push_back(e.profile);
    }
    return v;
  }
  auto p = FindBuiltinProfile(name);
  if (!p) return p.error();
  return std::vector<Profile>{std::move(*p)};
}

}  // namespace tierlab
