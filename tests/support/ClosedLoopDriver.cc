#include "tests/support/ClosedLoopDriver.h"

#include <memory>

#include "tiering/core/SplitMix64.h"

namespace tierlab::testing {

namespace {

class Loop {
 public:
  Loop(SimEngine& engine, BlockDevice& device, const ClosedLoopConfig& config)
      : engine_(engine), device_(device), cfg_(config), rng_(config.seed) {
    region_bytes_ = cfg_.region_bytes != 0 ? cfg_.region_bytes : device.Size() - cfg_.region_offset;
    blocks_ = region_bytes_ / cfg_.block_size;
    if (cfg_.with_buffers) {
      buffers_.resize(cfg_.queue_depth);
      for (auto& b : buffers_) b = std::make_unique<std::byte[]>(cfg_.block_size);
    }
  }

  ClosedLoopResult Run() {
    result_.completion_times.reserve(cfg_.total_ops);
    for (std::uint32_t slot = 0; slot < cfg_.queue_depth && issued_ < cfg_.total_ops; ++slot) {
      Issue(slot);
    }
    engine_.Run();
    if (measured_ > 0) result_.mean_latency_ns = latency_sum_ / static_cast<double>(measured_);
    result_.ops = measured_;
    return std::move(result_);
  }

 private:
  void Issue(std::uint32_t slot) {
    IoRequest req;
    const bool read = cfg_.read_fraction >= 1.0 ||
                      (cfg_.read_fraction > 0.0 && rng_.NextUnit() < cfg_.read_fraction);
    req.op = read ? IoOp::kRead : IoOp::kWrite;
    std::uint64_t block;
    if (cfg_.sequential) {
      block = next_block_;
      next_block_ = (next_block_ + 1) % blocks_;
    } else {
      block = rng_.Next() % blocks_;
    }
    req.offset = cfg_.region_offset + block * cfg_.block_size;
    req.length = cfg_.block_size;
    if (cfg_.with_buffers) req.data = buffers_[slot].get();
    ++issued_;
    const Nanos submitted = engine_.Now();
    device_.Submit(req, [this, slot, submitted, len = req.length](Status st) {
      OnComplete(slot, submitted, len, st);
    });
    if (cfg_.on_submit) cfg_.on_submit();
  }

  void OnComplete(std::uint32_t slot, Nanos submitted, std::uint64_t len, Status st) {
    const Nanos now = engine_.Now();
    ++completed_;
    result_.completion_times.push_back(now);
    if (st != Status::kOk) ++result_.errors;
    if (completed_ == cfg_.warmup_ops) result_.window_start = now;
    if (completed_ > cfg_.warmup_ops) {
      ++measured_;
      result_.bytes += len;
      latency_sum_ += static_cast<double>(now - submitted);
      result_.window_end = now;
    }
    if (issued_ < cfg_.total_ops) Issue(slot);
  }

  SimEngine& engine_;
  BlockDevice& device_;
  ClosedLoopConfig cfg_;
  SplitMix64 rng_;
  std::uint64_t region_bytes_ = 0;
  std::uint64_t blocks_ = 0;
  std::uint64_t next_block_ = 0;
  std::uint64_t issued_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t measured_ = 0;
  double latency_sum_ = 0;
  std::vector<std::unique_ptr<std::byte[]>> buffers_;
  ClosedLoopResult result_;
};

}  // namespace

ClosedLoopResult RunClosedLoop(SimEngine& engine, BlockDevice& device,
                               const ClosedLoopConfig& config) {
  if (config.warmup_ops == 0) {
    // Window from the start of the run.
    ClosedLoopConfig c = config;
    Loop loop(engine, device, c);
    const Nanos start = engine.Now();
    ClosedLoopResult r = loop.Run();
    r.window_start = start;
    return r;
  }
  Loop loop(engine, device, config);
  return loop.Run();
}

}  // namespace tierlab::testing
