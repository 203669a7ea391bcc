// Trace parsing and exact MRC analysis throughput (docs/PERFORMANCE.md,
// "Trace parsing and MRC"). Targets: tierlab binary >= 5 M records/s and MSR
// CSV >= 1 M records/s on one core, parse plus exact LRU MRC.
//
// Setup writes two synthetic traces into a temp dir once: 4 KiB requests,
// 70% reads, zipf(0.9) over 1 M blocks (4 GiB) scattered by a bijection,
// 1 ms apart; the same records as tierlab binary and as MSR Cambridge CSV.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <span>

#include "bench/analysis/ShardsMrc.h"
#include "bench/analysis/StackDistanceMrc.h"
#include "bench/trace/TraceFactory.h"
#include "bench/trace/TraceWriter.h"
#include "bench/workload/BlockDistributions.h"
#include "bench/workload/Random.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kBlocks = 1 << 20;
constexpr std::size_t kBinaryRecords = 4'000'000;
constexpr std::size_t kCsvRecords = 1'000'000;

struct Inputs {
  fs::path dir;
  std::string binary;
  std::string csv;

  Inputs() {
    dir = fs::temp_directory_path() / ("tierlab-trace-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    binary = (dir / "synthetic.tl").string();
    csv = (dir / "synthetic.csv").string();
    Write(binary, TraceFormat::kTierlabBin, kBinaryRecords);
    Write(csv, TraceFormat::kMsrCsv, kCsvRecords);
  }
  ~Inputs() { fs::remove_all(dir); }

  static void Write(const std::string& path, TraceFormat format, std::size_t n) {
    ZipfSampler zipf(kBlocks, 0.9);
    BlockPermutation scatter(kBlocks, 7);
    Xoshiro256 rng(1);
    auto w = CreateTraceWriter(path, format);
    if (!w.ok()) std::abort();
    for (std::size_t i = 0; i < n; ++i) {
      TraceRecord r;
      r.timestamp = static_cast<Nanos>(i) * kMilli;
      r.op = rng.Next() % 10 < 7 ? IoOp::kRead : IoOp::kWrite;
      r.offset = scatter(zipf.Sample(rng)) * 4096;
      r.length = 4096;
      if (!(*w)->Write(r).ok()) std::abort();
    }
    if (!(*w)->Close().ok()) std::abort();
  }
};

const Inputs& GetInputs() {
  static Inputs inputs;
  return inputs;
}

// kExactMrcOneByOne feeds records one at a time (no batch, so no
// prefetching): the same result, for the batch's effect in the same run.
enum class Analysis { kNone, kExactMrc, kExactMrcOneByOne, kShards };

void Run(benchmark::State& state, const std::string& path, TraceFormat format, Analysis analysis) {
  std::uint64_t total = 0;
  for (auto _ : state) {
    auto reader = OpenTrace(path, {.format = format});
    if (!reader.ok()) {
      state.SkipWithError(reader.error().message.c_str());
      return;
    }
    StackDistanceMrc exact(4096);
    ShardsMrc shards({.rate = 0.01});
    // Records go to the exact MRC in batches, as FeedTrace and the analyzer
    // feed it (the batch lets it prefetch).
    std::array<TraceRecord, 256> batch;
    std::size_t pending = 0;
    std::uint64_t n = 0;
    for (;;) {
      TraceRecord& r = batch[pending];
      auto more = (*reader)->Next(&r);
      if (!more.ok()) {
        state.SkipWithError(more.error().message.c_str());
        return;
      }
      if (*more) {
        ++n;
        if (analysis == Analysis::kShards) shards.Add(r);
        if (analysis == Analysis::kExactMrcOneByOne) exact.Add(r);
        if (analysis == Analysis::kExactMrc) ++pending;
      }
      if (pending == batch.size() || (!*more && pending > 0)) {
        exact.Add(std::span<const TraceRecord>(batch.data(), pending));
        pending = 0;
      }
      if (!*more) break;
    }
    benchmark::DoNotOptimize(n);
    if (analysis == Analysis::kExactMrc || analysis == Analysis::kExactMrcOneByOne) {
      state.counters["miss_ratio_at_64MiB"] = exact.MissRatio(16384);
      state.counters["unique_blocks"] = static_cast<double>(exact.unique_blocks());
    }
    if (analysis == Analysis::kShards) {
      state.counters["miss_ratio_at_64MiB"] = shards.MissRatio(16384);
    }
    total += n;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(total));
}

void BM_TierlabBinaryParse(benchmark::State& s) {
  Run(s, GetInputs().binary, TraceFormat::kTierlabBin, Analysis::kNone);
}
void BM_TierlabBinaryParseExactMrc(benchmark::State& s) {
  Run(s, GetInputs().binary, TraceFormat::kTierlabBin, Analysis::kExactMrc);
}
void BM_TierlabBinaryParseExactMrcOneByOne(benchmark::State& s) {
  Run(s, GetInputs().binary, TraceFormat::kTierlabBin, Analysis::kExactMrcOneByOne);
}
void BM_TierlabBinaryParseShards1pct(benchmark::State& s) {
  Run(s, GetInputs().binary, TraceFormat::kTierlabBin, Analysis::kShards);
}
void BM_MsrCsvParse(benchmark::State& s) {
  Run(s, GetInputs().csv, TraceFormat::kMsrCsv, Analysis::kNone);
}
void BM_MsrCsvParseExactMrc(benchmark::State& s) {
  Run(s, GetInputs().csv, TraceFormat::kMsrCsv, Analysis::kExactMrc);
}

BENCHMARK(BM_TierlabBinaryParse)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TierlabBinaryParseExactMrc)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TierlabBinaryParseExactMrcOneByOne)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TierlabBinaryParseShards1pct)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_MsrCsvParse)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_MsrCsvParseExactMrc)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
