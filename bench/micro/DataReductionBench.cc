// Data reduction's CPU cost per 4 KiB block on this machine (issue 21: the
// per-4 KiB figures that simulated dedup and compression will charge):
// xxHash fingerprints (XXH3 64 and 128 bits; CRC32C, tierlab's own checksum,
// beside them), LZ4 and zstd (levels 1 and 3) compression and decompression,
// on blocks that are incompressible, half compressible in fio's way
// (buffer_compress_percentage=50 with 512-byte chunks: each chunk is half
// random bytes, half zeros) and all zeros. Counters: the compressed size and
// the share of blocks that fit vSAN's 2 KiB rule (stored compressed only if
// 4 KiB shrinks to 2 KiB or less).
//
//   ./build/bench/micro/DataReductionBench --benchmark_repetitions=3
//   --benchmark_report_aggregates_only=true   (one command line)

#include <benchmark/benchmark.h>
#include <lz4.h>
#include <xxhash.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "tiering/core/Crc32c.h"

namespace tierlab {
namespace {

constexpr std::size_t kBlock = 4096;
constexpr std::size_t kBlocks = 1024;  // 4 MiB: more than L2, as a stream's blocks are

enum class Content { kRandom = 0, kHalf = 1, kZeros = 2 };

// kBlocks blocks of the given content, different from one another.
std::vector<char> Blocks(Content c) {
  std::vector<char> b(kBlock * kBlocks, 0);
  std::mt19937_64 rng(42);
  for (std::size_t i = 0; i < b.size(); i += 8) {
    const std::uint64_t r = rng();
    std::memcpy(&b[i], &r, 8);
  }
  if (c == Content::kZeros) std::fill(b.begin(), b.end(), 0);
  if (c == Content::kHalf) {
    for (std::size_t chunk = 0; chunk < b.size(); chunk += 512) {
      std::fill(b.begin() + static_cast<std::ptrdiff_t>(chunk + 256),
                b.begin() + static_cast<std::ptrdiff_t>(chunk + 512), 0);
    }
  }
  return b;
}

void Finish(benchmark::State& state, std::uint64_t out_bytes, std::uint64_t fits) {
  const auto n = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBlock));
  if (out_bytes > 0) {
    state.counters["out_bytes"] = static_cast<double>(out_bytes) / n;
    state.counters["fits_2k"] = static_cast<double>(fits) / n;
  }
}

void BM_Xxh3_64(benchmark::State& state) {
  const auto data = Blocks(static_cast<Content>(state.range(0)));
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(XXH3_64bits(&data[i * kBlock], kBlock));
    i = (i + 1) % kBlocks;
  }
  Finish(state, 0, 0);
}

void BM_Xxh3_128(benchmark::State& state) {
  const auto data = Blocks(static_cast<Content>(state.range(0)));
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(XXH3_128bits(&data[i * kBlock], kBlock));
    i = (i + 1) % kBlocks;
  }
  Finish(state, 0, 0);
}

void BM_Crc32c(benchmark::State& state) {
  const auto data = Blocks(static_cast<Content>(state.range(0)));
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(Crc32c(0, &data[i * kBlock], kBlock));
    i = (i + 1) % kBlocks;
  }
  Finish(state, 0, 0);
}

void BM_Lz4Compress(benchmark::State& state) {
  const auto data = Blocks(static_cast<Content>(state.range(0)));
  std::vector<char> out(LZ4_compressBound(kBlock));
  std::size_t i = 0;
  std::uint64_t out_bytes = 0, fits = 0;
  for (auto _ : state) {
    const int n =
        LZ4_compress_default(&data[i * kBlock], out.data(), kBlock, static_cast<int>(out.size()));
    out_bytes += static_cast<std::uint64_t>(n);
    fits += n > 0 && n <= 2048 ? 1 : 0;
    i = (i + 1) % kBlocks;
  }
  Finish(state, out_bytes, fits);
}

void BM_Lz4Decompress(benchmark::State& state) {
  const auto data = Blocks(static_cast<Content>(state.range(0)));
  std::vector<std::vector<char>> packed(kBlocks);
  for (std::size_t b = 0; b < kBlocks; ++b) {
    packed[b].resize(LZ4_compressBound(kBlock));
    const int n = LZ4_compress_default(&data[b * kBlock], packed[b].data(), kBlock,
                                       static_cast<int>(packed[b].size()));
    packed[b].resize(static_cast<std::size_t>(n));
  }
  std::vector<char> out(kBlock);
  std::size_t i = 0;
  for (auto _ : state) {
    const int n = LZ4_decompress_safe(packed[i].data(), out.data(),
                                      static_cast<int>(packed[i].size()), kBlock);
    if (n != static_cast<int>(kBlock)) state.SkipWithError("lz4 round trip failed");
    i = (i + 1) % kBlocks;
  }
  Finish(state, 0, 0);
}

void BM_ZstdCompress(benchmark::State& state) {
  const auto data = Blocks(static_cast<Content>(state.range(0)));
  const int level = static_cast<int>(state.range(1));
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  std::vector<char> out(ZSTD_compressBound(kBlock));
  std::size_t i = 0;
  std::uint64_t out_bytes = 0, fits = 0;
  for (auto _ : state) {
    const std::size_t n =
        ZSTD_compressCCtx(cctx, out.data(), out.size(), &data[i * kBlock], kBlock, level);
    if (ZSTD_isError(n)) state.SkipWithError("zstd failed");
    out_bytes += n;
    fits += n <= 2048 ? 1 : 0;
    i = (i + 1) % kBlocks;
  }
  ZSTD_freeCCtx(cctx);
  Finish(state, out_bytes, fits);
}

void BM_ZstdDecompress(benchmark::State& state) {
  const auto data = Blocks(static_cast<Content>(state.range(0)));
  const int level = static_cast<int>(state.range(1));
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  std::vector<std::vector<char>> packed(kBlocks);
  for (std::size_t b = 0; b < kBlocks; ++b) {
    packed[b].resize(ZSTD_compressBound(kBlock));
    packed[b].resize(ZSTD_compressCCtx(cctx, packed[b].data(), packed[b].size(), &data[b * kBlock],
                                       kBlock, level));
  }
  std::vector<char> out(kBlock);
  std::size_t i = 0;
  for (auto _ : state) {
    const std::size_t n =
        ZSTD_decompressDCtx(dctx, out.data(), out.size(), packed[i].data(), packed[i].size());
    if (n != kBlock) state.SkipWithError("zstd round trip failed");
    i = (i + 1) % kBlocks;
  }
  ZSTD_freeCCtx(cctx);
  ZSTD_freeDCtx(dctx);
  Finish(state, 0, 0);
}

// Arg 0: content (0 random, 1 half compressible, 2 zeros); arg 1: zstd level.
BENCHMARK(BM_Xxh3_64)->Arg(0);
BENCHMARK(BM_Xxh3_128)->Arg(0);
BENCHMARK(BM_Crc32c)->Arg(0);
BENCHMARK(BM_Lz4Compress)->DenseRange(0, 2);
BENCHMARK(BM_Lz4Decompress)->DenseRange(0, 2);
BENCHMARK(BM_ZstdCompress)->ArgsProduct({{0, 1, 2}, {1, 3}});
BENCHMARK(BM_ZstdDecompress)->ArgsProduct({{0, 1, 2}, {1, 3}});

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
