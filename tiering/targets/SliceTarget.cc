#include "tiering/targets/SliceTarget.h"

#include <algorithm>

namespace tierlab {

SliceTarget::SliceTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
                         std::uint64_t size)
    : ForwardingTarget(engine, std::move(name), std::move(child)) {
  size_ = std::min(size, this->child().Size());
  size_ -= size_ % this->child().BlockSize();
}

}  // namespace tierlab
