#pragma once
// Timing model of a hard disk: a controller in front of one actuator.
//
// Service time of a request = command overhead + positioning + transfer:
//  - Command overhead (the preset's overhead_read_hit / _read_miss / _write,
//    the datasheets' "command overhead", which their seek figures exclude):
//    the drive's controller handles one command at a time, in the order they
//    enter the drive's queue, while the actuator serves earlier ones. At QD1
//    it adds to every request; under a deep random queue it hides behind the
//    mechanics; for small sequential reads it is the limit.
//  - Read-ahead buffer: after a media read the drive keeps reading the
//    following bytes into its buffer (at the media rate, up to cache_mib
//    ahead of what the host has read). A read that starts where the previous
//    read ended is a buffer hit: no positioning; it completes once its last
//    byte has come off the media and it has crossed the host link
//    (interface_mbps). A write, or a read elsewhere, ends the read-ahead.
//  - Seek over a distance d (fraction of the capacity, as a proxy for the
//    fraction of the stroke): 0 within one track, else
//        seek(d) = t2t + k * sqrt(d),   k = (avg - t2t) * 15 / 8,
//    calibrated so that the mean over uniformly random start and end points
//    (E[sqrt|X-Y|] = 8/15) equals the datasheet's average seek. Read and
//    write use their own average and track-to-track figures. A request that
//    starts where the previous transfer ended pays no positioning.
//  - Rotation: by default from the platter's angle. The spindle turns with
//    the engine clock (initial phase from the seed); a byte's angle is the
//    fraction of a revolution it sits at on its zone's track. The wait is the
//    angle still to turn after the seek, so random accesses average half a
//    revolution and NCQ can exploit short rotational distances. With
//    ModelOptions::expected_rotation every access waits half a revolution.
//  - Zoned transfer: the media rate falls linearly in LBA from the outer
//    (max) to the inner (min) rate; transfer = length / rate(offset).
// Queueing, as a host and a drive share it: the drive holds at most its queue
// depth of commands (`ncq_depth` tags, the one being served included; 1
// without NCQ) and reorders only those: the next is the one with the shortest
// positioning time (ties to the oldest); a command that has been in the
// drive's queue longer than kAgingLimit goes next regardless. Requests beyond
// the depth wait in the host's queue in front, FIFO, and enter the drive as
// tags free up; their drive-queue age starts then. So IOPS rise with the
// queue depth up to the tag count and stay there beyond it.
//
// Flush completes after kFlushLatency (the model has no volatile write
// cache: a completed write is on the media). Discard is accepted as a no-op
// on the mechanics (zeroes the range in with-data mode) after
// kDiscardLatency. Neither enters the actuator queue.
//
// Threading: engine thread only. Failure: only the checks of
// BlockDevice::Submit (EINVAL).

#include <cstdint>
#include <optional>
#include <vector>

#include "tiering/core/BlockDevice.h"
#include "tiering/devices/DevicePreset.h"
#include "tiering/devices/ModelDevice.h"
#include "tiering/devices/SparseStore.h"

namespace tierlab {

class HddModel final : public BlockDevice {
 public:
  static constexpr Nanos kFlushLatency = 50 * kMicro;
  static constexpr Nanos kDiscardLatency = 10 * kMicro;
  static constexpr Nanos kAgingLimit = 500 * kMilli;

  // `preset` must be an HDD preset.
  HddModel(Engine& engine, std::string name, const DevicePreset& preset,
           const ModelOptions& options);

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return block_size_; }
  bool RequiresData() const override { return store_.has_value(); }
  std::string Kind() const override { return "hdd"; }

  // Model terms, exposed for tests and reports.
  double SeekNs(std::uint64_t from, std::uint64_t to, bool write) const;
  double RateBytesPerNs(std::uint64_t offset) const;
  double RevolutionNs() const { return rev_ns_; }
  // Commands in the drive's queue (not yet started) and in the host's queue.
  std::size_t queued() const { return queue_.size(); }
  std::size_t host_queued() const { return host_.size() - host_head_; }
  std::size_t queue_depth() const { return depth_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  // With data: the store's holes (pages never written or discarded whole).
  // Timing-only: the default (all data).
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;

 private:
  struct Pending {
    IoRequest req;
    IoCallback done;
  };
  // A command in the drive's queue: what NCQ's pick reads of it, kept small
  // and beside its neighbours (the pick scans up to ncq_depth of them per
  // start; the request and callback stay put in slab_ until it starts).
  struct Queued {
    std::uint64_t offset;
    double angle;        // Frac(RevolutionsTo(offset)): fixed per request
    double track_bytes;  // RateBytesPerNs(offset) * rev_ns_: fixed per request
    Nanos entered;       // when it entered the drive's queue (aging)
    Nanos ready;         // when the controller is done with it (overhead)
    std::uint32_t slot;  // in slab_
    bool write;
  };
  Queued MakeQueued(const IoRequest& req, Nanos entered, std::uint32_t slot) const;
  // Moves requests from the host's queue into the drive's while tags are free.
  void AdmitFromHost();
  // Puts a request into the drive's queue now: the controller takes it next.
  void EnterDrive(const IoRequest& req, std::uint32_t slot);
  // When the last byte of a buffer-hit read ending at `end` is in the buffer
  // (may be before `now`); first re-anchors a stream that stopped full.
  double ReadAheadReadyNs(std::uint64_t end, Nanos now);
  // Spindle angle (fraction of a revolution) at time t.
  double AngleAt(double t) const;
  // Seek + rotational wait for `q` if the actuator starts moving at `t`;
  // `angle_t` = AngleAt(t).
  double PositioningNs(const Queued& q, Nanos t, double angle_t) const;
  // SeekNs() with the target's precomputed track size.
  double SeekToNs(std::uint64_t from, const Queued& to) const;
  // Revolutions needed to read sequentially from byte 0 to `offset`; its
  // fractional part is the byte's angle on the platter.
  double RevolutionsTo(std::uint64_t offset) const;
  // Distance from the head beyond which a request cannot position faster
  // than best_ns (for the pick's early rejection).
  double SkipDistance(double best_ns, bool write) const;
  // Index in queue_ of the request to start now; sets *positioning_ns to its
  // PositioningNs(.., now) if it computed it, else to -1.
  std::size_t PickNext(double* positioning_ns) const;
  void StartNext();
  void CompleteActive();
  void CompleteSide(std::uint32_t slot);
  std::uint32_t Park(std::vector<Pending>& slab, std::vector<std::uint32_t>& free,
                     const IoRequest& req, IoCallback done);

  std::uint64_t size_;
  std::uint32_t block_size_;
  double rev_ns_;
  double phase0_;  // spindle angle at time 0, in revolutions
  double seek_t2t_ns_[2];
  double seek_k_ns_[2];
  double rate_outer_;  // bytes per ns at offset 0
  double rate_slope_;  // decrease of the rate per byte of offset
  bool ncq_;
  std::size_t depth_;  // the drive's tags: ncq_depth with NCQ, else 1
  bool expected_rotation_;

  std::uint64_t head_ = 0;  // byte just past the last transfer
  bool busy_ = false;
  bool wake_pending_ = false;  // a StartNext is scheduled for a controller finish
  // The controller: when it finishes the last command that entered, and
  // where the last read that entered ended (a read starting there is a
  // buffer hit, so it costs the hit overhead).
  Nanos controller_free_ = 0;
  std::uint64_t entered_read_end_ = ~std::uint64_t{0};
  Nanos overhead_[3];     // read hit, read miss, write
  double iface_rate_;     // bytes per ns; 0 = not limited
  double readahead_cap_;  // bytes the buffer may hold ahead of the host
  // The read-ahead stream: valid after a media read until a write or a read
  // elsewhere; the media passes byte ra_media_off_ at ra_media_ns_ and goes
  // on at ra_rate_; ra_next_ is where the host's next sequential read starts.
  bool ra_valid_ = false;
  std::uint64_t ra_next_ = 0;
  double ra_media_off_ = 0;
  double ra_media_ns_ = 0;
  double ra_rate_ = 0;
  Pending active_;
  std::vector<Queued> queue_;  // the drive's queue, oldest entry first
  // The host's FIFO queue in front of the drive: slots in slab_, from
  // host_head_ on (compacted as it drains, so it stays bounded by the load).
  std::vector<std::uint32_t> host_;
  std::size_t host_head_ = 0;
  // Queued reads and writes (a slab with a free list: no allocation in the
  // steady state).
  std::vector<Pending> slab_;
  std::vector<std::uint32_t> free_slab_;

  std::optional<SparseStore> store_;
  // Flushes and discards waiting for their fixed latency (with-data mode
  // needs the request at completion); a slab with a free list.
  std::vector<Pending> side_;
  std::vector<std::uint32_t> free_side_;
};

}  // namespace tierlab
