// ForwardingTarget, the base of single-child targets: what a subclass that
// overrides nothing but Kind() does (answers as its child, passes requests,
// their status and prefetch hints through), with an owned or a borrowed child.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "tests/support/SyncIo.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/FaultTarget.h"
#include "tiering/targets/ForwardingTarget.h"

namespace tierlab {
namespace {

using testing::SubmitAndRun;

class Passthru final : public ForwardingTarget {
 public:
  Passthru(Engine& e, std::unique_ptr<BlockDevice> child)
      : ForwardingTarget(e, "passthru", std::move(child)) {}
  Passthru(Engine& e, BlockDevice& child) : ForwardingTarget(e, "passthru", child) {}
  std::string Kind() const override { return "passthru"; }
};

// A leaf that records the hints and requests it is given.
class Recorder final : public BlockDevice {
 public:
  Recorder(Engine& e, std::uint64_t size, std::uint32_t bs, bool data)
      : BlockDevice(e, "rec"), size_(size), bs_(bs), data_(data) {}
  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return bs_; }
  bool RequiresData() const override { return data_; }
  std::string Kind() const override { return "recorder"; }
  void PrefetchHint(IoOp op, std::uint64_t offset, int distance) override {
    hints.push_back({op, offset, distance});
  }
  struct Hint {
    IoOp op;
    std::uint64_t offset;
    int distance;
  };
  std::vector<Hint> hints;
  std::vector<IoRequest> requests;

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    requests.push_back(req);
    FinishAsync(std::move(done), Status::kOk);
  }

 private:
  std::uint64_t size_;
  std::uint32_t bs_;
  bool data_;
};

TEST(ForwardingTargetTest, AnswersAsItsChild) {
  SimEngine e;
  for (bool data : {false, true}) {
    auto rec = std::make_unique<Recorder>(e, 3 << 20, 4096, data);
    Recorder* leaf = rec.get();
    Passthru p(e, std::move(rec));
    EXPECT_EQ(p.Size(), 3u << 20);
    EXPECT_EQ(p.BlockSize(), 4096u);
    EXPECT_EQ(p.RequiresData(), data);
    EXPECT_EQ(p.Children(), std::vector<BlockDevice*>{leaf});
    EXPECT_EQ(&p.child(), leaf);
  }
}

TEST(ForwardingTargetTest, PassesRequestsAndHintsUnchanged) {
  SimEngine e;
  auto rec = std::make_unique<Recorder>(e, 1 << 20, 512, false);
  Recorder* leaf = rec.get();
  Passthru p(e, std::move(rec));
  p.PrefetchHint(IoOp::kWrite, 8192, 2);
  p.PrefetchHint(IoOp::kRead, 4096, 1);
  ASSERT_EQ(leaf->hints.size(), 2u);
  EXPECT_EQ(leaf->hints[0].op, IoOp::kWrite);
  EXPECT_EQ(leaf->hints[0].offset, 8192u);
  EXPECT_EQ(leaf->hints[0].distance, 2);
  EXPECT_EQ(leaf->hints[1].op, IoOp::kRead);
  EXPECT_EQ(leaf->hints[1].distance, 1);

  IoRequest r;
  r.op = IoOp::kWrite;
  r.offset = 4096;
  r.length = 1536;
  r.flags = kIoFua;
  Status got = Status::kShutdown;
  p.Submit(r, [&](Status st) { got = st; });
  EXPECT_EQ(got, Status::kShutdown) << "completed inside Submit";
  e.Run();
  EXPECT_EQ(got, Status::kOk);
  ASSERT_EQ(leaf->requests.size(), 1u);
  EXPECT_EQ(leaf->requests[0].op, IoOp::kWrite);
  EXPECT_EQ(leaf->requests[0].offset, 4096u);
  EXPECT_EQ(leaf->requests[0].length, 1536u);
  EXPECT_EQ(leaf->requests[0].flags, kIoFua);
  EXPECT_EQ(p.in_flight(), 0u);
  EXPECT_EQ(p.stats().errors, 0u);
}

TEST(ForwardingTargetTest, CompletesWithTheChildsStatus) {
  SimEngine e;
  auto fault = std::make_unique<FaultTarget>(e, "f", std::make_unique<RamDevice>(e, "r", 1 << 20));
  FaultTarget* f = fault.get();
  Passthru p(e, std::move(fault));
  std::vector<std::byte> buf(4096, std::byte{0x33});
  EXPECT_EQ(SubmitAndRun(e, p, IoOp::kWrite, 0, 4096, buf.data()), Status::kOk);
  f->FailAll(true);
  EXPECT_EQ(SubmitAndRun(e, p, IoOp::kRead, 0, 4096, buf.data()), Status::kIoError);
  EXPECT_EQ(p.stats().errors, 1u);
  f->FailAll(false);
  std::memset(buf.data(), 0, buf.size());
  EXPECT_EQ(SubmitAndRun(e, p, IoOp::kRead, 0, 4096, buf.data()), Status::kOk);
  EXPECT_EQ(buf[4095], std::byte{0x33});
}

TEST(ForwardingTargetTest, ABorrowedChildOutlivesTheTarget) {
  SimEngine e;
  RamDevice ram(e, "ram", 1 << 20);
  std::vector<std::byte> buf(4096, std::byte{0x5c});
  {
    Passthru p(e, ram);
    EXPECT_EQ(p.Children(), std::vector<BlockDevice*>{&ram});
    EXPECT_EQ(SubmitAndRun(e, p, IoOp::kWrite, 8192, 4096, buf.data()), Status::kOk);
  }
  std::memset(buf.data(), 0, buf.size());
  EXPECT_EQ(SubmitAndRun(e, ram, IoOp::kRead, 8192, 4096, buf.data()), Status::kOk);
  EXPECT_EQ(buf[0], std::byte{0x5c});
}

}  // namespace
}  // namespace tierlab
