#include "bench/lab/FunctionalWarmup.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "bench/workload/JobStream.h"

namespace tierlab {
namespace {

// Bytes covered by the union of the regions.
std::uint64_t UnionBytes(std::vector<FileRegion> regions) {
  std::sort(regions.begin(), regions.end(),
            [](const FileRegion& a, const FileRegion& b) { return a.offset < b.offset; });
  std::uint64_t total = 0;
  std::uint64_t end = 0;  // of what is counted so far
  for (const FileRegion& r : regions) {
    const std::uint64_t b = std::max(r.offset, end);
    const std::uint64_t e = r.offset + r.length;
    if (e > b) total += e - b;
    end = std::max(end, e);
  }
  return total;
}

}  // namespace

bool WarmupConverged(std::uint64_t previous, std::uint64_t current) {
  if (current == 0) return true;
  if (current >= previous) return true;
  const double drop = static_cast<double>(previous - current);
  const double noise = 3 * std::sqrt(static_cast<double>(previous + current));
  return drop <= std::max(WarmupResult::kRelativeDrop * static_cast<double>(previous), noise);
}

nlohmann::json WarmupResult::Json() const {
  nlohmann::json j = {{"mode", "fast"}};
  if (skipped) {
    j["skipped"] = *skipped;
    return j;
  }
  j["accesses"] = accesses;
  j["window"] = window;
  j["windows"] = placed.size();
  j["placed"] = placed;
  j["converged"] = converged;
  return j;
}

Expected<std::optional<WarmupResult>> FunctionalWarmup(BlockDevice& volume,
                                                       const std::vector<SectionWork>& sections) {
  static const std::vector<FileRegion> kWholeVolume;
  std::vector<JobStream> streams;
  std::vector<FileRegion> regions;
  std::uint64_t min_bs = 0;
  for (const SectionWork& w : sections) {
    const Profile& p = *w.profile;
    if (!p.warmup_fast) continue;
    for (std::uint32_t j = 0; j < p.numjobs; ++j) {
      auto s = JobStream::Create(p, volume.Size(), volume.BlockSize(), j,
                                 j < w.files.size() ? w.files[j] : kWholeVolume);
      if (!s.ok()) return s.error();
      for (const FileRegion& r : s->regions()) regions.push_back(r);
      streams.push_back(std::move(*s));
    }
    min_bs = min_bs == 0 ? p.min_bs() : std::min(min_bs, p.min_bs());
  }
  if (streams.empty()) return std::optional<WarmupResult>{};

  WarmupResult r;
  if (volume.RequiresData()) {
    r.skipped =
        "the volume carries data (--real, or simulation with data): its cache and tiers warm "
        "by running; use ramp_time";
    return std::optional<WarmupResult>{std::move(r)};
  }
  r.window = std::clamp(UnionBytes(std::move(regions)) / std::max<std::uint64_t>(1, min_bs),
                        WarmupResult::kMinWindow, WarmupResult::kMaxWindow);
  // Requests are drawn kAhead before they are warmed and hinted to the
  // stack three times on the way (BlockDevice::PrefetchHint: the bucket head
  // at kAhead, the chain at kAhead / 2, its next entry and the policy's
  // links at kAhead / 4), so the metadata cache misses of several accesses
  // overlap: a warmed access is a few dependent misses
  // into tables of millions of lines, and nothing else.
  constexpr std::size_t kAhead = 32;
  std::array<NextIo, kAhead> ring;
  std::size_t next_stream = 0;
  auto draw = [&] {
    const NextIo io = streams[next_stream].Next();
    if (++next_stream == streams.size()) next_stream = 0;
    volume.PrefetchHint(io.op, io.offset, 2);
    return io;
  };
  for (NextIo& io : ring) io = draw();
  IoRequest req;
  std::size_t at = 0;
  while (r.placed.size() < WarmupResult::kMaxWindows) {
    std::uint64_t placed = 0;
    for (std::uint64_t i = 0; i < r.window; ++i) {
      const NextIo& half = ring[(at + kAhead / 2) % kAhead];
      volume.PrefetchHint(half.op, half.offset, 1);
      const NextIo& near = ring[(at + kAhead / 4) % kAhead];
      volume.PrefetchHint(near.op, near.offset, 0);
      req.op = ring[at].op;
      req.offset = ring[at].offset;
      req.length = ring[at].length;
      placed += volume.Warm(req);
      ring[at] = draw();
      at = (at + 1) % kAhead;
    }
    placed += volume.WarmSettle();
    r.accesses += r.window;
    r.placed.push_back(placed);
    const std::size_t k = r.placed.size();
    if (k >= 2 && WarmupConverged(r.placed[k - 2], r.placed[k - 1])) {
      r.converged = true;
      break;
    }
  }
  return std::optional<WarmupResult>{std::move(r)};
}

}  // namespace tierlab
