#pragma once
// dm-linear over several children: the volume is their concatenation, in
// order. A request that crosses a child boundary is split; flush goes to
// every child.

#include <memory>
#include <vector>

#include "tiering/BlockDevice.h"
#include "tiering/SplitIo.h"

namespace tierlab {

class LinearTarget final : public BlockDevice {
 public:
  // Children must share one logical block size; owns them.
  LinearTarget(Engine& engine, std::string name,
               std::vector<std::unique_ptr<BlockDevice>> children);

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return block_size_; }
  bool RequiresData() const override;
  std::vector<BlockDevice*> Children() const override;
  std::string Kind() const override { return "linear"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;

 private:
  void ChildDone(SplitIo* s, Status st);

  std::vector<std::unique_ptr<BlockDevice>> children_;
  std::vector<std::uint64_t> starts_;  // volume offset of each child
  std::uint64_t size_ = 0;
  std::uint32_t block_size_ = 512;
  SplitIoPool pool_;
};

}  // namespace tierlab
