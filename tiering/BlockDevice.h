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

#include <memory>
#include <string>
#include <vector>

#include "tiering/DeviceStats.h"
#include "tiering/Engine.h"
#include "tiering/IoRequest.h"

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
  // from now (1 or 2), so a layer can bring the metadata it will look up into
  // the CPU cache while the requests in between run: a software prefetch,
  // no I/O and no effect on any result. The simulated runner draws its
  // requests two ahead and hints them (bench/Runner.cc). Default: nothing.
  virtual void PrefetchHint(IoOp op, std::uint64_t offset, int distance) {}

  const std::string& name() const { return name_; }
  Engine& engine() const { return engine_; }
  // Counters, with the in-flight time integrated up to Now().
  DeviceStats stats() const;
  std::uint32_t in_flight() const { return in_flight_; }

 protected:
  virtual void SubmitImpl(const IoRequest& req, IoCallback done) = 0;

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
