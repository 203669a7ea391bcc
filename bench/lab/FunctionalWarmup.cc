#include "bench/lab/FunctionalWarmup.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "bench/workload/JobStream.h"

namespace tierlab {
namespace {

// The union of the regions, as disjoint regions in ascending order.
std::vector<FileRegion> Union(std::vector<FileRegion> regions) {
  std::sort(regions.begin(), regions.end(),
            [](const FileRegion& a, const FileRegion& b) { return a.offset < b.offset; });
  std::vector<FileRegion> out;
  for (const FileRegion& r : regions) {
    if (r.length == 0) continue;
    if (!out.empty() && r.offset <= out.back().offset + out.back().length) {
      const std::uint64_t end =
          std::max(out.back().offset + out.back().length, r.offset + r.length);
      out.back().length = end - out.back().offset;
    } else {
      out.push_back(r);
    }
  }
  return out;
}

std::uint64_t Bytes(const std::vector<FileRegion>& disjoint) {
  std::uint64_t total = 0;
  for (const FileRegion& r : disjoint) total += r.length;
  return total;
}

}  // namespace

bool WarmupConverged(std::uint64_t previous, std::uint64_t current) {
  if (current == 0) return true;
  // Either way: a rise is a regime changing too (destage starting once the
  // dirty lines reach the high watermark frees lines for new placements).
  const double change = std::fabs(static_cast<double>(previous) - static_cast<double>(current));
  const double noise = 3 * std::sqrt(static_cast<double>(previous + current));
  return change <= std::max(WarmupResult::kRelativeDrop * static_cast<double>(previous), noise);
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
  if (filled_bytes != 0) j["filled_bytes"] = filled_bytes;
  j["converged"] = converged;
  return j;
}

Expected<std::optional<WarmupResult>> FunctionalWarmup(BlockDevice& volume,
                                                       std::vector<SectionWork>& sections,
                                                       std::uint64_t fill_within) {
  static const std::vector<FileRegion> kWholeVolume;
  std::vector<JobStream> streams;
  // Whose each stream is (section, job), and whether it completed a pass.
  std::vector<std::pair<std::size_t, std::uint32_t>> owner;
  std::vector<bool> wrapped;
  // Where each stream's requests go: its job's client on a cluster (a read
  // warms the copy that client reads), otherwise the volume.
  std::vector<BlockDevice*> devices;
  std::vector<std::vector<FileRegion>> stream_regions;
  std::vector<FileRegion> regions;
  std::uint64_t min_bs = 0;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const SectionWork& w = sections[i];
    const Profile& p = *w.profile;
    if (!p.warmup_fast) continue;
    for (std::uint32_t j = 0; j < p.numjobs; ++j) {
      auto s = JobStream::Create(p, volume.Size(), volume.BlockSize(), j,
                                 j < w.files.size() ? w.files[j] : kWholeVolume);
      if (!s.ok()) return s.error();
      for (const FileRegion& r : s->regions()) regions.push_back(r);
      stream_regions.push_back(s->regions());
      streams.push_back(std::move(*s));
      owner.emplace_back(i, j);
      devices.push_back(w.clients.empty() ? &volume
                                          : w.clients[(w.first_job + j) % w.clients.size()]);
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
  const std::vector<FileRegion> working_set = Union(std::move(regions));
  const std::uint64_t working_bytes = Bytes(working_set);
  r.window = std::clamp(working_bytes / std::max<std::uint64_t>(1, min_bs),
                        WarmupResult::kMinWindow, WarmupResult::kMaxWindow);
  IoRequest req;
  if (working_bytes <= fill_within) {
    // The fill pass (the file comment): sequential reads of 128 KiB.
    constexpr std::uint64_t kFillChunk = 128 * 1024;
    req.op = IoOp::kRead;
    auto fill = [&](BlockDevice& dev, const std::vector<FileRegion>& set) {
      for (const FileRegion& region : set) {
        for (std::uint64_t at = 0; at < region.length; at += kFillChunk) {
          req.offset = region.offset + at;
          req.length = std::min(kFillChunk, region.length - at);
          dev.Warm(req);
        }
      }
    };
    if (std::all_of(devices.begin(), devices.end(), [&](BlockDevice* d) { return d == &volume; })) {
      fill(volume, working_set);
    } else {
      // A cluster: each job's regions from its own client, so each node's
      // cache holds what its clients read.
      for (std::size_t s = 0; s < streams.size(); ++s) {
        fill(*devices[s], Union(std::vector<FileRegion>(stream_regions[s])));
      }
    }
    volume.WarmSettle();
    r.filled_bytes = working_bytes;
  }
  // Requests are drawn kAhead before they are warmed and hinted to the
  // stack three times on the way (BlockDevice::PrefetchHint: the bucket head
  // at kAhead, the chain at kAhead / 2, its next entry and the policy's
  // links at kAhead / 4), so the metadata cache misses of several accesses
  // overlap: a warmed access is a few dependent misses
  // into tables of millions of lines, and nothing else.
  constexpr std::size_t kAhead = 32;
  struct Drawn {
    NextIo io;
    BlockDevice* dev;
  };
  std::array<Drawn, kAhead> ring;
  std::size_t next_stream = 0;
  wrapped.assign(streams.size(), false);
  auto draw = [&] {
    const Drawn d{streams[next_stream].Next(), devices[next_stream]};
    if (d.io.wrapped) wrapped[next_stream] = true;
    if (++next_stream == streams.size()) next_stream = 0;
    d.dev->PrefetchHint(d.io.op, d.io.offset, 2);
    return d;
  };
  for (Drawn& d : ring) d = draw();
  std::size_t at = 0;
  while (r.placed.size() < WarmupResult::kMaxWindows) {
    std::uint64_t placed = 0;
    for (std::uint64_t i = 0; i < r.window; ++i) {
      const Drawn& half = ring[(at + kAhead / 2) % kAhead];
      half.dev->PrefetchHint(half.io.op, half.io.offset, 1);
      const Drawn& near = ring[(at + kAhead / 4) % kAhead];
      near.dev->PrefetchHint(near.io.op, near.io.offset, 0);
      req.op = ring[at].io.op;
      req.offset = ring[at].io.offset;
      req.length = ring[at].io.length;
      placed += ring[at].dev->Warm(req);
      ring[at] = draw();
      at = (at + 1) % kAhead;
    }
    placed += volume.WarmSettle();
    r.accesses += r.window;
    r.placed.push_back(placed);
    const std::size_t k = r.placed.size();
    // A window that placed nothing has nothing left to converge (a stack
    // with no cache or tier state, or one already in place).
    if (placed == 0 || (k >= 2 && WarmupConverged(r.placed[k - 2], r.placed[k - 1]))) {
      r.converged = true;
      break;
    }
  }
  // The timed run continues the streams. The ring holds kAhead requests
  // drawn but not warmed: they are the streams' next requests, so they are
  // warmed now rather than lost (a stream cannot be rewound).
  for (std::size_t k = 0; k < kAhead; ++k) {
    const Drawn& d = ring[(at + k) % kAhead];
    req.op = d.io.op;
    req.offset = d.io.offset;
    req.length = d.io.length;
    d.dev->Warm(req);
  }
  volume.WarmSettle();
  r.accesses += kAhead;
  for (std::size_t s = 0; s < streams.size(); ++s) {
    SectionWork& w = sections[owner[s].first];
    const bool one_pass = !w.profile->time_based && streams[s].ends_at_pass();
    if (wrapped[s] && one_pass) continue;
    if (w.streams.size() < w.profile->numjobs) w.streams.resize(w.profile->numjobs);
    w.streams[owner[s].second] = std::move(streams[s]);
  }
  return std::optional<WarmupResult>{std::move(r)};
}

}  // namespace tierlab
