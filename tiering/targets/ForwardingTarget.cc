#include "tiering/targets/ForwardingTarget.h"

namespace tierlab {

ForwardingTarget::ForwardingTarget(Engine& engine, std::string name,
                                   std::unique_ptr<BlockDevice> child)
    : BlockDevice(engine, std::move(name)), owned_(std::move(child)), child_(owned_.get()) {}

ForwardingTarget::ForwardingTarget(Engine& engine, std::string name, BlockDevice& child)
    : BlockDevice(engine, std::move(name)), child_(&child) {}

void ForwardingTarget::Forward(const IoRequest& req, IoCallback done) {
  Pending* p = pending_.Acquire();
  p->done = std::move(done);
  child_->Submit(req, [this, p](Status st) {
    Finish(p->done, st);
    pending_.Release(p);
  });
}

void ForwardingTarget::ForwardAt(Nanos at, const IoRequest& req, IoCallback done) {
  Held* h = held_.Acquire();
  h->done = std::move(done);
  h->req = req;
  engine().ScheduleAt(at, [this, h] {
    Forward(h->req, std::move(h->done));
    held_.Release(h);
  });
}

void ForwardingTarget::AllocationImpl(std::uint64_t offset, std::uint64_t length,
                                      std::size_t max_extents, AllocationMap& out) const {
  // A layer that cannot tell answers data (the contract): a failed query
  // below leaves `out` empty, which QueryAllocation reads as all data.
  if (child_->QueryAllocation(offset, length, max_extents, &out) != Status::kOk) out.clear();
}

}  // namespace tierlab
