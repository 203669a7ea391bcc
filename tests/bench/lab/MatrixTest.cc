// Matrix expansion (order, include/exclude, ids, seeds), bad input, shards,
// the parallel runner's determinism and the shard merge.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <random>
#include <set>

#include "bench/lab/Matrix.h"
#include "bench/lab/MatrixRunner.h"
#include "bench/workload/WorkloadGenerator.h"
#include "layouts/MatrixSpec.h"

namespace tierlab {
namespace {

ExpandedMatrix MustExpand(const nlohmann::json& j) {
  auto spec = ParseMatrixJson(j, "m.json");
  EXPECT_TRUE(spec.ok()) << spec.error().message;
  auto m = ExpandMatrix(*spec);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? std::move(m.value()) : ExpandedMatrix{};
}

Error ExpandError(const nlohmann::json& j) {
  auto spec = ParseMatrixJson(j, "m.json");
  if (!spec.ok()) return spec.error();
  auto m = ExpandMatrix(*spec);
  if (!m.ok()) return m.error();
  auto b = CheckCellsBuild(*m);
  if (!b.ok()) return b.error();
  ADD_FAILURE() << "expected an error for " << j.dump();
  return MakeError("");  // ADD_FAILURE above already failed the test
}

// A small, fast matrix: all-flash cells, 50 ms measured.
nlohmann::json Tiny() {
  return {{"name", "tiny"},
          {"layouts", {"nvme2+ssd4", "ssd4/hdd4"}},
          {"profiles", {"4k-randread", "4k-70-30"}},
          {"profile_override",
           {{"runtime", "50ms"},
            {"ramp_time", "10ms"},
            {"size", "1g"},
            {"numjobs", 1},
            {"iodepth", 8}}},
          {"axes", {{"bs", {"4k", "8k"}}}}};
}

// A fleet profile's VM count as an axis: each cell's VMs share the same
// working set, each on its own part of it (split_size), however many there
// are.
TEST(MatrixTest, AVmCountAxisGivesEachVmItsPartOfTheWorkingSet) {
  const ExpandedMatrix m = MustExpand({{"layouts", {"nvme2+hdd4"}},
                                       {"profiles", {"vmfleet-general-w0"}},
                                       {"axes", {{"numjobs", {2, 5, 16}}}}});
  ASSERT_EQ(m.cells.size(), 3u);
  const std::uint64_t volume = 512ull << 30;  // nvme2+hdd4's four 128 GiB HDDs
  for (const MatrixCell& c : m.cells) {
    const auto vms = c.axes.at(0).second.get<std::uint32_t>();
    ASSERT_EQ(c.profile.numjobs, vms) << c.label;
    EXPECT_TRUE(c.profile.split_size) << c.label;
    const std::uint64_t ba = c.profile.min_bs();
    const std::uint64_t part = SplitSizePart(c.profile, volume, ba);
    const std::uint64_t working_set = c.profile.size.Resolve(volume, ba);
    EXPECT_LE(part * vms, working_set) << c.label;
    EXPECT_GT(part * vms, working_set - vms * ba) << c.label;
    for (std::uint32_t j = 0; j < vms; ++j) {
      auto g = WorkloadGenerator::Create(c.profile, volume, 4096, j);
      ASSERT_TRUE(g.ok()) << g.error().message;
      EXPECT_EQ(g->region_begin(), j * part) << c.label << " VM " << j;
      EXPECT_EQ(g->region_end(), (j + 1) * part) << c.label << " VM " << j;
    }
  }
}

TEST(MatrixTest, CartesianProductInDocumentedOrder) {
  nlohmann::json j = Tiny();
  j["layouts"] = {"nvme2+ssd4", "ssd2+hdd4"};
  j["axes"]["cache.read"] = {true, false};
  j["repeats"] = 2;
  j["seed"] = 7;
  const ExpandedMatrix m = MustExpand(j);
  // 2 layouts x 2 profiles x 2 bs x 2 cache.read x 2 repeats.
  ASSERT_EQ(m.cells.size(), 32u);
  for (std::size_t i = 0; i < m.cells.size(); ++i) EXPECT_EQ(m.cells[i].index, i);
  // Layouts outermost, repeats innermost; axes in key order (bs before cache.read).
  EXPECT_EQ(m.cells[0].layout_name, "nvme2+ssd4");
  EXPECT_EQ(m.cells[16].layout_name, "ssd2+hdd4");
  EXPECT_EQ(m.cells[8].profile_name, "4k-70-30");
  EXPECT_EQ(m.cells[0].label, "nvme2+ssd4 | 4k-randread | bs=4k cache.read=true #0");
  EXPECT_EQ(m.cells[1].label, "nvme2+ssd4 | 4k-randread | bs=4k cache.read=true #1");
  EXPECT_EQ(m.cells[2].label, "nvme2+ssd4 | 4k-randread | bs=4k cache.read=false #0");
  EXPECT_EQ(m.cells[4].profile.bs, 8192u);
  // Overrides reach the effective configs.
  ASSERT_TRUE(m.cells[2].layout.cache);
  EXPECT_FALSE(m.cells[2].layout.cache->config.read);
  EXPECT_EQ(m.cells[0].profile.runtime, 50 * kMilli);
  // Repeats share the id and get seed + repeat as randseed.
  EXPECT_EQ(m.cells[0].id, m.cells[1].id);
  EXPECT_NE(m.cells[0].id, m.cells[2].id);
  EXPECT_EQ(m.cells[0].seed, 7u);
  EXPECT_EQ(m.cells[1].seed, 8u);
  EXPECT_EQ(m.cells[1].profile.randseed, 8u);
  std::set<std::string> ids;
  for (const auto& c : m.cells) ids.insert(c.id);
  EXPECT_EQ(ids.size(), 16u);
}

TEST(MatrixTest, IdsAndHashAreStableAndDependOnConfig) {
  const ExpandedMatrix a = MustExpand(Tiny());
  const ExpandedMatrix b = MustExpand(Tiny());
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (std::size_t i = 0; i < a.cells.size(); ++i) EXPECT_EQ(a.cells[i].id, b.cells[i].id);
  EXPECT_EQ(a.hash, b.hash);
  nlohmann::json j = Tiny();
  j["profile_override"]["iodepth"] = 16;
  const ExpandedMatrix c = MustExpand(j);
  EXPECT_NE(a.cells[0].id, c.cells[0].id);
  EXPECT_NE(a.hash, c.hash);
}

TEST(MatrixTest, ExcludeRemovesCellsMatchingEveryKey) {
  nlohmann::json j = Tiny();
  j["exclude"] = {{{"profile", "4k-randread"}, {"bs", "8k"}}, {{"layout", "ssd4/hdd4"}}};
  const ExpandedMatrix m = MustExpand(j);
  // nvme2+ssd4: randread 4k, 70-30 4k, 70-30 8k.
  ASSERT_EQ(m.cells.size(), 3u);
  for (const auto& c : m.cells) {
    EXPECT_EQ(c.layout_name, "nvme2+ssd4");
    EXPECT_FALSE(c.profile_name == "4k-randread" && c.profile.bs == 8192) << c.label;
  }
}

TEST(MatrixTest, IncludeExtendsMatchingCellsOrAddsNewOnes) {
  nlohmann::json j = Tiny();
  j["include"] = {
      // Extends the two nvme2+ssd4 / 8k cells with an extra override.
      {{"layout", "nvme2+ssd4"}, {"bs", "8k"}, {"iodepth", 2}},
      // Matches nothing (bs 64k is not an axis value): a new cell per profile.
      {{"layout", "nvme2+ssd4"}, {"bs", "64k"}},
  };
  const ExpandedMatrix m = MustExpand(j);
  ASSERT_EQ(m.cells.size(), 8u + 2u);
  int extended = 0;
  for (const auto& c : m.cells) {
    if (c.profile.iodepth == 2) {
      ++extended;
      EXPECT_EQ(c.layout_name, "nvme2+ssd4");
      EXPECT_EQ(c.profile.bs, 8192u);
      EXPECT_NE(c.label.find("iodepth=2"), std::string::npos) << c.label;
    }
  }
  EXPECT_EQ(extended, 2);
  EXPECT_EQ(m.cells[8].profile.bs, 65536u);
  EXPECT_EQ(m.cells[8].profile_name, "4k-randread");
  EXPECT_EQ(m.cells[9].profile_name, "4k-70-30");
}

TEST(MatrixTest, UnknownAxisPathNamesTheMatrixFileAndAxis) {
  nlohmann::json j = Tiny();
  j["axes"] = {{"cache.foo", {1, 2}}};
  const Error e = ExpandError(j);
  EXPECT_EQ(e.kind, ErrorKind::kInput);
  EXPECT_EQ(e.message.rfind("m.json: axes.\"cache.foo\": ", 0), 0u) << e.message;
  EXPECT_NE(e.message.find("unknown key"), std::string::npos) << e.message;

  j["axes"] = {{"blocksise", {"4k"}}};  // a profile option typo
  const Error p = ExpandError(j);
  EXPECT_EQ(p.kind, ErrorKind::kInput);
  EXPECT_EQ(p.message.rfind("m.json: axes.\"blocksise\": ", 0), 0u) << p.message;

  j["axes"] = {{"tiers[7].count", {1}}};
  const Error t = ExpandError(j);
  EXPECT_EQ(t.message.rfind("m.json: axes.\"tiers[7].count\": ", 0), 0u) << t.message;
  EXPECT_NE(t.message.find("out of range"), std::string::npos) << t.message;

  j["axes"] = {{"cache.read", {false}}};  // ssd4/hdd4 has no cache to switch
  const Error nc = ExpandError(j);
  EXPECT_EQ(nc.message.rfind("m.json: axes.\"cache.read\": ssd4/hdd4: ", 0), 0u) << nc.message;
  EXPECT_NE(nc.message.find("has no cache"), std::string::npos) << nc.message;

  j["axes"] = {{"iodepth", {0}}};  // invalid value: the profile's own validation
  const Error v = ExpandError(j);
  EXPECT_EQ(v.message.rfind("m.json: axes.\"iodepth\": ", 0), 0u) << v.message;
}

// A filter's key is the user's text: quoted, shortened and kept printable
// like any other, so the message stays one line whatever the key holds.
TEST(MatrixTest, AFilterKeyThatIsNoMatrixKeyIsQuotedOnOneLine) {
  nlohmann::json j = Tiny();
  j["exclude"] = {{{"bs\u00e9", "4k"}}};
  const Error e = ExpandError(j);
  EXPECT_EQ(e.kind, ErrorKind::kInput);
  EXPECT_EQ(e.message,
            "m.json: exclude[0].\"bs??\": not a matrix key (layout, profile or an axis path)");

  j["exclude"] = {{{std::string(500, 'k'), "4k"}}};
  const Error l = ExpandError(j);
  EXPECT_EQ(l.message.rfind("m.json: exclude[0].\"" + std::string(64, 'k') + "...\": ", 0), 0u)
      << l.message;

  j.erase("exclude");
  j["include"] = {{{"layout", "nvme2+ssd4"}, {"no\u00e9such", 1}}};
  const Error i = ExpandError(j);
  EXPECT_EQ(i.message.rfind("m.json: include[0].\"no??such\": ", 0), 0u) << i.message;
  EXPECT_EQ(i.message.find('\n'), std::string::npos) << i.message;
}

TEST(MatrixTest, LayoutTooBigForItsTiersIsABuildError) {
  nlohmann::json j = Tiny();
  j["layouts"] = {"nvme2+hdd4"};
  j["axes"] = {{"layout.size", {"64g", "100t"}}};
  const Error e = ExpandError(j);
  EXPECT_EQ(e.kind, ErrorKind::kInput);
  EXPECT_EQ(e.message.rfind("m.json: cell \"nvme2+hdd4 | 4k-randread | layout.size=100t\": ", 0),
            0u)
      << e.message;
  EXPECT_NE(e.message.find("does not fit"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find('\n'), std::string::npos);
}

TEST(MatrixTest, ShardsCoverEveryCellExactlyOnce) {
  for (std::uint32_t n : {1u, 2u, 3u, 5u, 16u, 40u}) {
    std::vector<int> seen(33, 0);
    for (std::uint32_t i = 1; i <= n; ++i) {
      auto s = ParseShard(std::to_string(i) + "/" + std::to_string(n));
      ASSERT_TRUE(s.ok());
      for (std::size_t k = 0; k < seen.size(); ++k) seen[k] += s->Contains(k) ? 1 : 0;
    }
    for (std::size_t k = 0; k < seen.size(); ++k)
      EXPECT_EQ(seen[k], 1) << "cell " << k << " N " << n;
  }
  for (const char* bad : {"0/4", "5/4", "1/0", "a/b", "1", "1/2/3", "-1/2", ""}) {
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
  }
}

TEST(MatrixTest, ResultsDoNotDependOnWorkerCount) {
  const ExpandedMatrix m = MustExpand(Tiny());
  MatrixRunOptions one;
  one.jobs = 1;
  MatrixRunOptions two;
  two.jobs = 2;
  auto a = RunMatrix(m, one);
  auto b = RunMatrix(m, two);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_EQ(a->at("cells").size(), m.cells.size());
  EXPECT_EQ(a->dump(), b->dump());
  const auto& c0 = a->at("cells")[0];
  EXPECT_EQ(c0["index"], 0);
  EXPECT_EQ(c0["id"], m.cells[0].id);
  EXPECT_EQ(c0["axes"]["bs"], "4k");
  EXPECT_GT(c0["jobs"][0]["read"]["iops"].get<double>(), 0);
  EXPECT_EQ(a->at("matrix_hash"), m.hash);
}

// The hooks around each cell: what before_cell changes is what runs, what
// after_cell adds is in the cell's JSON, and an error of either is the
// cell's (validate measures the host around real cells with them).
TEST(MatrixTest, HooksChangeACellBeforeAndAnnotateItAfter) {
  const ExpandedMatrix m = MustExpand(Tiny());
  MatrixRunOptions o;
  o.jobs = 2;
  std::atomic<int> before{0};
  o.before_cell = [&before](MatrixCell& c) -> Expected<void> {
    ++before;
    if (c.index == 1) c.profile.iodepth = 1;
    return {};
  };
  o.after_cell = [](const MatrixCell& c, nlohmann::json& j) -> Expected<void> {
    j["note"] = c.index * 10;
    return {};
  };
  auto r = RunMatrix(m, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(before.load(), static_cast<int>(m.cells.size()));
  const auto& cells = r->at("cells");
  for (std::size_t i = 0; i < cells.size(); ++i) {
    EXPECT_EQ(cells[i]["note"], i * 10);
    EXPECT_EQ(cells[i]["profile"]["iodepth"], i == 1 ? 1 : 8) << i;
  }

  MatrixRunOptions failing;
  failing.jobs = 1;
  failing.before_cell = [](MatrixCell& c) -> Expected<void> {
    if (c.index == 2) return MakeError("no host", ErrorKind::kIo);
    return {};
  };
  ResultsFile partial(MakeResultsHeader(m.plan, m.hash, Shard{}));
  auto e = RunMatrixInto(m.plan, failing, partial);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, ErrorKind::kIo);
  EXPECT_NE(e.error().message.find("cell \"" + m.cells[2].label + "\": no host"), std::string::npos)
      << e.error().message;
  EXPECT_TRUE(partial.Has(0) && partial.Has(1) && !partial.Has(2));

  MatrixRunOptions after_fails;
  after_fails.jobs = 1;
  after_fails.after_cell = [](const MatrixCell&, nlohmann::json&) -> Expected<void> {
    return MakeError("lost the reference");
  };
  auto a = RunMatrix(m, after_fails);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("cell \"" + m.cells[0].label + "\": lost the reference"),
            std::string::npos)
      << a.error().message;
}

TEST(MatrixTest, MergeIsOrderIndependentAndRefusesMismatches) {
  const ExpandedMatrix m = MustExpand(Tiny());
  std::vector<nlohmann::json> parts;
  std::vector<std::string> names;
  for (std::uint32_t i = 1; i <= 3; ++i) {
    MatrixRunOptions o;
    o.jobs = 1;
    o.shard = *ParseShard(std::to_string(i) + "/3");
    auto r = RunMatrix(m, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    parts.push_back(*r);
    names.push_back("part" + std::to_string(i) + ".json");
  }
  MatrixRunOptions all;
  all.jobs = 1;
  auto whole = RunMatrix(m, all);
  ASSERT_TRUE(whole.ok());

  std::size_t missing = 99;
  auto merged = MergeMatrixResults(parts, names, &missing);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(missing, 0u);
  EXPECT_EQ(merged->at("cells"), whole->at("cells"));
  std::vector<std::size_t> order = {2, 0, 1};
  std::vector<nlohmann::json> shuffled;
  std::vector<std::string> shuffled_names;
  for (auto i : order) shuffled.push_back(parts[i]), shuffled_names.push_back(names[i]);
  auto merged2 = MergeMatrixResults(shuffled, shuffled_names);
  ASSERT_TRUE(merged2.ok());
  EXPECT_EQ(merged2->dump(), merged->dump());

  // Missing shard: merged, but reported.
  auto partial = MergeMatrixResults({parts[0], parts[1]}, {names[0], names[1]}, &missing);
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(missing, parts[2]["cells"].size());

  // The same shard twice: duplicate cells.
  auto dup = MergeMatrixResults({parts[0], parts[0]}, {"a.json", "b.json"});
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.error().message.find("is in both a.json and b.json"), std::string::npos)
      << dup.error().message;

  // Another matrix.
  nlohmann::json other = parts[1];
  other["matrix_hash"] = "0000000000000000";
  auto mismatch = MergeMatrixResults({parts[0], other}, {"a.json", "b.json"});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.error().message.find("b.json is from a different matrix"), std::string::npos)
      << mismatch.error().message;
}

// Two axes of 10,000 values: 10^8 cells, counted and streamed without
// expanding them (the old expansion built every cell: 8.7 GB in 30 s).
nlohmann::json Huge() {
  nlohmann::json depths = nlohmann::json::array(), sizes = nlohmann::json::array();
  for (int v = 1; v <= 10000; ++v) {
    depths.push_back(v);
    sizes.push_back(std::to_string(v) + "m");
  }
  return {{"name", "huge"},
          {"layouts", {"nvme2+hdd4"}},
          {"profiles", {"4k-randread"}},
          {"profile_override", {{"runtime", "1s"}, {"ramp_time", "0"}}},
          {"axes", {{"iodepth", depths}, {"size", sizes}}}};
}

TEST(MatrixTest, HugeMatrixIsCountedAndStreamedWithoutExpandingIt) {
  auto spec = ParseMatrixJson(Huge(), "huge.json");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto plan = MatrixPlan::Make(*spec);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->size(), 100000000u);
  EXPECT_GT(plan->size(), kMaxCellsWithoutForce);
  EXPECT_EQ(plan->ShardSize(*ParseShard("3/7")), 14285714u);
  EXPECT_DOUBLE_EQ(plan->MeanSimulatedSeconds(), 1.0);
  // The first cells of a shard far down the matrix come at once: cells
  // not wanted are counted, not expanded.
  const Shard shard = *ParseShard("20000000/20000000");
  auto cursor = plan->Cells([&shard](std::uint64_t k) { return shard.Contains(k); });
  MatrixCell c;
  auto more = cursor.Next(&c);
  ASSERT_TRUE(more.ok() && *more);
  EXPECT_EQ(c.index, 19999999u);
  EXPECT_EQ(c.label, "nvme2+hdd4 | 4k-randread | iodepth=2000 size=10000m");
  EXPECT_EQ(c.profile.iodepth, 2000u);
}

// Random matrices with include/exclude: the count MatrixPlan works out
// without expanding is the number of cells the cursor streams, and a
// shard's cursor streams exactly the shard's cells of the whole stream.
TEST(MatrixTest, PlanCountMatchesTheStreamedCells) {
  std::mt19937 rng(17);
  const std::vector<std::string> sizes = {"1g", "2g", "3g"};
  const std::vector<std::string> bss = {"4k", "8k", "16k", "32k"};
  for (int round = 0; round < 30; ++round) {
    nlohmann::json j = Tiny();
    j["repeats"] = 1 + rng() % 3;
    j["axes"] = nlohmann::json::object();
    j["axes"]["bs"] =
        nlohmann::json(std::vector<std::string>(bss.begin(), bss.begin() + 1 + rng() % 4));
    j["axes"]["size"] =
        nlohmann::json(std::vector<std::string>(sizes.begin(), sizes.begin() + 1 + rng() % 3));
    j["exclude"] = nlohmann::json::array();
    j["include"] = nlohmann::json::array();
    for (unsigned e = rng() % 3; e > 0; --e) {
      nlohmann::json x = {{"bs", bss[rng() % 4]}};
      if (rng() % 2) x["layout"] = rng() % 2 ? "nvme2+ssd4" : "ssd4/hdd4";
      j["exclude"].push_back(x);
    }
    for (unsigned e = rng() % 3; e > 0; --e) {
      nlohmann::json x = {{"size", sizes[rng() % 3]}, {"iodepth", 1 + rng() % 4}};
      if (rng() % 2) x["profile"] = rng() % 2 ? "4k-randread" : "4k-70-30";
      j["include"].push_back(x);
    }
    auto spec = ParseMatrixJson(j, "m.json");
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    auto plan = MatrixPlan::Make(*spec);
    if (!plan.ok()) {
      EXPECT_NE(plan.error().message.find("exclude removes every cell"), std::string::npos)
          << plan.error().message;
      continue;
    }
    auto all = ExpandMatrix(*spec);
    ASSERT_TRUE(all.ok()) << all.error().message;
    ASSERT_EQ(plan->size(), all->cells.size()) << j.dump();
    const Shard shard = *ParseShard("2/3");
    auto cursor = plan->Cells([&shard](std::uint64_t k) { return shard.Contains(k); });
    std::vector<std::string> got, want;
    MatrixCell c;
    while (*cursor.Next(&c)) got.push_back(std::to_string(c.index) + " " + c.id + " " + c.label);
    for (const auto& x : all->cells) {
      if (shard.Contains(x.index))
        want.push_back(std::to_string(x.index) + " " + x.id + " " + x.label);
    }
    EXPECT_EQ(got, want) << j.dump();
    EXPECT_EQ(got.size(), plan->ShardSize(shard));
  }
}

TEST(MatrixTest, FiltersOverTooManyCombinationsAreRefused) {
  nlohmann::json j = Huge();
  j["exclude"] = {{{"iodepth", 1}, {"size", "1m"}}};
  auto spec = ParseMatrixJson(j, "huge.json");
  ASSERT_TRUE(spec.ok());
  auto plan = MatrixPlan::Make(*spec);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("100000000 combinations; at most 16777216"),
            std::string::npos)
      << plan.error().message;
  // One big axis named is fine: 10,000 combinations scanned.
  j["exclude"] = {{{"iodepth", 1}}};
  auto one = MatrixPlan::Make(*ParseMatrixJson(j, "huge.json"));
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->size(), 99990000u);
}

TEST(MatrixTest, ResumedRunSkipsDoneCellsAndGivesTheSameDocument) {
  const ExpandedMatrix m = MustExpand(Tiny());
  MatrixRunOptions one;
  one.jobs = 1;
  auto whole = RunMatrix(m, one);
  ASSERT_TRUE(whole.ok()) << whole.error().message;

  // A run stopped after its first cells keeps exactly the finished ones.
  std::atomic<bool> stop{false};
  ResultsFile partial(MakeResultsHeader(m.plan, m.hash, Shard{}));
  MatrixRunOptions o;
  o.jobs = 1;
  o.stop = &stop;
  o.tick_s = 0.01;
  o.tick = [&stop](const MatrixProgress& p, const ResultsFile&) {
    if (p.done >= 3) stop.store(true);
  };
  MatrixRunStats stats;
  ASSERT_TRUE(RunMatrixInto(m.plan, o, partial, &stats).ok());
  EXPECT_TRUE(stats.stopped);
  ASSERT_GE(partial.size(), 3u);
  ASSERT_LT(partial.size(), m.cells.size());
  const nlohmann::json first = partial.Json();
  for (const auto& c : first.at("cells")) {
    EXPECT_EQ(c, whole->at("cells")[c.at("index").get<std::size_t>()]);
  }

  // Resume: only the missing cells run; the document is the whole run's.
  ResultsFile resumed(MakeResultsHeader(m.plan, m.hash, Shard{}));
  ASSERT_TRUE(LoadResumedCells(first, "r.json",
                               ResumeKey{m.hash, "1/1", first.at("tierlab_version")}, resumed)
                  .ok());
  std::set<std::uint64_t> skip;
  for (const auto& c : first.at("cells")) skip.insert(c.at("index").get<std::uint64_t>());
  MatrixRunOptions r;
  r.jobs = 2;
  r.skip = &skip;
  MatrixRunStats rs;
  ASSERT_TRUE(RunMatrixInto(m.plan, r, resumed, &rs).ok());
  EXPECT_EQ(rs.cells, m.cells.size() - skip.size());
  EXPECT_EQ(resumed.Text(), whole->dump(1) + "\n");
}

TEST(MatrixTest, ScanRefusesResumedCellsOfAnotherConfiguration) {
  const ExpandedMatrix m = MustExpand(Tiny());
  std::map<std::uint64_t, ExpectedCell> expect = {{0, {m.cells[0].id, m.cells[0].seed}},
                                                  {1, {m.cells[2].id, m.cells[1].seed}}};
  ScanOptions o;
  o.build = false;
  o.expect = &expect;
  o.expect_source = "r.json";
  auto scan = ScanMatrix(m.plan, o);
  ASSERT_FALSE(scan.ok());
  EXPECT_EQ(scan.error().message.rfind("r.json: cell 1 has id " + m.cells[2].id, 0), 0u)
      << scan.error().message;
  expect = {{0, {m.cells[0].id, m.cells[0].seed}}, {99, {"x", 1}}};
  auto beyond = ScanMatrix(m.plan, o);
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.error().message.find("index 99"), std::string::npos);
  expect = {{0, {m.cells[0].id, m.cells[0].seed}}};
  auto fine = ScanMatrix(m.plan, o);
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(*fine, m.hash);
}

}  // namespace
}  // namespace tierlab
