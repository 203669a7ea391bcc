#pragma once
// Helpers shared by the cache target tests: building a cache target over RAM
// devices, synchronous-looking I/O on a SimEngine, and a fixed-latency device
// for timing tests.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cachedev/CacheTarget.h"
#include "tests/support/TempDir.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/devices/SparseStore.h"

namespace tierlab::cachetest {

// "c0", "c1", ...: appended piece by piece, since GCC 12 reports a bogus
// -Wrestrict for `"literal" + std::string` (GCC bug 105329).
inline std::string DeviceName(const char* prefix, int i) {
  std::string s = prefix;
  s += std::to_string(i);
  return s;
}

// A temporary directory, removed with everything in it.
using TempDir = tierlab::testing::TempDir;

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * 1024;

// Completes every request `latency` after submission, with unlimited
// parallelism, keeping data like RamDevice (applied at submission).
class FixedLatencyDevice final : public BlockDevice {
 public:
  FixedLatencyDevice(Engine& e, std::string name, std::uint64_t size, Nanos latency)
      : BlockDevice(e, std::move(name)), ram_(e, "inner", size), size_(size), latency_(latency) {}
  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return 512; }
  std::string Kind() const override { return "fixed"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    // The inner RAM device moves the data now; completion after the latency.
    ram_.Submit(req, [](Status) {});
    engine().ScheduleAfter(latency_,
                           [this, done = std::move(done)]() mutable { Finish(done, Status::kOk); });
  }

 private:
  RamDevice ram_;
  std::uint64_t size_;
  Nanos latency_;
};

// Origin `origin_size` bytes of RAM; `ndev` RAM cache devices holding
// `lines` lines of `line_size` in total.
// Completes each request after a random latency in [1, max] µs and applies
// its data at completion (as the with-data device models do), so requests in
// flight together complete out of order and a target's internal races show.
class JitterDevice final : public BlockDevice {
 public:
  JitterDevice(Engine& e, std::string name, std::uint64_t size, std::uint64_t seed,
               Nanos max_latency = 40 * kMicro)
      : BlockDevice(e, std::move(name)), size_(size), rng_(seed), max_(max_latency) {}
  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return 512; }
  std::string Kind() const override { return "jitter"; }
  // Fail every request from now on (a dead device), or recover.
  void set_failed(bool f) { failed_ = f; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    const Nanos lat = kMicro + static_cast<Nanos>(rng_() % static_cast<std::uint64_t>(max_));
    // Packed so the completion fits an engine task next to the callback.
    const std::uint64_t meta = req.length |
                               (std::uint64_t{static_cast<std::uint8_t>(req.op)} << 40) |
                               (std::uint64_t{failed_} << 48);
    const std::uint64_t off = req.offset;
    std::byte* data = req.data;
    engine().ScheduleAfter(lat, [this, meta, off, data, done = std::move(done)]() mutable {
      const std::uint64_t len = meta & ((1ull << 40) - 1);
      const IoOp op = static_cast<IoOp>((meta >> 40) & 0xFF);
      const bool fail = (meta >> 48) != 0;
      if (!fail && data != nullptr) {
        if (op == IoOp::kRead) store_.Read(off, len, data);
        if (op == IoOp::kWrite) store_.Write(off, len, data);
      }
      if (!fail && op == IoOp::kDiscard) store_.Discard(off, len);
      Finish(done, fail ? Status::kIoError : Status::kOk);
    });
  }
  // The store's holes, as RamDevice reports them.
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override {
    store_.MapAllocation(offset, length, max_extents, out);
  }

 private:
  std::uint64_t size_;
  std::mt19937_64 rng_;
  Nanos max_;
  bool failed_ = false;
  SparseStore store_;
};

// The same over jitter devices (cache devices and origin).
inline std::unique_ptr<CacheTarget> MakeJitterCache(Engine& e, CacheConfig cfg, std::uint64_t lines,
                                                    std::uint64_t origin_size, int ndev,
                                                    std::uint64_t seed) {
  std::vector<std::unique_ptr<BlockDevice>> caches;
  const std::uint64_t per_dev = (lines + ndev - 1) / ndev * cfg.line_size + cfg.metadata_reserve;
  for (int i = 0; i < ndev; ++i) {
    caches.push_back(std::make_unique<JitterDevice>(e, DeviceName("c", i), per_dev, seed * 31 + i));
  }
  cfg.capacity_lines = lines;
  auto origin =
      std::make_unique<JitterDevice>(e, "origin", origin_size, seed * 31 + 17, 120 * kMicro);
  auto r = CacheTarget::Create(e, "cache", std::move(origin), std::move(caches), cfg);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : nullptr;
}

// A cache of 4 KiB lines that keeps its data, in write mode `mode`.
inline CacheConfig DataCache(WriteMode mode) {
  CacheConfig cfg;
  cfg.line_size = 4 * kKiB;
  cfg.with_data = true;
  cfg.write = mode;
  return cfg;
}

inline std::unique_ptr<CacheTarget> MakeCache(Engine& e, CacheConfig cfg, std::uint64_t lines,
                                              std::uint64_t origin_size = 4 * kMiB, int ndev = 1) {
  std::vector<std::unique_ptr<BlockDevice>> caches;
  const std::uint64_t per_dev = (lines + ndev - 1) / ndev * cfg.line_size + cfg.metadata_reserve;
  for (int i = 0; i < ndev; ++i) {
    caches.push_back(std::make_unique<RamDevice>(e, DeviceName("c", i), per_dev));
  }
  cfg.capacity_lines = lines;
  auto origin = std::make_unique<RamDevice>(e, "origin", origin_size);
  auto r = CacheTarget::Create(e, "cache", std::move(origin), std::move(caches), cfg);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : nullptr;
}

inline Status Io(SimEngine& e, BlockDevice& d, IoOp op, std::uint64_t off, std::uint64_t len,
                 std::byte* data = nullptr, std::uint32_t flags = 0) {
  Status got = Status::kShutdown;
  IoRequest q;
  q.op = op;
  q.offset = off;
  q.length = len;
  q.data = data;
  q.flags = flags;
  d.Submit(q, [&](Status st) { got = st; });
  e.Run();
  return got;
}

// A buffer filled with a pattern derived from `seed`.
inline std::vector<std::byte> Pattern(std::uint64_t len, std::uint64_t seed) {
  std::vector<std::byte> v(len);
  for (std::uint64_t i = 0; i < len; ++i) {
    v[i] = static_cast<std::byte>((i * 131 + seed * 7919 + (i >> 9)) & 0xFF);
  }
  return v;
}

}  // namespace tierlab::cachetest
