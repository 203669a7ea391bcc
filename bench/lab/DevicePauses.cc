#include "bench/lab/DevicePauses.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "tiering/core/SplitMix64.h"

namespace tierlab {

namespace {

constexpr std::uint64_t kRead = 4096;

struct FreeAligned {
  void operator()(std::byte* p) const { std::free(p); }
};

}  // namespace

Expected<HostStalls> MeasureDevicePauses(Engine& engine, BlockDevice& device, std::uint64_t region,
                                         Nanos window, std::uint64_t seed) {
  region = std::min(region, device.Size());
  if (region < kRead) {
    return MakeError(
        "pause probe: a region of " + std::to_string(region) + " bytes holds no 4 KiB read",
        ErrorKind::kInput);
  }
  // Aligned for O_DIRECT; the data is not looked at.
  std::unique_ptr<std::byte, FreeAligned> buffer(
      static_cast<std::byte*>(std::aligned_alloc(kRead, kRead)));
  // One read in flight; the next is issued from the last one's completion.
  struct Loop {
    Engine& engine;
    BlockDevice& device;
    std::byte* buffer;
    SplitMix64 rng;
    std::uint64_t blocks;
    Nanos stop;
    Nanos last;
    std::vector<Nanos> latencies;
    Status failed = Status::kOk;

    void Issue() {
      IoRequest r;
      r.op = IoOp::kRead;
      r.offset = (rng.Next() % blocks) * kRead;
      r.length = kRead;
      r.data = buffer;
      const Nanos issued = engine.Now();
      device.Submit(r, [this, issued](Status st) {
        last = engine.Now();
        if (st != Status::kOk) {
          failed = st;
          return;
        }
        latencies.push_back(last - issued);
        if (last < stop) Issue();
      });
    }
  };
  const Nanos start = engine.Now();
  Loop loop{engine,         device,         buffer.get(), SplitMix64(seed),
            region / kRead, start + window, start,        {}};
  loop.Issue();
  engine.Run();
  if (loop.failed != Status::kOk) {
    return MakeError("pause probe: a 4 KiB read of " + device.name() +
                         " failed: " + std::string(ToString(loop.failed)),
                     ErrorKind::kIo);
  }
  std::vector<Nanos>& latencies = loop.latencies;  // the order does not matter
  if (latencies.empty()) return ClassifyStalls({}, loop.last - start);
  std::nth_element(latencies.begin(), latencies.begin() + latencies.size() / 2, latencies.end());
  const Nanos median = latencies[latencies.size() / 2];
  std::vector<Nanos> gaps;
  for (const Nanos l : latencies) {
    // The read a pause meets was, on average, half-way through its own
    // time: the pause is its excess plus half a read.
    if (l - median >= kPauseThreshold) gaps.push_back(l - median + median / 2);
  }
  HostStalls h = ClassifyStalls(gaps, loop.last - start);
  h.unit = median;
  return h;
}

std::optional<std::string> PausedShareWarning(const HostStalls& seen) {
  if (seen.lost_share < kMaxPausedShare) return std::nullopt;
  return "paused " + std::to_string(std::lround(seen.lost_share * 100)) +
         "% of the pause probe's " +
         std::to_string(std::lround(static_cast<double>(seen.window) / 1e6)) +
         " ms (a busy machine, or a device's background work: a quieter moment; at most " +
         std::to_string(std::lround(kMaxPausedShare * 100)) + "%)";
}

}  // namespace tierlab
