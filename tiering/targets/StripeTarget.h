#pragma once
// RAID0 (dm-stripe) over N children with a chunk size: chunk k of the volume
// lives on child k % N at chunk k / N. Requests split on chunk boundaries.

#include <memory>
#include <vector>

#include "tiering/targets/FanOutTarget.h"

namespace tierlab {

class StripeTarget final : public FanOutTarget {
 public:
  // `chunk_bytes`: a multiple of the children's block size. The usable size
  // per child is the smallest child rounded down to whole chunks. Owns them.
  StripeTarget(Engine& engine, std::string name, std::vector<std::unique_ptr<BlockDevice>> children,
               std::uint64_t chunk_bytes);

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return max_block_size_; }
  std::string Kind() const override { return "stripe"; }
  std::uint64_t chunk_bytes() const { return chunk_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  std::uint64_t WarmImpl(const IoRequest& req) override;
  // Each child is asked once, for the run of its chunks the range touches;
  // the answers are then interleaved chunk by chunk.
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;

 private:
  // Calls f(child index, piece) for each chunk `req` (not a flush) touches,
  // in volume order.
  template <class F>
  void ForEachPiece(const IoRequest& req, F&& f) const;

  std::uint64_t chunk_;
  std::uint64_t size_ = 0;
};

}  // namespace tierlab
