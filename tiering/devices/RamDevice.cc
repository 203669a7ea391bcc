#include "tiering/devices/RamDevice.h"

namespace tierlab {

RamDevice::RamDevice(Engine& engine, std::string name, std::uint64_t size, std::uint32_t block_size)
    : BlockDevice(engine, std::move(name)),
      size_(size - size % block_size),
      block_size_(block_size) {}

void RamDevice::SubmitImpl(const IoRequest& req, IoCallback done) {
  // Data moves at submission, so a read sees every write submitted before it,
  // as a RAM disk's queue would order them.
  if (req.data != nullptr) {
    if (req.op == IoOp::kRead) store_.Read(req.offset, req.length, req.data);
    if (req.op == IoOp::kWrite) store_.Write(req.offset, req.length, req.data);
  }
  if (req.op == IoOp::kDiscard) store_.Discard(req.offset, req.length);
  FinishAsync(std::move(done), Status::kOk);
}

void RamDevice::AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                               AllocationMap& out) const {
  store_.MapAllocation(offset, length, max_extents, out);
}

}  // namespace tierlab
