#pragma once
// The first `size` bytes of one child, as a device of its own (dm-linear with
// one table line): a volume smaller than the stack it sits on.

#include <memory>

#include "tiering/targets/ForwardingTarget.h"

namespace tierlab {

class SliceTarget final : public ForwardingTarget {
 public:
  // `size` is rounded down to the child's block size and capped at its size.
  SliceTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
              std::uint64_t size);

  std::uint64_t Size() const override { return size_; }
  std::string Kind() const override { return "slice"; }

  // Requests and allocation queries pass through unchanged (ForwardingTarget):
  // offsets map one to one, and Submit and QueryAllocation keep them inside
  // Size().

 private:
  std::uint64_t size_;
};

}  // namespace tierlab
