// Simulation speed: simulated I/Os completed per wall-clock second on one
// core. A SimEngine and one nvme-pm1725 model in timing-only mode, driven
// closed-loop at a fixed queue depth with 4 KiB random reads (xorshift64
// offsets), as a layout matrix cell would drive its devices.
//
// Reported: items_per_second = simulated I/Os completed per wall second.
// Target (docs/PERFORMANCE.md): >= 5 million at QD32.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

#include "tiering/core/SimEngine.h"
#include "tiering/devices/ModelDevice.h"

namespace tierlab {
namespace {

class ClosedLoop {
 public:
  ClosedLoop(SimEngine& engine, BlockDevice& dev) : engine_(engine), dev_(dev) {
    blocks_ = dev.Size() / 4096;
  }

  // Runs `ops` I/Os at `qd` in flight; returns when all have completed.
  void Run(std::uint64_t ops, std::uint32_t qd) {
    remaining_ = ops;
    for (std::uint32_t i = 0; i < qd && remaining_ > 0; ++i) Issue();
    engine_.Run();
  }

 private:
  void Issue() {
    --remaining_;
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    IoRequest req;
    req.op = IoOp::kRead;
    req.offset = (rng_ % blocks_) * 4096;
    req.length = 4096;
    dev_.Submit(req, [this](Status) {
      if (remaining_ > 0) Issue();
    });
  }

  SimEngine& engine_;
  BlockDevice& dev_;
  std::uint64_t blocks_ = 1;
  std::uint64_t remaining_ = 0;
  std::uint64_t rng_ = 0x9e3779b97f4a7c15ull;
};

void BM_SimNvmeRandRead4k(benchmark::State& state) {
  const auto qd = static_cast<std::uint32_t>(state.range(0));
  SimEngine engine;
  std::unique_ptr<BlockDevice> dev =
      MakeModelDevice(engine, *FindPreset("nvme-pm1725"), "nvme0", ModelOptions{});
  ClosedLoop loop(engine, *dev);
  constexpr std::uint64_t kBatch = 1 << 16;
  std::uint64_t total = 0;
  for (auto _ : state) {
    loop.Run(kBatch, qd);
    total += kBatch;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(total));
  state.counters["sim_seconds"] = static_cast<double>(engine.Now()) / 1e9;
}
BENCHMARK(BM_SimNvmeRandRead4k)->Arg(32)->Arg(1)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
