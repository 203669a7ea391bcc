// The fleet families (FleetProfiles.h): each profile is what its
// description says (jobs, iodepth, mix, block size), every VM works on its
// own region and the regions follow a change of the VM count, as a matrix
// axis on numjobs makes one.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "bench/workload/BuiltinProfiles.h"
#include "bench/workload/FleetProfiles.h"
#include "bench/workload/JobFiles.h"
#include "bench/workload/JobStream.h"
#include "bench/workload/WorkloadGenerator.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;
// The volume of the shorthand layout nvme2+hdd4: four 128 GiB HDDs.
constexpr std::uint64_t kVolume = 512 * kGiB;
constexpr std::uint32_t kAlign = 4096;

struct Range {
  std::uint64_t begin = 0, end = 0;
};

// The byte ranges each job of `p` covers on the volume, laid out as the
// runner lays them out (RunCell: LayOutFiles, then JobStream's generators).
std::vector<std::vector<Range>> JobRegions(const Profile& p, std::uint64_t volume = kVolume) {
  std::vector<std::vector<Range>> out(p.numjobs);
  auto layout = LayOutFiles(std::span<const Profile>(&p, 1), volume, kAlign);
  EXPECT_TRUE(layout.ok()) << p.name << ": " << (layout.ok() ? "" : layout.error().message);
  if (!layout.ok()) return out;
  for (std::uint32_t j = 0; j < p.numjobs; ++j) {
    const std::vector<FileRegion> files = layout->RegionsOf(0, j);
    if (files.empty()) {
      auto g = WorkloadGenerator::Create(p, volume, kAlign, j);
      EXPECT_TRUE(g.ok()) << p.name << ": " << (g.ok() ? "" : g.error().message);
      if (g.ok()) out[j].push_back({g->region_begin(), g->region_end()});
      continue;
    }
    const auto n = static_cast<std::uint32_t>(files.size());
    for (std::uint32_t f = 0; f < n; ++f) {
      const Profile q = ProfileForFile(p, volume, kAlign, f, n, files[f].length);
      auto g = WorkloadGenerator::Create(q, files[f].length, kAlign, j);
      EXPECT_TRUE(g.ok()) << p.name << ": " << (g.ok() ? "" : g.error().message);
      if (g.ok()) {
        out[j].push_back({files[f].offset + g->region_begin(), files[f].offset + g->region_end()});
      }
    }
  }
  return out;
}

std::uint64_t Bytes(const std::vector<Range>& rs) {
  std::uint64_t n = 0;
  for (const Range& r : rs) n += r.end - r.begin;
  return n;
}

// No byte is in the ranges of two jobs (nor twice in one job's).
void ExpectDisjoint(const std::vector<std::vector<Range>>& jobs, const std::string& who) {
  std::vector<Range> all;
  for (const auto& rs : jobs) all.insert(all.end(), rs.begin(), rs.end());
  std::sort(all.begin(), all.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  for (std::size_t i = 1; i < all.size(); ++i) {
    EXPECT_LE(all[i - 1].end, all[i].begin) << who << ": two regions overlap";
  }
}

std::vector<std::string> NamesStartingWith(std::string_view prefix) {
  std::vector<std::string> v;
  for (const auto& b : BuiltinProfileList()) {
    if (b.name.starts_with(prefix)) v.emplace_back(b.name);
  }
  return v;
}

TEST(FleetProfilesTest, EveryFleetProfileIsABuiltinWithItsSource) {
  ASSERT_FALSE(FleetProfiles().empty());
  for (const BuiltinProfile& b : FleetProfiles()) {
    EXPECT_EQ(b.profile.name, b.info.name);
    auto found = FindBuiltinProfile(b.info.name);
    ASSERT_TRUE(found.ok()) << b.info.name;
    EXPECT_EQ(*found, b.profile) << b.info.name;
    EXPECT_TRUE(ValidateProfile(b.profile).ok()) << b.info.name;
    auto back = ParseProfileJson(ToJson(b.profile), "builtin");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, b.profile) << b.info.name;
    EXPECT_EQ(b.info.description.find('\n'), std::string_view::npos) << b.info.name;
    // The source names where the tool's figures are read.
    const std::string_view where = b.info.name.starts_with("vmfleet-") ? "microsoft/diskspd"
                                   : b.info.name.starts_with("hcibench-")
                                       ? "hci-benchmark-appliance"
                                       : "SQLIO";
    EXPECT_NE(b.info.source.find(where), std::string_view::npos) << b.info.name;
    EXPECT_NE(b.info.source.find("precondition=fill"), std::string_view::npos) << b.info.name;
  }
}

TEST(FleetProfilesTest, AFamilyNameExpandsToItsMembersInOrder) {
  for (std::string_view family : {"vmfleet", "hcibench", "sqlio"}) {
    const std::vector<std::string> want = NamesStartingWith(std::string(family) + "-");
    ASSERT_FALSE(want.empty()) << family;
    auto got = ExpandProfileName(family);
    ASSERT_TRUE(got.ok()) << got.error().message;
    std::vector<std::string> names;
    for (const Profile& p : *got) names.push_back(p.name);
    EXPECT_EQ(names, want) << family;
  }
  // A prefix that is not a group name is no group.
  auto partial = ExpandProfileName("vmfleet-general");
  ASSERT_FALSE(partial.ok());
  EXPECT_NE(partial.error().message.find("unknown profile 'vmfleet-general'"), std::string::npos);
}

TEST(FleetProfilesTest, ABadNameIsOneLineListingEveryBuiltinAndGroup) {
  auto bad = ExpandProfileName("vmfleet-turbo");
  ASSERT_FALSE(bad.ok());
  const std::string& m = bad.error().message;
  EXPECT_EQ(m.find('\n'), std::string::npos);
  for (const auto& b : BuiltinProfileList()) EXPECT_NE(m.find(b.name), std::string::npos) << b.name;
  for (const auto& g : BuiltinGroupList()) EXPECT_NE(m.find(g.name), std::string::npos) << g.name;
  // A name with a newline in it (a matrix's "profiles": ["4k-r\ndread"],
  // ConfigJsonFuzz) is shown without it.
  auto broken = ExpandProfileName("4k-r\ndread");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().message.find('\n'), std::string::npos) << broken.error().message;
  EXPECT_EQ(broken.error().message.rfind("unknown profile '4k-r?dread' (valid: ", 0), 0u)
      << broken.error().message;
}

// Every VM on its own region, each the same length; with split_size they
// tile `size` (up to one block alignment per VM), else each is `size` bytes.
TEST(FleetProfilesTest, EachVmWorksOnItsOwnRegion) {
  for (const BuiltinProfile& b : FleetProfiles()) {
    const Profile& p = b.profile;
    const auto jobs = JobRegions(p);
    ExpectDisjoint(jobs, p.name);
    // Rounded to the device's alignment (files) or the block alignment ba
    // (no files), a part is at most its share of size at the finer one.
    const std::uint64_t ba = p.min_bs();
    const std::uint64_t total = p.size.Resolve(kVolume, kAlign);
    for (std::uint32_t j = 0; j < p.numjobs; ++j) {
      ASSERT_EQ(jobs[j].size(), std::max<std::uint32_t>(p.nrfiles, 1)) << p.name;
      EXPECT_EQ(Bytes(jobs[j]), Bytes(jobs[0])) << p.name << " job " << j;
    }
    if (p.split_size) {
      // Each part (and each file of it) is rounded down to an alignment.
      const std::uint64_t slack = std::uint64_t{p.numjobs} * (p.nrfiles + 1) * ba;
      EXPECT_LE(Bytes(jobs[0]) * p.numjobs, total) << p.name;
      EXPECT_GT(Bytes(jobs[0]) * p.numjobs, total - slack) << p.name;
    } else {
      EXPECT_EQ(Bytes(jobs[0]), total) << p.name;
    }
  }
}

TEST(FleetProfilesTest, TheStreamsStayInsideTheirVmsRegions) {
  for (std::string_view name : {"vmfleet-general-w30", "hcibench-4k70r", "hcibench-256k0r"}) {
    auto p = FindBuiltinProfile(name);
    ASSERT_TRUE(p.ok());
    const auto jobs = JobRegions(*p);
    auto layout = LayOutFiles(std::span<const Profile>(&*p, 1), kVolume, kAlign);
    ASSERT_TRUE(layout.ok());
    for (std::uint32_t j = 0; j < p->numjobs; ++j) {
      auto s = JobStream::Create(*p, kVolume, kAlign, j, layout->RegionsOf(0, j));
      ASSERT_TRUE(s.ok()) << s.error().message;
      for (int i = 0; i < 20000; ++i) {
        const NextIo io = s->Next();
        const bool inside = std::any_of(jobs[j].begin(), jobs[j].end(), [&](const Range& r) {
          return io.offset >= r.begin && io.offset + io.length <= r.end;
        });
        ASSERT_TRUE(inside) << name << " job " << j << ": I/O at " << io.offset;
      }
    }
  }
}

TEST(FleetProfilesTest, QueuesAndMixesAreTheToolsParameters) {
  // DISKSPD -t x -o is one queue per VM; -w is the write share.
  const auto general = FindBuiltinProfile("vmfleet-general-w10");
  EXPECT_EQ(general->iodepth, 1u * 32u);
  EXPECT_EQ(general->rwmixread, 100u - 10u);
  EXPECT_EQ(general->percentage_random, 50u);  // -rs50
  EXPECT_EQ(RandomDistributionString(*general), "zoned:95/5:4/10:1/85");
  const auto sql = FindBuiltinProfile("vmfleet-sql");
  EXPECT_EQ(sql->iodepth, 4u * 32u);
  EXPECT_EQ(sql->rwmixread, 100u - 30u);
  EXPECT_EQ(sql->bs, 8192u);
  const auto vdi = FindBuiltinProfile("vmfleet-vdi");
  EXPECT_EQ(vdi->bs_for(IoOp::kRead), 8192u);
  EXPECT_EQ(vdi->bs_for(IoOp::kWrite), 32768u);
  EXPECT_EQ(vdi->iodepth, 8u + 8u);
  EXPECT_EQ(vdi->percentage_random, (80u + 20u) / 2);
  const auto peak = FindBuiltinProfile("vmfleet-peak");
  EXPECT_EQ(peak->read_percent(), 100u);
  EXPECT_EQ(peak->size.Resolve(kVolume, 4096), 5 * kGiB);

  // vdbench: rdpct is the read share, seekpct the random share; the VM's
  // outstanding I/Os are its vmdks' threads together, a quarter for 256k.
  const auto h70 = FindBuiltinProfile("hcibench-4k70r");
  EXPECT_EQ(h70->rwmixread, 70u);
  EXPECT_EQ(h70->percentage_random, 100u);
  const auto seq = FindBuiltinProfile("hcibench-256k100r");
  EXPECT_EQ(seq->percentage_random, 0u);
  EXPECT_EQ(seq->bs, 256u * 1024u);
  EXPECT_EQ(seq->iodepth * 4, h70->iodepth);
  EXPECT_EQ(seq->nrfiles, h70->nrfiles);

  // SQLIO: -k is the direction, -f random or sequential, -b KB.
  const auto sr = FindBuiltinProfile("sqlio-64k-seqread");
  EXPECT_EQ(sr->rw, RwMode::kRead);
  EXPECT_EQ(sr->bs, 64u * 1024u);
  const auto rw = FindBuiltinProfile("sqlio-8k-randwrite");
  EXPECT_EQ(rw->rw, RwMode::kRandWrite);
  EXPECT_EQ(rw->iodepth, sr->iodepth);
}

// What a matrix axis on numjobs does (a merge patch, Matrix.h): the VMs'
// regions follow the count, and split_size keeps the working set.
TEST(FleetProfilesTest, AVmCountAxisRedividesTheWorkingSet) {
  for (std::string_view name : {"vmfleet-general-w0", "hcibench-8k50r", "sqlio-4k-seqwrite"}) {
    auto base = FindBuiltinProfile(name);
    ASSERT_TRUE(base.ok());
    const std::uint64_t total = base->size.Resolve(kVolume, kAlign);
    for (std::uint32_t vms : {1u, 3u, 16u}) {
      auto p = ApplyProfilePatch(*base, {{"numjobs", vms}}, "m.json");
      ASSERT_TRUE(p.ok()) << p.error().message;
      const auto jobs = JobRegions(*p);
      ASSERT_EQ(jobs.size(), vms);
      ExpectDisjoint(jobs, std::string(name));
      const std::uint64_t ba = p->min_bs();
      EXPECT_EQ(SplitSizePart(*p, kVolume, ba), p->size.Resolve(kVolume, ba) / vms / ba * ba);
      // Each VM gets total / vms, less what rounding its part (and each of
      // its files) to an alignment takes, and starts where the one before
      // it started plus that part.
      const std::uint64_t share = total / vms;
      const std::uint64_t slack = std::uint64_t{p->nrfiles + 1} * ba;
      const std::uint64_t stride = vms > 1 ? jobs[1].front().begin : share;
      EXPECT_LE(stride, share);
      EXPECT_GT(stride, share - slack);
      for (std::uint32_t j = 0; j < vms; ++j) {
        EXPECT_EQ(jobs[j].front().begin, j * stride) << name << " x" << vms << " job " << j;
        EXPECT_LE(Bytes(jobs[j]), share);
        EXPECT_GT(Bytes(jobs[j]), share - slack);
      }
    }
  }
  // Peak's VMs each have their own 5 GiB: more VMs, more of the volume.
  auto peak = ApplyProfilePatch(*FindBuiltinProfile("vmfleet-peak"), {{"numjobs", 12}}, "m.json");
  ASSERT_TRUE(peak.ok());
  const auto jobs = JobRegions(*peak);
  ExpectDisjoint(jobs, "vmfleet-peak");
  EXPECT_EQ(jobs.back().front().begin, 11 * (5 * kGiB));
}

TEST(FleetProfilesTest, TooManyVmsForTheWorkingSetIsAnErrorNamingSize) {
  auto p = ApplyProfilePatch(*FindBuiltinProfile("sqlio-64k-seqread"),
                             {{"size", "1m"}, {"numjobs", 32}}, "m.json");
  ASSERT_TRUE(p.ok());
  // 1 MiB over 32 VMs is 32 KiB each, which rounds down to no 64 KiB block.
  auto g = WorkloadGenerator::Create(*p, kVolume, kAlign, 0);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("size: each of the 32 jobs' parts (split_size) is 0 bytes, "
                                   "smaller than the block size 65536"),
            std::string::npos)
      << g.error().message;
}

}  // namespace
}  // namespace tierlab
