#include "tiering/devices/HddModel.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tierlab {

namespace {

double Frac(double x) {
  return x - std::floor(x);
}

// MB/s (10^6 B/s) to bytes per nanosecond.
double BytesPerNs(double mbps) {
  return mbps * 1e6 / 1e9;
}

}  // namespace

HddModel::HddModel(Engine& engine, std::string name, const DevicePreset& preset,
                   const ModelOptions& options)
    : BlockDevice(engine, std::move(name)),
      block_size_(options.block_size == 0 ? 512 : options.block_size),
      rev_ns_(preset.revolution_ns()),
      ncq_(options.ncq && (options.ncq_depth != 0 || preset.ncq_depth != 0)),
      depth_(ncq_ ? (options.ncq_depth != 0 ? options.ncq_depth : preset.ncq_depth) : 1),
      expected_rotation_(options.expected_rotation),
      overhead_{preset.overhead_read_hit, preset.overhead_read_miss, preset.overhead_write},
      iface_rate_(BytesPerNs(preset.interface_mbps)),
      readahead_cap_(static_cast<double>(preset.cache_mib) * 1024 * 1024) {
  const std::uint64_t cap = options.capacity != 0 ? options.capacity : preset.capacity_bytes;
  size_ = cap - cap % block_size_;
  // A fixed, seed-dependent starting angle (golden-ratio hashing of the seed).
  phase0_ = Frac(static_cast<double>(options.seed % 1000003) * 0.6180339887498949);
  const double avg[2] = {preset.avg_seek_read_ms * 1e6, preset.avg_seek_write_ms * 1e6};
  const double t2t[2] = {preset.track_to_track_read_ms * 1e6, preset.track_to_track_write_ms * 1e6};
  for (int w = 0; w < 2; ++w) {
    seek_t2t_ns_[w] = t2t[w];
    seek_k_ns_[w] = std::max(0.0, (avg[w] - t2t[w]) * 15.0 / 8.0);
  }
  rate_outer_ = BytesPerNs(preset.max_transfer_mbps);
  const double inner = BytesPerNs(preset.min_transfer_mbps > 0 ? preset.min_transfer_mbps
                                                               : preset.max_transfer_mbps);
  rate_slope_ = size_ > 0 ? (rate_outer_ - inner) / static_cast<double>(size_) : 0.0;
  if (options.with_data) store_.emplace();
  queue_.reserve(64);
  slab_.reserve(64);
}

double HddModel::RateBytesPerNs(std::uint64_t offset) const {
  return rate_outer_ - rate_slope_ * static_cast<double>(offset);
}

double HddModel::RevolutionsTo(std::uint64_t offset) const {
  const double b = static_cast<double>(offset);
  if (rate_slope_ * b < 1e-9 * rate_outer_) return b / (rate_outer_ * rev_ns_);
  // Integral of db / (rate(b) * rev) with rate linear in b.
  return std::log(rate_outer_ / (rate_outer_ - rate_slope_ * b)) / (rate_slope_ * rev_ns_);
}

double HddModel::SeekNs(std::uint64_t from, std::uint64_t to, bool write) const {
  const std::uint64_t dist = from > to ? from - to : to - from;
  const double track_bytes = RateBytesPerNs(to) * rev_ns_;
  if (static_cast<double>(dist) < track_bytes) return 0.0;
  const double d = static_cast<double>(dist) / static_cast<double>(size_);
  return seek_t2t_ns_[write] + seek_k_ns_[write] * std::sqrt(d);
}

// The same arithmetic as SeekNs(from, to.offset, to.write), bit for bit.
double HddModel::SeekToNs(std::uint64_t from, const Queued& to) const {
  const std::uint64_t dist = from > to.offset ? from - to.offset : to.offset - from;
  if (static_cast<double>(dist) < to.track_bytes) return 0.0;
  const double d = static_cast<double>(dist) / static_cast<double>(size_);
  return seek_t2t_ns_[to.write] + seek_k_ns_[to.write] * std::sqrt(d);
}

HddModel::Queued HddModel::MakeQueued(const IoRequest& req, Nanos entered,
                                      std::uint32_t slot) const {
  Queued q;
  q.offset = req.offset;
  // Computed once here rather than for every pick that looks at the request
  // (the logarithm in RevolutionsTo dominated NCQ's scan).
  q.angle = expected_rotation_ ? 0.0 : Frac(RevolutionsTo(req.offset));
  q.track_bytes = RateBytesPerNs(req.offset) * rev_ns_;
  q.entered = entered;
  q.slot = slot;
  q.write = req.op == IoOp::kWrite;
  return q;
}

double HddModel::AngleAt(double t) const {
  return Frac(t / rev_ns_ + phase0_);
}

double HddModel::PositioningNs(const Queued& q, Nanos t, double angle_t) const {
  if (q.offset == head_) return 0.0;  // sequential: read-ahead / track buffer
  const double seek = SeekToNs(head_, q);
  if (expected_rotation_) return seek + rev_ns_ / 2;
  // Where the spindle is once the head has settled (no seek: where it is at t).
  const double angle = seek == 0.0 ? angle_t : AngleAt(static_cast<double>(t) + seek);
  return seek + Frac(q.angle - angle) * rev_ns_;
}

double HddModel::SkipDistance(double best_ns, bool write) const {
  // seek(d) = t2t + k * sqrt(d / size) is increasing in d: every distance
  // beyond the one whose seek equals best_ns costs at least best_ns before any
  // rotation. The 1e-6 margins keep the answer exact despite rounding: only
  // requests whose computed positioning could not be < best_ns are skipped.
  const double t2t = seek_t2t_ns_[write];
  const double k = seek_k_ns_[write];
  if (!(k > 0)) return std::numeric_limits<double>::infinity();  // seek is flat
  const double x = (best_ns * (1 + 1e-6) - t2t) / k;
  if (x <= 0) return 0;  // even a track-to-track seek is longer than best_ns
  return x * x * static_cast<double>(size_) * (1 + 1e-6);
}

std::size_t HddModel::PickNext(double* positioning_ns) const {
  *positioning_ns = -1;
  const Nanos now = engine().Now();
  // Only commands the controller is done with can start; they are a prefix
  // of the queue (it takes them in entry order). StartNext made sure the
  // first one is.
  std::size_t n = 1;
  while (n < queue_.size() && queue_[n].ready <= now) ++n;
  if (!ncq_ || n == 1) return 0;
  if (now - queue_.front().entered > kAgingLimit) return 0;
  // Within a track there is no seek: all those requests share this angle.
  const double angle_now = AngleAt(static_cast<double>(now));
  std::size_t best = 0;
  double best_ns = PositioningNs(queue_[0], now, angle_now);
  // From the first request's positioning only: the best only gets shorter,
  // so the distance stays a safe (if looser) bound for the whole scan.
  const double skip[2] = {SkipDistance(best_ns, false), SkipDistance(best_ns, true)};
  for (std::size_t i = 1; i < n && best_ns > 0; ++i) {
    const Queued& q = queue_[i];
    // Most of a deep queue is too far away to win: rule it out on the
    // distance alone, without the square root and the rotation terms.
    const std::uint64_t dist = head_ > q.offset ? head_ - q.offset : q.offset - head_;
    const auto dist_d = static_cast<double>(dist);
    if (dist_d > skip[q.write] && dist_d >= q.track_bytes) continue;
    const double p = PositioningNs(q, now, angle_now);
    if (p < best_ns) {
      best_ns = p;
      best = i;
    }
  }
  *positioning_ns = best_ns;
  return best;
}

void HddModel::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op == IoOp::kFlush || req.op == IoOp::kDiscard) {
    const Nanos lat = req.op == IoOp::kFlush ? kFlushLatency : kDiscardLatency;
    if (!store_ || req.op == IoOp::kFlush) {
      engine().ScheduleAfter(
          lat, [this, done = std::move(done)]() mutable { Finish(done, Status::kOk); });
    } else {
      const std::uint32_t slot = Park(side_, free_side_, req, std::move(done));
      engine().ScheduleAfter(lat, [this, slot] { CompleteSide(slot); });
    }
    return;
  }
  const std::uint32_t slot = Park(slab_, free_slab_, req, std::move(done));
  if (host_queued() == 0 && queue_.size() + (busy_ ? 1 : 0) < depth_) {
    EnterDrive(req, slot);
  } else {
    host_.push_back(slot);
  }
  if (!busy_) StartNext();
}

void HddModel::EnterDrive(const IoRequest& req, std::uint32_t slot) {
  const Nanos now = engine().Now();
  Queued q = MakeQueued(req, now, slot);
  // The controller's class for the command: it sees a read that continues
  // the previous read as a buffer hit.
  int kind = 2;
  if (!q.write) {
    kind = req.offset == entered_read_end_ ? 0 : 1;
    entered_read_end_ = req.offset + req.length;
  }
  controller_free_ = std::max(controller_free_, now) + overhead_[kind];
  q.ready = controller_free_;
  queue_.push_back(q);
}

void HddModel::AdmitFromHost() {
  while (host_head_ < host_.size() && queue_.size() + (busy_ ? 1 : 0) < depth_) {
    const std::uint32_t slot = host_[host_head_++];
    EnterDrive(slab_[slot].req, slot);
  }
  if (host_head_ == host_.size()) {
    host_.clear();
    host_head_ = 0;
  } else if (host_head_ >= 64 && 2 * host_head_ >= host_.size()) {
    host_.erase(host_.begin(), host_.begin() + static_cast<std::ptrdiff_t>(host_head_));
    host_head_ = 0;
  }
}

void HddModel::StartNext() {
  if (queue_.empty() || wake_pending_) return;
  const Nanos now = engine().Now();
  if (queue_.front().ready > now) {
    // Nothing is through the controller yet: start when the first one is.
    wake_pending_ = true;
    engine().ScheduleAt(queue_.front().ready, [this] {
      wake_pending_ = false;
      if (!busy_) StartNext();
    });
    return;
  }
  double positioning;
  const std::size_t i = PickNext(&positioning);
  const Queued q = queue_[i];
  queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
  active_ = std::move(slab_[q.slot]);
  free_slab_.push_back(q.slot);
  busy_ = true;
  const IoRequest& r = active_.req;
  const std::uint64_t end = r.offset + r.length;
  const auto len = static_cast<double>(r.length);
  double done;
  if (!q.write && ra_valid_ && r.offset == ra_next_) {
    // A buffer hit: no positioning, and the media streams on meanwhile.
    const double link = iface_rate_ > 0 ? len / iface_rate_ : 0.0;
    done = std::max(static_cast<double>(now) + link, ReadAheadReadyNs(end, now));
    ra_next_ = end;
  } else {
    if (positioning < 0) positioning = PositioningNs(q, now, AngleAt(static_cast<double>(now)));
    const double rate = RateBytesPerNs(r.offset);
    done = static_cast<double>(now) + positioning + len / rate;
    // A read leaves the drive reading ahead from its end; a write ends that.
    ra_valid_ = !q.write;
    ra_next_ = end;
    ra_media_off_ = static_cast<double>(end);
    ra_media_ns_ = done;
    ra_rate_ = rate;
  }
  head_ = end;
  engine().ScheduleAt(static_cast<Nanos>(std::llround(done)), [this] { CompleteActive(); });
}

double HddModel::ReadAheadReadyNs(std::uint64_t end, Nanos now) {
  // The stream stops once it is readahead_cap_ ahead of the host and goes on
  // when the host reads again (now).
  const double limit = static_cast<double>(ra_next_) + readahead_cap_;
  const double pos_now = ra_media_off_ + (static_cast<double>(now) - ra_media_ns_) * ra_rate_;
  if (pos_now > limit) {
    ra_media_off_ = limit;
    ra_media_ns_ = static_cast<double>(now);
  }
  return ra_media_ns_ + (static_cast<double>(end) - ra_media_off_) / ra_rate_;
}

void HddModel::CompleteActive() {
  const IoRequest& r = active_.req;
  if (store_) {
    if (r.op == IoOp::kRead) store_->Read(r.offset, r.length, r.data);
    if (r.op == IoOp::kWrite) store_->Write(r.offset, r.length, r.data);
  }
  IoCallback done = std::move(active_.done);
  busy_ = false;
  // The tag is free: the host's next request enters the drive. Start the
  // next request before running the callback so the actuator's timeline does
  // not depend on what the callback submits.
  AdmitFromHost();
  StartNext();
  Finish(done, Status::kOk);
}

std::uint32_t HddModel::Park(std::vector<Pending>& slab, std::vector<std::uint32_t>& free,
                             const IoRequest& req, IoCallback done) {
  std::uint32_t slot;
  if (!free.empty()) {
    slot = free.back();
    free.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slab.size());
    slab.emplace_back();
  }
  slab[slot] = Pending{req, std::move(done)};
  return slot;
}

void HddModel::CompleteSide(std::uint32_t slot) {
  Pending& p = side_[slot];
  if (p.req.op == IoOp::kDiscard) store_->Discard(p.req.offset, p.req.length);
  IoCallback done = std::move(p.done);
  free_side_.push_back(slot);
  Finish(done, Status::kOk);
}

void HddModel::AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                              AllocationMap& out) const {
  if (store_) {
    store_->MapAllocation(offset, length, max_extents, out);
  } else {
    BlockDevice::AllocationImpl(offset, length, max_extents, out);
  }
}

}  // namespace tierlab
