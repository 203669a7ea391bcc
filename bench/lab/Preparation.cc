#include "bench/lab/Preparation.h"

#include <algorithm>
#include <deque>
#include <string>

#include "bench/workload/JobStream.h"
#include "bench/workload/Random.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kFillBs = std::uint64_t{1} << 20;
constexpr std::uint32_t kRealIodepth = 16;
// After the real writes: the stack has settled once its devices have done
// no I/O for a step; a stack that never does (a periodic scrub) is left
// after the cap.
constexpr Nanos kSettleStep = 20 * kMilli;
constexpr Nanos kSettleCap = 60 * kSecond;

struct Task {
  FileRegion region;
  Precondition kind = Precondition::kNone;
  std::uint64_t bs = 0;     // request size
  std::uint64_t count = 0;  // requests
  std::uint64_t seed = 0;   // random: offsets
};

// The largest power of two up to 1 MiB that divides both the region's
// offset and length (they are whole blocks, so at least the block size).
std::uint64_t FillBlockSize(const FileRegion& r) {
  const std::uint64_t both = r.offset | r.length;
  const std::uint64_t low = both == 0 ? kFillBs : (both & (~both + 1));
  return std::min(kFillBs, low);
}

Expected<std::vector<Task>> PlanTasks(const BlockDevice& volume,
                                      const std::vector<SectionWork>& sections) {
  static const std::vector<FileRegion> kWholeVolume;
  std::vector<Task> tasks;
  for (const SectionWork& w : sections) {
    const Profile& p = *w.profile;
    if (p.precondition == Precondition::kNone) continue;
    for (std::uint32_t j = 0; j < p.numjobs; ++j) {
      auto s = JobStream::Create(p, volume.Size(), volume.BlockSize(), j,
                                 j < w.files.size() ? w.files[j] : kWholeVolume);
      if (!s.ok()) return s.error();
      for (const FileRegion& r : s->regions()) {
        if (r.length == 0) continue;
        if (std::any_of(tasks.begin(), tasks.end(), [&](const Task& t) { return t.region == r; }))
          continue;
        Task t;
        t.region = r;
        t.kind = p.precondition;
        if (t.kind == Precondition::kFill) {
          t.bs = FillBlockSize(r);
          t.count = r.length / t.bs;
        } else {
          t.bs = std::min(p.bs_for(IoOp::kWrite), r.length);
          const std::uint64_t bytes = p.precondition_bytes == 0 ? r.length : p.precondition_bytes;
          t.count = std::max<std::uint64_t>(1, bytes / t.bs);
          t.seed = DeriveSeed(p.randseed, 0x9e9a, tasks.size());
        }
        tasks.push_back(t);
      }
    }
  }
  return tasks;
}

// Timing-only: the writes through Warm, then the stack settles.
PreparationResult PrepareFunctionally(BlockDevice& volume, const std::vector<Task>& tasks) {
  PreparationResult r;
  r.functional = true;
  IoRequest req;
  req.op = IoOp::kWrite;
  for (const Task& t : tasks) {
    req.length = t.bs;
    Xoshiro256 rng(t.seed);
    const std::uint64_t slots = t.region.length / t.bs;
    for (std::uint64_t i = 0; i < t.count; ++i) {
      const std::uint64_t slot = t.kind == Precondition::kFill ? i : rng.Below(slots);
      req.offset = t.region.offset + slot * t.bs;
      volume.Warm(req);
    }
    r.bytes += t.count * t.bs;
    r.writes += t.count;
  }
  volume.WarmSettle();
  r.regions = tasks.size();
  return r;
}

// What the devices below the volume are doing: requests the leaves (what
// reaches media) have started, all kinds, and requests in flight anywhere
// in the stack (a delay or a throttle holds a request before a leaf sees
// it; a leaf may take longer than a step on one).
struct StackActivity {
  std::uint64_t leaf_requests = 0;
  std::uint64_t in_flight = 0;
};

void AddActivity(const BlockDevice& d, StackActivity& a) {
  const std::vector<BlockDevice*> children = d.Children();
  for (const BlockDevice* c : children) {
    a.in_flight += c->in_flight();
    AddActivity(*c, a);
  }
  if (children.empty()) {
    const DeviceStats& s = d.stats();
    a.leaf_requests += s.read_ops + s.write_ops + s.flush_ops + s.discard_ops;
  }
}

StackActivity Activity(const BlockDevice& volume) {
  StackActivity a;
  AddActivity(volume, a);
  return a;
}

// Runs the engine until the stack's background work (a write-back cache's
// destage down to its watermark, a tier target's moves) has caught up with
// the writes: until a whole step passes with no request reaching a device
// and none is in flight below the volume at its end. The state preparation
// promises is that one, which the functional path reaches at once; without
// this a run's first seconds measured the destage of the fill
// (docs/VALIDATION.md, the 64k cell). Returns the time it took.
Nanos Settle(Engine& engine, const BlockDevice& volume) {
  const Nanos start = engine.Now();
  StackActivity before = Activity(volume);
  while (engine.Now() - start < kSettleCap) {
    engine.RunUntil(engine.Now() + kSettleStep);
    const StackActivity now = Activity(volume);
    if (now.in_flight == 0 && now.leaf_requests == before.leaf_requests) break;
    before = now;
  }
  return engine.Now() - start;
}

// With data: one section per region, run for real.
Expected<PreparationResult> PrepareWithData(Engine& engine, BlockDevice& volume,
                                            const std::vector<Task>& tasks, VerifyOracle* oracle) {
  std::deque<Profile> profiles;  // stable addresses for SectionWork
  std::vector<SectionWork> work;
  for (const Task& t : tasks) {
    Profile p;
    p.name = "precondition";
    p.rw = t.kind == Precondition::kFill ? RwMode::kWrite : RwMode::kRandWrite;
    p.bs = t.bs;
    p.iodepth = kRealIodepth;
    p.has_size = true;
    p.size.bytes = t.region.length;
    p.offset.bytes = t.region.offset;
    p.has_io_size = true;
    p.io_size = t.count * t.bs;
    p.randseed = t.seed;
    // Offsets with repeats, as the functional preparation draws them.
    p.norandommap = true;
    profiles.push_back(std::move(p));
    SectionWork w;
    w.profile = &profiles.back();
    w.oracle = oracle;
    work.push_back(std::move(w));
  }
  const Nanos start = engine.Now();
  auto runs = RunSections(engine, volume, work);
  if (!runs.ok()) return runs.error();
  PreparationResult r;
  r.regions = tasks.size();
  for (const RunResult& run : *runs) {
    const OpStats& w = run.metrics.write();
    if (w.errors > 0) {
      return MakeError("precondition: " + std::to_string(w.errors) + " writes failed",
                       ErrorKind::kIo);
    }
    r.writes += run.issued;
    for (const auto& [size, count] : run.issued_by_size[1]) r.bytes += size * count;
  }
  r.settle = Settle(engine, volume);
  r.elapsed = engine.Now() - start;
  return r;
}

}  // namespace

nlohmann::json PreparationResult::Json(const Profile& p) const {
  return {{"kind", PreconditionString(p)},
          {"functional", functional},
          {"regions", regions},
          {"bytes", bytes},
          {"writes", writes},
          {"elapsed_ns", elapsed},
          {"settle_ns", settle}};
}

Expected<std::optional<PreparationResult>> PrepareRegions(Engine& engine, BlockDevice& volume,
                                                          const std::vector<SectionWork>& sections,
                                                          VerifyOracle* oracle) {
  auto tasks = PlanTasks(volume, sections);
  if (!tasks.ok()) return tasks.error();
  if (tasks->empty()) {
    const bool asked = std::any_of(sections.begin(), sections.end(), [](const SectionWork& w) {
      return w.profile->precondition != Precondition::kNone;
    });
    if (!asked) return std::optional<PreparationResult>{};
    return std::optional<PreparationResult>{PreparationResult{}};
  }
  if (!volume.RequiresData()) {
    return std::optional<PreparationResult>{PrepareFunctionally(volume, *tasks)};
  }
  auto r = PrepareWithData(engine, volume, *tasks, oracle);
  if (!r.ok()) return r.error();
  return std::optional<PreparationResult>{*r};
}

}  // namespace tierlab
