#pragma once
// Parity RAID (md raid5/raid6, and triple parity) over N = k + m children:
// k data chunks and m = 1, 2 or 3 parity chunks per stripe, any m members
// may be lost. The code is ParityCode's (Intel ISA-L).
//
// Geometry. Each child holds `stripes()` chunks of `chunk_bytes`; stripe s
// is chunk s of every child (child offset s * chunk). Parity rotates as md's
// default "left-symmetric" layout does, generalised to m parities: the first
// parity of stripe s is on member N - 1 - (s mod N), the other parities on
// the members after it, and data chunk 0..k-1 on the members after those,
// wrapping around. Volume byte x is in stripe x / (k * chunk), data chunk
// (x mod (k * chunk)) / chunk. Size = k * stripes * chunk.
//
// Writes, per stripe a request touches, holding the stripe's lock
// (StripeLocks) from the first read to the last write, so concurrent
// updates of one stripe are serialised and parity never mixes them:
//  - full-stripe write (the request covers the stripe): data and freshly
//    computed parity, no reads;
//  - otherwise, over the columns P the request touches, whichever of two
//    needs fewer child reads (then fewer bytes; a tie goes to
//    reconstruct-write, as md's default does):
//      read-modify-write: read the old data being replaced and the old
//        parity over P, parity += coefficient * (old ^ new) (one
//        chunk-sized write: RAID-5 2 reads + 2 writes, RAID-6 3 + 3; with
//        few data chunks reconstruct-write reads fewer);
//      reconstruct-write: read the data chunks' bytes in P the request does
//        not replace, compute parity from the whole stripe;
//  - degraded: failed members get nothing; if a data chunk whose old bytes
//    are needed is on a failed member, read k surviving chunks over P,
//    decode it, then compute parity as reconstruct-write does.
// Crash consistency is md's without a journal or bitmap: data and parity of
// one stripe reach the children as separate writes, so a crash between them
// leaves a stripe whose parity disagrees with its data (the RAID write
// hole), which a later reconstruction would turn into wrong data. Not closed
// here; within the process the stripe lock leaves no such window.
//
// Reads go to the data chunks, without locks. A chunk on a failed member is
// reconstructed (a degraded read): under the stripe's lock, k surviving
// chunks over the columns asked are read and decoded. A stripe with more than
// m members lost has no answer: its reads of lost chunks and its writes
// complete kIoError, never with wrong data.
//
// Failures: a child that completes a read, write or flush with kIoError is
// failed from then on (as md fails a member), and the request goes on
// degraded: a read is retried by reconstruction, a write still completes ok
// while no stripe has lost more than m members. Other statuses (kInvalid,
// kShutdown) are passed up without failing the member. FailMember() fails
// one by hand.
//
// Rebuild() puts a fresh device in a failed member's place and reconstructs
// every stripe onto it in order, a window of stripes at a time (each window
// locked, k reads and one write of the window's chunks); stripes below the
// window are live on the new member (writes keep them current), stripes
// above it are still degraded. At the end the array is whole.
//
// Flush goes to every member not failed. Discard completes kNotSupported
// without touching a child: passing it down would leave parity describing
// data a child may have dropped, and discard never promises zeros, so a
// caller loses nothing (the NBD server and the tier target treat it as done).
//
// Data: a request with a buffer has its parity computed and its lost chunks
// decoded; a request without one (timing-only simulation) makes exactly the
// same child requests, without buffers, and computes nothing.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/ObjectPool.h"
#include "tiering/targets/FanOutTarget.h"
#include "tiering/targets/ParityCode.h"
#include "tiering/targets/StripeLocks.h"

namespace tierlab {

// The target's own counters, beside each child's DeviceStats: which way each
// stripe write went, so write amplification can be explained.
struct ParityStats {
  std::uint64_t full_stripe_writes = 0;  // stripe writes without reads
  std::uint64_t rmw_writes = 0;          // read-modify-write stripe writes
  std::uint64_t reconstruct_writes = 0;  // reconstruct-write stripe writes
  std::uint64_t degraded_writes = 0;     // stripe writes that decoded a lost chunk or had no parity
  std::uint64_t degraded_reads = 0;      // stripe reads that decoded lost chunks
  std::uint64_t unavailable = 0;         // stripe reads/writes failed: more than m members lost
  std::uint64_t member_failures = 0;     // members failed (I/O errors and FailMember)
  std::uint64_t rebuilt_stripes = 0;     // stripes reconstructed onto a replacement
};

struct RebuildOptions {
  // Stripes locked and reconstructed together: the child requests are one
  // chunk per stripe long, so this bounds the rebuild's I/O in flight to
  // k reads and one write of stripes_per_step chunks.
  std::uint32_t stripes_per_step = 16;
  // Move and decode data (false: the same requests, timing-only, for
  // simulation without data).
  bool with_data = true;
};

class ParityTarget final : public FanOutTarget {
 public:
  // `parity`: m, 1..3; `chunk_bytes`: a multiple of the children's block
  // size. The usable size per child is the smallest child rounded down to
  // whole chunks. Needs k = children - m >= 2 and children <= 256; otherwise
  // (or with chunk 0) the size is 0 and every request but flush fails
  // kInvalid. Owns the children.
  ParityTarget(Engine& engine, std::string name, std::vector<std::unique_ptr<BlockDevice>> children,
               int parity, std::uint64_t chunk_bytes);
  ~ParityTarget() override;

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return max_block_size_; }
  // "raid5", "raid6" or "raid-tp" (m = 1, 2, 3).
  std::string Kind() const override;

  int data_chunks() const { return k_; }
  int parity_chunks() const { return m_; }
  std::uint64_t chunk_bytes() const { return chunk_; }
  std::uint64_t stripes() const { return stripes_; }
  // The member holding `role` (0..k-1 data, k..k+m-1 parity) of `stripe`.
  std::size_t MemberOf(std::uint64_t stripe, int role) const;
  // The role `member` plays in `stripe`.
  int RoleOf(std::uint64_t stripe, std::size_t member) const;

  // Fails member `i` from now on (nothing more is sent to it; requests
  // already sent complete as they do). Failing a rebuilding member stops the
  // rebuild (it completes kIoError).
  void FailMember(std::size_t i);
  bool member_failed(std::size_t i) const { return state_[i] != MemberState::kActive; }
  // Members failed or still rebuilding.
  std::size_t failed_members() const;

  // Replaces failed member `member` with `replacement` (null: rebuild onto
  // the device already there, e.g. after a transient failure) and
  // reconstructs every stripe onto it; `done` runs once on the engine's
  // thread with kOk when the member is whole again, or the error that
  // stopped it (the member then stays failed). Returns kInvalid, and does
  // nothing, if the member is not failed, a rebuild is running, or the
  // replacement is smaller than a member's usable size or has a larger
  // block size; kIoError if more than m members are failed. The member it
  // replaces is kept (not destroyed) until the target is, since requests
  // sent to it may still complete.
  Status Rebuild(std::size_t member, std::unique_ptr<BlockDevice> replacement,
                 RebuildOptions options, std::function<void(Status)> done);
  bool rebuilding() const { return rebuild_.active; }

  const ParityStats& parity_stats() const { return stats_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  // Passes the request's data pieces (and, for a write, its parity pieces)
  // to the children as Submit would place them.
  std::uint64_t WarmImpl(const IoRequest& req) override;

 private:
  enum class MemberState : std::uint8_t { kActive, kFailed, kRebuilding };
  enum class Plan : std::uint8_t { kFull, kRmw, kRcw, kDegraded, kDataOnly, kRead };

  // One request's part in one stripe: a write, or a read that needs
  // reconstruction. Holds the stripe's lock while it runs.
  struct StripeOp {
    SplitIo* parent = nullptr;
    IoOp op = IoOp::kWrite;
    std::uint32_t flags = 0;
    std::uint64_t stripe = 0;
    std::uint64_t a = 0, b = 0;    // bytes of the stripe's data, [a, b)
    std::byte* data = nullptr;     // the caller's bytes of [a, b), or null
    std::uint64_t p0 = 0, p1 = 0;  // columns (offsets in a chunk) read or written
    Plan plan = Plan::kRead;
    std::vector<int> sources;  // kDegraded / kRead: the roles decoded from
    std::vector<int> wanted;   // kDegraded / kRead: the lost data roles decoded
    AlignedBuffer scratch;     // with data: one slot of p1 - p0 bytes per role
    std::uint32_t pending = 0;
    std::uint32_t attempts = 0;
    Status status = Status::kOk;
    bool retry = false;    // a member failed during the reads: plan again
    bool writing = false;  // the writes are out (or the op is failing)
  };

  struct RebuildState {
    bool active = false;
    std::size_t member = 0;
    RebuildOptions options;
    std::function<void(Status)> done;
    std::uint64_t window = 0;          // first stripe of the step under way
    std::uint64_t count = 0;           // stripes in it
    std::uint64_t locked = 0;          // of those, locks held
    std::vector<std::size_t> sources;  // members read
    AlignedBuffer buffer;              // with data: k source slots, the output, decode room
    std::uint32_t pending = 0;
    Status status = Status::kOk;
  };

  bool Usable(std::size_t member, std::uint64_t stripe) const {
    return state_[member] == MemberState::kActive ||
           (state_[member] == MemberState::kRebuilding && stripe < rebuilt_below_);
  }
  std::size_t UsableCount(std::uint64_t stripe) const;
  // Records a child's kIoError: the member is failed.
  void MemberError(std::size_t member, Status st);
  // The columns of data chunk `d` that [a, b) of the stripe covers; empty
  // (lo == hi) if none.
  void Columns(const StripeOp& op, int d, std::uint64_t* lo, std::uint64_t* hi) const;
  std::byte* Slot(StripeOp& op, int role) const;

  void SubmitRead(SplitIo* s, const IoRequest& req);
  void SubmitPlainRead(SplitIo* s, std::uint64_t offset, std::uint64_t length, std::byte* data);
  void StartOp(SplitIo* s, IoOp op, std::uint32_t flags, std::uint64_t stripe, std::uint64_t a,
               std::uint64_t b, std::byte* data);
  void RunOp(StripeOp* op);  // holding the lock: plan and issue reads
  void PlanWrite(StripeOp* op);
  void PlanRead(StripeOp* op);
  bool ChooseSources(StripeOp* op);  // k usable roles, data first
  void OpRead(StripeOp* op, int role, std::uint64_t lo, std::uint64_t hi, std::byte* dst);
  void OpWrite(StripeOp* op, int role, std::uint64_t lo, std::uint64_t hi, std::byte* src);
  void OpChildDone(StripeOp* op, std::size_t member, Status st);
  void ReadsDone(StripeOp* op);
  void Compute(StripeOp* op);
  void IssueWrites(StripeOp* op);
  void FinishOp(StripeOp* op);
  void FailOpAsync(StripeOp* op, Status st);

  void SubmitFlush(const IoRequest& req, IoCallback done);

  void RebuildStep();
  void RebuildLockNext();
  void RebuildRead();
  void RebuildReconstruct();
  void RebuildWritten(Status st);
  // The window is done (or failed): the member is live below it, the
  // locks go, and the next window starts.
  void RebuildStepDone();
  void RebuildEnd(Status st);

  int k_ = 0;
  int m_ = 0;
  std::uint64_t chunk_;
  std::uint64_t stripes_ = 0;
  std::uint64_t stripe_data_ = 0;  // k * chunk: volume bytes per stripe
  std::uint64_t size_ = 0;
  ParityCode code_;
  std::vector<MemberState> state_;
  std::uint64_t rebuilt_below_ = 0;  // the rebuilding member is live below this stripe
  StripeLocks locks_;
  ObjectPool<StripeOp> ops_;
  RebuildState rebuild_;
  std::vector<std::unique_ptr<BlockDevice>> retired_;  // replaced members
  ParityStats stats_;
};

}  // namespace tierlab
