#pragma once
// Timing model of a solid-state device: NVMe and SATA flash, Optane, and the
// RAM device (the same model with a microsecond latency).
//
// Two stages, both O(1) per request:
//  1. A latency pipeline: a request never completes earlier than
//       submit + L_op + max(0, length - 4 KiB) / BW_op
//     where L_op is the preset's QD1 4 KiB latency (read or write).
//  2. A shared back end (the media behind the device's service units, and
//     the channel/bus) that serves requests in submission order; a request
//     costs it
//       c = 1 / IOPS_op                          for length <= 4 KiB
//       c = max(1 / IOPS_op, length / BW_op)      otherwise,
//     so the device never exceeds its IOPS or bandwidth figure. Reads and
//     writes share it: a 70/30 mix gets the harmonic blend of the two.
//  completion = max(stage 1, time the back end finishes this request).
// A preset with a write cliff (DevicePreset::write_cliff_bytes) charges its
// writes the rated figures while its burst lasts and the steady figures
// after (a write straddling the cliff, each part its own); the back end
// regains burst at cliff_recovery_mbps while it is idle. The QD1 latency
// stays the rated one: past the cliff a write waits for the back end.
// The N service units are treated as one fluid server of N times the unit
// rate: once enough requests are queued (QD >= IOPS x L) throughput is
// exactly the IOPS/bandwidth figure, below that it is QD / latency.
//
// Under a host CPU model that holds its time (ModelOptions::time_on_host_cpu)
// a read or write completes when submitted.
//
// Flush costs a fixed kFlushLatency (enterprise flash with power-loss
// protection: acknowledged writes are already durable); discard costs
// kDiscardLatency and no back-end time. Neither waits for other requests.
//
// Threading: engine thread only. Failure: only the checks of
// BlockDevice::Submit (EINVAL); the model itself never fails.

#include <cstdint>
#include <optional>
#include <vector>

#include "tiering/core/BlockDevice.h"
#include "tiering/devices/DevicePreset.h"
#include "tiering/devices/ModelDevice.h"
#include "tiering/devices/SparseStore.h"

namespace tierlab {

class SsdModel final : public BlockDevice {
 public:
  static constexpr Nanos kFlushLatency = 20 * kMicro;
  static constexpr Nanos kDiscardLatency = 10 * kMicro;

  // `preset` must not be an HDD preset.
  SsdModel(Engine& engine, std::string name, const DevicePreset& preset,
           const ModelOptions& options);

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return block_size_; }
  bool RequiresData() const override { return store_.has_value(); }
  std::string Kind() const override { return std::string(ToString(type_)); }

  // The completion time a request submitted now would get, without
  // submitting it (for tests and capacity planning).
  Nanos PredictCompletion(const IoRequest& req) const;
  // Bytes that would still write at the rated figures if a write came now
  // (the write cliff's burst; 0 without a cliff).
  std::uint64_t WriteBurstLeft() const;

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  // With data: the store's holes (pages never written or discarded whole).
  // Timing-only: the default (all data).
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;
  // A write takes its bytes out of the write cliff's burst, as it would
  // submitted (a prepared or warmed device may be past its cliff); no time
  // passes, so none comes back. Places nothing: returns 0.
  std::uint64_t WarmImpl(const IoRequest& req) override;

 private:
  // Per-direction figures in integer picoseconds, so costs such as
  // 1/550k s = 1818.18 ns accumulate without drift.
  struct Direction {
    std::int64_t op_ps;  // back-end cost of a <= 4 KiB op
    double ps_per_byte;  // back-end cost per byte (1 / bandwidth)
    Nanos latency;       // QD1 4 KiB latency
  };
  // Back-end cost and earliest completion for a read or write.
  std::int64_t CostPs(const Direction& d, std::uint64_t length) const;
  // A write's back-end cost with `burst` bytes left before the cliff.
  std::int64_t WriteCostPs(std::uint64_t length, std::int64_t burst) const;
  // The back end as a request submitted at `now` finds it: when it starts
  // on the request, and the burst left once idle time has restored some.
  struct BackEnd {
    std::int64_t start_ps;
    std::int64_t burst;
  };
  BackEnd StateAt(Nanos now) const;
  // What submitting `req` at `now` does: its completion time and the back
  // end after it. Predicting and submitting share it, so they cannot
  // disagree.
  struct Plan {
    Nanos done;
    std::int64_t backend_free_ps;
    std::int64_t burst_left;
  };
  Plan PlanAt(const IoRequest& req, Nanos now) const;
  Nanos MinLatency(const Direction& d, std::uint64_t length) const;
  // Completes a with-data request: moves the data, then finishes.
  void CompleteWithData(std::uint32_t slot);

  DeviceType type_;
  std::uint64_t size_;
  std::uint32_t block_size_;
  Direction read_;
  Direction write_;
  Direction steady_write_;  // past the write cliff
  std::int64_t backend_free_ps_ = 0;
  std::int64_t burst_bytes_ = 0;  // the write cliff; 0 = none
  std::int64_t burst_left_ = 0;   // as of backend_free_ps_
  double recovery_bytes_per_ps_ = 0;
  bool time_on_host_cpu_ = false;  // ModelOptions::time_on_host_cpu

  // With-data mode: the contents, and the requests in flight (a slab with a
  // free list, so the steady state allocates nothing).
  std::optional<SparseStore> store_;
  struct Inflight {
    IoRequest req;
    IoCallback done;
  };
  std::vector<Inflight> inflight_;
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace tierlab
