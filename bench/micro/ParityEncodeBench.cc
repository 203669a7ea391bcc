// Parity RAID's CPU cost on this machine (issue 21 item 5): ParityTarget's
// code (ParityCode over Intel ISA-L) encoding the parity of one stripe, per
// stripe and per 4 KiB of data, for RAID-5, RAID-6 and triple parity at the
// widths the examples use; a read-modify-write's parity update of one 4 KiB
// piece; and the decode of lost chunks. Beside them, RAID-5's parity as a
// plain XOR loop compiled here (what code of our own would do), for a ratio.
//
//   ./build/bench/micro/ParityEncodeBench --benchmark_repetitions=3
//   --benchmark_report_aggregates_only=true   (one command line)

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "tiering/targets/ParityCode.h"

namespace tierlab {
namespace {

struct Stripe {
  std::vector<std::vector<std::byte>> blocks;  // k data, then m parity
  std::vector<std::byte*> data;
  std::vector<std::byte*> parity;
};

Stripe MakeStripe(int k, int m, std::size_t chunk) {
  Stripe s;
  std::mt19937_64 rng(7);
  s.blocks.resize(static_cast<std::size_t>(k + m), std::vector<std::byte>(chunk));
  for (auto& b : s.blocks) {
    for (auto& x : b) x = static_cast<std::byte>(rng());
  }
  for (int i = 0; i < k; ++i) s.data.push_back(s.blocks[static_cast<std::size_t>(i)].data());
  for (int j = 0; j < m; ++j) s.parity.push_back(s.blocks[static_cast<std::size_t>(k + j)].data());
  return s;
}

void Counters(benchmark::State& state, std::size_t data_bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data_bytes));
  state.counters["ns_per_4k"] =
      benchmark::Counter(static_cast<double>(state.iterations() * data_bytes) / 4096,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Args: k, m, chunk bytes.
void BM_Encode(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0));
  const int m = static_cast<int>(state.range(1));
  const auto chunk = static_cast<std::size_t>(state.range(2));
  const ParityCode code(k, m);
  Stripe s = MakeStripe(k, m, chunk);
  for (auto _ : state) {
    code.Encode(chunk, s.data, s.parity);
    benchmark::ClobberMemory();
  }
  Counters(state, chunk * static_cast<std::size_t>(k));
}

// RAID-5's parity as a loop of our own, 8 bytes at a time.
void BM_XorLoop(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0));
  const auto chunk = static_cast<std::size_t>(state.range(2));
  Stripe s = MakeStripe(k, 1, chunk);
  for (auto _ : state) {
    auto* p = reinterpret_cast<std::uint64_t*>(s.parity[0]);
    const auto* d0 = reinterpret_cast<const std::uint64_t*>(s.data[0]);
    for (std::size_t w = 0; w < chunk / 8; ++w) p[w] = d0[w];
    for (int i = 1; i < k; ++i) {
      const auto* d = reinterpret_cast<const std::uint64_t*>(s.data[static_cast<std::size_t>(i)]);
      for (std::size_t w = 0; w < chunk / 8; ++w) p[w] ^= d[w];
    }
    benchmark::ClobberMemory();
  }
  Counters(state, chunk * static_cast<std::size_t>(k));
}

// A read-modify-write's parity update for one 4 KiB piece of one chunk.
void BM_Update4k(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0));
  const int m = static_cast<int>(state.range(1));
  const ParityCode code(k, m);
  Stripe s = MakeStripe(k, m, 4096);
  std::vector<std::byte> delta(4096, std::byte{0x5a});
  for (auto _ : state) {
    code.Update(4096, 1, delta.data(), s.parity);
    benchmark::ClobberMemory();
  }
  Counters(state, 4096);
}

// Rebuilding m lost data chunks of a stripe from k survivors.
void BM_Decode(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0));
  const int m = static_cast<int>(state.range(1));
  const auto chunk = static_cast<std::size_t>(state.range(2));
  const ParityCode code(k, m);
  Stripe s = MakeStripe(k, m, chunk);
  code.Encode(chunk, s.data, s.parity);
  // Data chunks 0..m-1 are lost: sources are the other data and the parity.
  std::vector<int> sources;
  std::vector<std::byte*> src;
  for (int r = m; r < k + m; ++r) {
    sources.push_back(r);
    src.push_back(s.blocks[static_cast<std::size_t>(r)].data());
  }
  std::vector<int> wanted;
  std::vector<std::vector<std::byte>> out(static_cast<std::size_t>(m),
                                          std::vector<std::byte>(chunk));
  std::vector<std::byte*> outp;
  for (int r = 0; r < m; ++r) {
    wanted.push_back(r);
    outp.push_back(out[static_cast<std::size_t>(r)].data());
  }
  for (auto _ : state) {
    if (!code.Decode(chunk, sources, src, wanted, outp)) state.SkipWithError("decode failed");
    benchmark::ClobberMemory();
  }
  if (out[0] != s.blocks[0]) state.SkipWithError("decode gave other bytes");
  Counters(state, chunk * static_cast<std::size_t>(k));
}

// RAID-5 4+1 and 8+1, RAID-6 4+2 and 10+2, triple parity 4+3 and 18+3 (the
// Nimble example's 21 disks), 64 KiB chunks.
#define PARITY_SHAPES        \
  Args({4, 1, 65536})        \
      ->Args({8, 1, 65536})  \
      ->Args({4, 2, 65536})  \
      ->Args({10, 2, 65536}) \
      ->Args({4, 3, 65536})  \
      ->Args({18, 3, 65536})
BENCHMARK(BM_Encode)->PARITY_SHAPES;
BENCHMARK(BM_XorLoop)->Args({4, 1, 65536})->Args({8, 1, 65536});
BENCHMARK(BM_Update4k)->Args({4, 1})->Args({4, 2})->Args({18, 3});
BENCHMARK(BM_Decode)->Args({4, 1, 65536})->Args({4, 2, 65536})->Args({18, 3, 65536});

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
