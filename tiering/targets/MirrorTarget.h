#pragma once
// RAID1 (dm-mirror / md raid1) over N legs: writes, discards and flushes go
// to every leg and complete when all have; a read goes to one leg, the one
// with the fewest requests in flight (round-robin among equals), and retries
// the next leg if it fails. A write fails if any leg fails (no degraded mode:
// a failed leg is the fault target's business in tests).

#include <memory>
#include <vector>

#include "tiering/core/ObjectPool.h"
#include "tiering/targets/FanOutTarget.h"

namespace tierlab {

class MirrorTarget final : public FanOutTarget {
 public:
  // Size is the smallest leg's. Owns the legs.
  MirrorTarget(Engine& engine, std::string name, std::vector<std::unique_ptr<BlockDevice>> legs);

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return max_block_size_; }
  std::string Kind() const override { return "mirror"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  // Writes and discards warm every leg; a read the first (which leg serves
  // a read depends on queue depths, which functional warming has none of).
  std::uint64_t WarmImpl(const IoRequest& req) override;

 private:
  struct ReadCtx {
    IoCallback done;
    IoRequest req;
    std::size_t leg = 0;
    std::size_t tries = 0;
  };
  void SubmitRead(ReadCtx* r);
  std::size_t PickLeg();

  std::uint64_t size_ = 0;
  std::size_t next_ = 0;
  ObjectPool<ReadCtx> reads_;
};

}  // namespace tierlab
