#include "tiering/targets/SliceTarget.h"

#include <algorithm>

namespace tierlab {

SliceTarget::SliceTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
                         std::uint64_t size)
    : BlockDevice(engine, std::move(name)), child_(std::move(child)) {
  size_ = std::min(size, child_->Size());
  size_ -= size_ % child_->BlockSize();
}

void SliceTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  // Offsets map one to one; Submit() already kept the request inside size_.
  Ctx* c = pool_.Acquire();
  c->done = std::move(done);
  child_->Submit(req, [this, c](Status st) {
    Finish(c->done, st);
    pool_.Release(c);
  });
}

void SliceTarget::AllocationImpl(std::uint64_t offset, std::uint64_t length,
                                 std::size_t max_extents, AllocationMap& out) const {
  if (child_->QueryAllocation(offset, length, max_extents, &out) != Status::kOk) out.clear();
}

}  // namespace tierlab
