#include "bench/lab/MemoryCopies.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "tiering/core/SplitMix64.h"

namespace tierlab {

namespace {

constexpr std::uint64_t kSmall = 4096;
constexpr std::uint64_t kLarge = 1ull << 20;
constexpr std::uint32_t kSmallBatch = 64;
constexpr std::uint32_t kLargeBatch = 4;

// Keeps the compiler from dropping a copy whose destination it sees no
// reader of.
inline void Touched(const void* p) {
  asm volatile("" : : "r"(p) : "memory");
}

Nanos Now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct FreeAligned {
  void operator()(std::byte* p) const { std::free(p); }
};

// Batches of `batch` copies of `size` bytes for `duration`; the median
// batch's time a copy. `next` gives each copy's offset in the memory.
template <typename NextOffset>
double MedianCopyNs(std::byte* memory, std::byte* buffer, std::uint64_t size, bool into_memory,
                    std::uint32_t batch, Nanos duration, NextOffset next) {
  std::vector<double> samples;
  const Nanos end = Now() + duration;
  do {
    const Nanos t0 = Now();
    for (std::uint32_t i = 0; i < batch; ++i) {
      std::byte* at = memory + next();
      if (into_memory) {
        std::memcpy(at, buffer, size);
        Touched(at);
      } else {
        std::memcpy(buffer, at, size);
        Touched(buffer);
      }
    }
    samples.push_back(static_cast<double>(Now() - t0) / batch);
  } while (Now() < end);
  auto mid = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
  std::nth_element(samples.begin(), mid, samples.end());
  return *mid;
}

}  // namespace

Expected<MemoryCopies> MeasureMemoryCopies(std::byte* base, std::uint64_t bytes, Nanos window,
                                           std::uint64_t seed) {
  if (bytes < kMemoryCopyMinBytes) {
    return MakeError("memory copies: a range of " + std::to_string(bytes) +
                     " bytes is under the 2 MiB they need (two 1 MiB copies)");
  }
  if (window < kMilli) return MakeError("memory copies: a window under a millisecond");
  // Reads copy into one buffer, writes out of another that keeps a pattern.
  std::unique_ptr<std::byte, FreeAligned> into(
      static_cast<std::byte*>(std::aligned_alloc(kSmall, kLarge)));
  std::unique_ptr<std::byte, FreeAligned> from(
      static_cast<std::byte*>(std::aligned_alloc(kSmall, kLarge)));
  std::memset(into.get(), 0, kLarge);
  std::memset(from.get(), 0x5a, kLarge);
  const Nanos quarter = window / 4;
  const std::uint64_t blocks = bytes / kSmall;
  SplitMix64 rng(seed);
  auto random = [&] { return rng.Next() % blocks * kSmall; };
  std::uint64_t at = 0;
  auto in_order = [&] {
    if (at + kLarge > bytes) at = 0;
    const std::uint64_t o = at;
    at += kLarge;
    return o;
  };
  const Nanos t0 = Now();
  MemoryCopies c;
  c.read_4k_ns = MedianCopyNs(base, into.get(), kSmall, false, kSmallBatch, quarter, random);
  c.write_4k_ns = MedianCopyNs(base, from.get(), kSmall, true, kSmallBatch, quarter, random);
  at = 0;
  c.read_bw_bytes =
      kLarge * 1e9 / MedianCopyNs(base, into.get(), kLarge, false, kLargeBatch, quarter, in_order);
  at = 0;
  c.write_bw_bytes =
      kLarge * 1e9 / MedianCopyNs(base, from.get(), kLarge, true, kLargeBatch, quarter, in_order);
  c.window = Now() - t0;
  return c;
}

Expected<MemoryCopies> MeasureFileCopies(const std::string& path, std::uint64_t region,
                                         Nanos window) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return MakeError(path + ": " + std::strerror(errno), ErrorKind::kIo);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) < region) {
    ::close(fd);
    return MakeError(path + ": shorter than the " + std::to_string(region) +
                     " bytes the memory copies cover");
  }
  void* map = ::mmap(nullptr, region, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int map_errno = errno;
  ::close(fd);
  if (map == MAP_FAILED) {
    return MakeError(path + ": mmap: " + std::strerror(map_errno), ErrorKind::kIo);
  }
  auto copies = MeasureMemoryCopies(static_cast<std::byte*>(map), region, window);
  ::munmap(map, region);
  if (!copies.ok()) return MakeError(path + ": " + copies.error().message, copies.error().kind);
  return copies;
}

Expected<void> FitMemoryCopies(const MemoryCopies& copies, const std::vector<ProbeResult>& probe,
                               const CalibrationPlan& plan, CalibrationFit& fit) {
  if (!(copies.read_4k_ns > 0 && copies.write_4k_ns > 0 && copies.read_bw_bytes > 0 &&
        copies.write_bw_bytes > 0)) {
    return MakeError("memory copies: a figure that is not positive", ErrorKind::kInconsistent);
  }
  DevicePreset& p = fit.preset;
  p.read_latency = std::max<Nanos>(1, std::llround(copies.read_4k_ns));
  p.write_latency = std::max<Nanos>(1, std::llround(copies.write_4k_ns));
  p.read_iops_4k = 1e9 / static_cast<double>(p.read_latency);
  p.write_iops_4k = 1e9 / static_cast<double>(p.write_latency);
  p.seq_read_mbps = copies.read_bw_bytes / 1e6;
  p.seq_write_mbps = copies.write_bw_bytes / 1e6;
  p.service_units = 1;
  if (auto s = PredictProbe(probe, plan, fit); !s.ok()) return s.error();
  char line[320];
  std::snprintf(line, sizeof line,
                "a mapped memory file: fitted to its own copies (4k %.0f ns out, %.0f ns in; "
                "1m in order %.0f and %.0f MB/s), not to the points, which are tierlab's "
                "engine thread as well (calibrate --cpu charges that thread); their errors "
                "are its share",
                copies.read_4k_ns, copies.write_4k_ns, copies.read_bw_bytes / 1e6,
                copies.write_bw_bytes / 1e6);
  fit.notes.emplace_back(line);
  return {};
}

}  // namespace tierlab
