#pragma once
// The shared part of targets that hold several children and split requests
// across them (linear, stripe, mirror, parity): ownership of the children, the
// data-mode and Children() answers, and fan-out/fan-in of child requests.
// Each subclass decides only where a request's pieces go.

#include <memory>
#include <vector>

#include "tiering/core/BlockDevice.h"
#include "tiering/targets/SplitIo.h"

namespace tierlab {

class FanOutTarget : public BlockDevice {
 public:
  // Any child's, as they were when this target was made (a stack's data
  // mode is fixed once built): asked on every timing-only submit, so a
  // stripe over 24 devices would otherwise ask 24 of them each time.
  bool RequiresData() const override { return requires_data_; }
  std::vector<BlockDevice*> Children() const override;

 protected:
  FanOutTarget(Engine& engine, std::string name,
               std::vector<std::unique_ptr<BlockDevice>> children);

  // A fan-in context holding the parent's completion; children's callbacks
  // go to ChildDone(s, status).
  SplitIo* StartSplit(IoCallback done);
  // Records one child's completion; the last one completes the parent.
  void ChildDone(SplitIo* s, Status st);
  // Sends `req` unchanged to every child (flush; mirror writes). With no
  // children the request completes ok (only a flush can reach a size-0 target).
  void SubmitToAll(const IoRequest& req, IoCallback done);
  // Submits one piece of split `s` to child `i`.
  void SubmitPiece(SplitIo* s, std::size_t i, const IoRequest& piece);

  std::vector<std::unique_ptr<BlockDevice>> children_;
  std::uint32_t max_block_size_ = 512;  // the largest child block size
  // Recomputes RequiresData() after a child is replaced.
  void RefreshRequiresData();

 private:
  SplitIoPool pool_;
  bool requires_data_ = false;
};

}  // namespace tierlab
