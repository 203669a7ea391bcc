#pragma once
// The one async interface of the block layer. Devices (RAM, file, models) and
// targets (linear, stripe, mirror, delay, fault, cache, tier) implement it, so
// stacks compose without special cases (the SPDK bdev / device-mapper shape).
//
// Submit() is non-virtual: it checks the request against the device's size and
// logical block size, counts it, and only then calls the virtual SubmitImpl().
// A request that fails the checks completes with Status::kInvalid, never
// crashes, and never reaches the implementation.
//
// Completion: the callback runs exactly once on the engine's thread and never
// inside Submit(). Implementations complete through Finish(), which keeps the
// in-flight accounting (busy time, queue depth) right.
//
// Ownership: the caller owns the request's data buffer until completion. A
// device does not own its engine; targets own their children.
//
// Besides I/O, one optional control call: QueryAllocation (which ranges are
// holes), for copy tools that skip them (the NBD server's base:allocation);
// and functional warming (Warm, WarmSettle), which applies what requests
// would do to a stack's state without doing them, so a simulated run can
// start from the state a long warm-up would leave (docs/METHODOLOGY.md).

#include <memory>
#include <string>
#include <vector>

#include "tiering/core/AllocationMap.h"
#include "tiering/core/DeviceStats.h"
#include "tiering/core/Engine.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

class BlockDevice {
 public:
  BlockDevice(Engine& engine, std::string name);
  BlockDevice(const BlockDevice&) = delete;
  BlockDevice& operator=(const BlockDevice&) = delete;
  virtual ~BlockDevice() = default;

  void Submit(const IoRequest& req, IoCallback done);

  // Capacity in bytes; a multiple of BlockSize(). Size and block size are
  // fixed once the device takes its first request (Submit reads them once).
  virtual std::uint64_t Size() const = 0;
  // Logical block size in bytes: offsets and lengths of reads, writes and
  // discards must be multiples of it.
  virtual std::uint32_t BlockSize() const = 0;
  // True if every read and write must carry a data buffer (real devices and
  // simulated devices in with-data mode).
  virtual bool RequiresData() const { return false; }
  // The devices this one forwards to (empty for a leaf device).
  virtual std::vector<BlockDevice*> Children() const { return {}; }
  // A short type name for reports: "ram", "file", "nvme", "stripe", ...
  virtual std::string Kind() const = 0;
  // A hint that request `op` at `offset` will be submitted `distance` requests
  // from now (0, 1 or 2), so a layer can bring the metadata it will look up
  // into the CPU cache while the requests in between run: a software
  // prefetch, no I/O and no effect on any result. Each stage goes one
  // dependent load deeper, reading what the stage before fetched: 2 the
  // index bucket, 1 its first entry, 0 (the request is close: a few
  // requests away) the entry after and the replacement policy's links. The
  // simulated runner draws its requests two ahead and hints them at 2 and 1
  // (bench/lab/Runner.cc); the functional warmer hints at 2, 1 and 0
  // (bench/lab/FunctionalWarmup.cc). Default: nothing.
  virtual void PrefetchHint(IoOp op, std::uint64_t offset, int distance) {}

  // Describes [offset, offset + length) as consecutive extents starting at
  // `offset`, data or hole (AllocationMap.h), into `*out` (replaced). The
  // answer may cover only a prefix of the range, in at most `max_extents`
  // extents; the caller asks again from where it ends. Extents are whole
  // blocks, adjacent ones differ in kind, and a hole is only ever reported
  // where the layers below know there is one (when in doubt: data).
  //
  // Synchronous, unlike Submit, on purpose. The answer is a snapshot taken
  // at one instant on the engine thread, so it reflects every completed
  // write, and no layer's state can change half-way through a stack's
  // answer (as it could between engine turns: a cache line evicted after
  // the origin below it was asked). Each implementation answers from memory
  // or a metadata syscall (lseek SEEK_DATA/SEEK_HOLE), as a file discard
  // already runs synchronously, and bounds its work per call (max_extents,
  // a prefix answer); a device whose answer would need I/O keeps the
  // default. Writes still in flight may or may not be reflected, as for a
  // read racing them. It is a rare control call: nothing on the I/O path
  // pays for it.
  //
  // Errors: kInvalid (out untouched) for an empty, misaligned or
  // out-of-range query, or max_extents 0. Otherwise kOk: a layer that cannot
  // tell answers data instead of failing.
  Status QueryAllocation(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                         AllocationMap* out) const;

  // Functional warming: applies to this device's state, and through it to
  // the stack below, what `req` would leave behind once done, at once and
  // without I/O, time or completion: a cache's residency, replacement order,
  // admission history and dirty lines; a tier's heat and extent placement.
  // Background work that would run meanwhile is assumed to keep up (a
  // write-back cache destages down to its low watermark as it goes).
  // Returns how many cache lines or extents the request placed (a line
  // promoted or allocated, an extent mapped), the warmer's measure of how
  // far the state still moves (bench/lab/FunctionalWarmup.h).
  //
  // Contract: only on a stack that does not RequiresData() (the state of a
  // data-carrying stack would claim contents nobody wrote), only while no
  // request is in flight anywhere in the stack, and only with requests that
  // Submit would accept (unchecked: the warmer draws them from a job's own
  // stream). Devices without such state (leaves, delay, fault) do nothing;
  // targets pass the request on as Submit would split it. Synchronous.
  std::uint64_t Warm(const IoRequest& req) { return WarmImpl(req); }
  // What background work would have done by now, at once: fills still
  // pending land, a tier target runs a migration pass and applies its moves.
  // The warmer calls it between windows and when it ends. Same contract as
  // Warm. Returns lines or extents placed.
  std::uint64_t WarmSettle() { return WarmSettleImpl(); }

  const std::string& name() const { return name_; }
  Engine& engine() const { return engine_; }
  // Counters, with the in-flight time integrated up to Now().
  DeviceStats stats() const;
  std::uint32_t in_flight() const { return in_flight_; }
  // Starts stats().max_queue_depth over from what is in flight now: the
  // other counters can be subtracted between two snapshots, a peak cannot
  // (bench/lab/DeviceWindow.h).
  void RestartPeakQueueDepth() { stats_.max_queue_depth = in_flight_; }

 protected:
  virtual void SubmitImpl(const IoRequest& req, IoCallback done) = 0;

  // QueryAllocation's work, for a valid query: appends to `out` extents from
  // `offset` covering at most `length` bytes (more is cut; less is a prefix
  // answer), and should stop once `out` holds more than `max_extents`: the
  // extra one shows that the others are whole (QueryAllocation drops it), so
  // a caller asking for one extent (NBD_CMD_FLAG_REQ_ONE) gets all of it,
  // not its first line. Extents need not be whole blocks: QueryAllocation
  // turns a hole's partial blocks into data and merges neighbours. Default:
  // the whole range is data (always safe).
  virtual void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                              AllocationMap& out) const;

  // Warm's work. Default: no state of its own and no child (a leaf).
  virtual std::uint64_t WarmImpl(const IoRequest& req) { return 0; }
  // WarmSettle's work. Default: settles every child (Children()).
  virtual std::uint64_t WarmSettleImpl();
  // Completes a request that SubmitImpl accepted: updates accounting, then
  // runs the callback. Call from engine tasks, not from inside SubmitImpl.
  void Finish(IoCallback& done, Status status) {
    Advance();
    --in_flight_;
    if (status != Status::kOk) ++stats_.errors;
    done(status);
  }
  // Completes `done` with `status` on the next engine turn (for errors found
  // inside SubmitImpl).
  void FinishAsync(IoCallback done, Status status);

 private:
  // Busy time and the queue-depth integral up to now.
  void Advance() {
    const Nanos now = engine_.Now();
    const Nanos dt = now - last_change_;
    if (in_flight_ > 0 && dt > 0) {
      stats_.busy_ns += dt;
      stats_.qd_integral_ns += static_cast<double>(in_flight_) * static_cast<double>(dt);
    }
    last_change_ = now;
  }

  Engine& engine_;
  std::string name_;
  DeviceStats stats_;
  std::uint32_t in_flight_ = 0;
  Nanos last_change_ = 0;
  // Size() and BlockSize(), read at the first Submit: two virtual calls less
  // per request and layer.
  bool geometry_read_ = false;
  std::uint32_t checked_block_size_ = 0;
  std::uint64_t checked_size_ = 0;
};

// Checks a request against a device's geometry; kOk if it may be submitted.
Status ValidateRequest(const IoRequest& req, std::uint64_t size, std::uint32_t block_size,
                       bool requires_data);

}  // namespace tierlab
