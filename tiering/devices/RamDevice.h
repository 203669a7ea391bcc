#pragma once
// A sparse RAM disk that holds data and completes every request on the next
// engine turn, with no modelled latency. The null member of the device family:
// tests and the verification harness start here.

#include "tiering/core/BlockDevice.h"
#include "tiering/devices/SparseStore.h"

namespace tierlab {

class RamDevice final : public BlockDevice {
 public:
  RamDevice(Engine& engine, std::string name, std::uint64_t size, std::uint32_t block_size = 512);

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return block_size_; }
  std::string Kind() const override { return "ram"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  // Pages never written, or discarded whole, are holes (SparseStore).
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;

 private:
  std::uint64_t size_;
  std::uint32_t block_size_;
  SparseStore store_;
};

}  // namespace tierlab
