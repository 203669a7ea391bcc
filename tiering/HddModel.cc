#include "tiering/HddModel.h"

#include <algorithm>
#include <cmath>

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
      ncq_window_(options.ncq_depth != 0 ? options.ncq_depth : preset.ncq_depth),
      expected_rotation_(options.expected_rotation) {
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

double HddModel::PositioningNs(const IoRequest& req, Nanos t) const {
  if (req.offset == head_) return 0.0;  // sequential: read-ahead / track buffer
  const double seek = SeekNs(head_, req.offset, req.op == IoOp::kWrite);
  if (expected_rotation_) return seek + rev_ns_ / 2;
  const double angle = Frac((static_cast<double>(t) + seek) / rev_ns_ + phase0_);
  const double target = Frac(RevolutionsTo(req.offset));
  return seek + Frac(target - angle) * rev_ns_;
}

std::size_t HddModel::PickNext() const {
  if (!ncq_ || queue_.size() == 1) return 0;
  const Nanos now = engine().Now();
  if (now - queue_.front().submitted > kAgingLimit) return 0;
  const std::size_t n = std::min(queue_.size(), ncq_window_);
  std::size_t best = 0;
  double best_ns = PositioningNs(queue_[0].req, now);
  for (std::size_t i = 1; i < n && best_ns > 0; ++i) {
    const double p = PositioningNs(queue_[i].req, now);
    if (p < best_ns) {
      best_ns = p;
      best = i;
    }
  }
  return best;
}

void HddModel::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op == IoOp::kFlush || req.op == IoOp::kDiscard) {
    const Nanos lat = req.op == IoOp::kFlush ? kFlushLatency : kDiscardLatency;
    if (!store_ || req.op == IoOp::kFlush) {
      engine().ScheduleAfter(
          lat, [this, done = std::move(done)]() mutable { Finish(done, Status::kOk); });
    } else {
      const std::uint32_t slot = ParkSide(req, std::move(done));
      engine().ScheduleAfter(lat, [this, slot] { CompleteSide(slot); });
    }
    return;
  }
  queue_.push_back(Pending{req, std::move(done), engine().Now()});
  if (!busy_) StartNext();
}

void HddModel::StartNext() {
  if (queue_.empty()) return;
  const std::size_t i = PickNext();
  active_ = std::move(queue_[i]);
  queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
  busy_ = true;
  const Nanos now = engine().Now();
  const IoRequest& r = active_.req;
  const double service =
      PositioningNs(r, now) + static_cast<double>(r.length) / RateBytesPerNs(r.offset);
  head_ = r.offset + r.length;
  engine().ScheduleAt(now + static_cast<Nanos>(std::llround(service)),
                      [this] { CompleteActive(); });
}

void HddModel::CompleteActive() {
  const IoRequest& r = active_.req;
  if (store_) {
    if (r.op == IoOp::kRead) store_->Read(r.offset, r.length, r.data);
    if (r.op == IoOp::kWrite) store_->Write(r.offset, r.length, r.data);
  }
  IoCallback done = std::move(active_.done);
  busy_ = false;
  // Start the next request before running the callback so the actuator's
  // timeline does not depend on what the callback submits.
  StartNext();
  Finish(done, Status::kOk);
}

std::uint32_t HddModel::ParkSide(const IoRequest& req, IoCallback done) {
  std::uint32_t slot;
  if (!free_side_.empty()) {
    slot = free_side_.back();
    free_side_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(side_.size());
    side_.emplace_back();
  }
  side_[slot] = Pending{req, std::move(done), engine().Now()};
  return slot;
}

void HddModel::CompleteSide(std::uint32_t slot) {
  Pending& p = side_[slot];
  if (p.req.op == IoOp::kDiscard) store_->Discard(p.req.offset, p.req.length);
  IoCallback done = std::move(p.done);
  free_side_.push_back(slot);
  Finish(done, Status::kOk);
}

}  // namespace tierlab
