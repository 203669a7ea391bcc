#include "tiering/devices/SsdModel.h"

#include <algorithm>
#include <cmath>

namespace tierlab {

namespace {

constexpr std::uint64_t k4K = 4096;

// MB/s (10^6 B/s) to picoseconds per byte.
double PsPerByte(double mbps) {
  return mbps > 0 ? 1e6 / mbps : 0.0;
}

std::int64_t PsPerOp(double iops) {
  return iops > 0 ? static_cast<std::int64_t>(std::llround(1e12 / iops)) : 0;
}

}  // namespace

SsdModel::SsdModel(Engine& engine, std::string name, const DevicePreset& preset,
                   const ModelOptions& options)
    : BlockDevice(engine, std::move(name)),
      type_(preset.type),
      block_size_(options.block_size == 0 ? 512 : options.block_size),
      time_on_host_cpu_(options.time_on_host_cpu) {
  const std::uint64_t cap = options.capacity != 0 ? options.capacity : preset.capacity_bytes;
  size_ = cap - cap % block_size_;
  read_ = {PsPerOp(preset.read_iops_4k), PsPerByte(preset.seq_read_mbps), preset.read_latency};
  write_ = {PsPerOp(preset.write_iops_4k), PsPerByte(preset.seq_write_mbps), preset.write_latency};
  if (preset.has_write_cliff()) {
    steady_write_ = {PsPerOp(preset.steady_write_iops_4k), PsPerByte(preset.steady_seq_write_mbps),
                     preset.write_latency};
    burst_bytes_ = static_cast<std::int64_t>(preset.write_cliff_bytes);
    burst_left_ = burst_bytes_;  // a fresh device, or an SLC cache folded empty
    recovery_bytes_per_ps_ = preset.cliff_recovery_mbps * 1e-6;
  }
  if (options.with_data) store_.emplace();
}

std::int64_t SsdModel::CostPs(const Direction& d, std::uint64_t length) const {
  if (length <= k4K) return d.op_ps;
  const auto bw_ps = static_cast<std::int64_t>(static_cast<double>(length) * d.ps_per_byte);
  return std::max(d.op_ps, bw_ps);
}

std::int64_t SsdModel::WriteCostPs(std::uint64_t length, std::int64_t burst) const {
  const std::int64_t rated = CostPs(write_, length);
  if (burst_bytes_ == 0 || burst >= static_cast<std::int64_t>(length)) return rated;
  const std::int64_t steady = CostPs(steady_write_, length);
  if (burst <= 0) return steady;
  const double before = static_cast<double>(burst) / static_cast<double>(length);
  return std::llround(before * static_cast<double>(rated) +
                      (1 - before) * static_cast<double>(steady));
}

SsdModel::BackEnd SsdModel::StateAt(Nanos now) const {
  const std::int64_t now_ps = now * 1000;
  BackEnd b{std::max(now_ps, backend_free_ps_), burst_left_};
  if (recovery_bytes_per_ps_ > 0 && now_ps > backend_free_ps_ && burst_left_ < burst_bytes_) {
    const double regained = static_cast<double>(now_ps - backend_free_ps_) * recovery_bytes_per_ps_;
    b.burst = regained >= static_cast<double>(burst_bytes_ - burst_left_)
                  ? burst_bytes_
                  : burst_left_ + static_cast<std::int64_t>(regained);
  }
  return b;
}

std::uint64_t SsdModel::WriteBurstLeft() const {
  return static_cast<std::uint64_t>(StateAt(engine().Now()).burst);
}

Nanos SsdModel::MinLatency(const Direction& d, std::uint64_t length) const {
  if (length <= k4K) return d.latency;
  return d.latency + static_cast<Nanos>(static_cast<double>(length - k4K) * d.ps_per_byte / 1000.0);
}

SsdModel::Plan SsdModel::PlanAt(const IoRequest& req, Nanos now) const {
  switch (req.op) {
    case IoOp::kFlush: return {now + kFlushLatency, backend_free_ps_, burst_left_};
    case IoOp::kDiscard: return {now + kDiscardLatency, backend_free_ps_, burst_left_};
    case IoOp::kRead:
    case IoOp::kWrite: break;
  }
  if (time_on_host_cpu_) return {now, backend_free_ps_, burst_left_};
  const bool read = req.op == IoOp::kRead;
  const Direction& d = read ? read_ : write_;
  const BackEnd b = StateAt(now);
  Plan p{0, b.start_ps, b.burst};
  if (read) {
    p.backend_free_ps += CostPs(d, req.length);
  } else {
    p.backend_free_ps += WriteCostPs(req.length, b.burst);
    p.burst_left = std::max<std::int64_t>(0, b.burst - static_cast<std::int64_t>(req.length));
  }
  const Nanos backend_done = (p.backend_free_ps + 999) / 1000;
  p.done = std::max(now + MinLatency(d, req.length), backend_done);
  return p;
}

Nanos SsdModel::PredictCompletion(const IoRequest& req) const {
  return PlanAt(req, engine().Now()).done;
}

void SsdModel::SubmitImpl(const IoRequest& req, IoCallback done) {
  const Plan plan = PlanAt(req, engine().Now());
  const Nanos at = plan.done;
  backend_free_ps_ = plan.backend_free_ps;
  burst_left_ = plan.burst_left;
  if (!store_) {
    // Timing-only: the task holds just the callback; nothing is allocated.
    engine().ScheduleAt(at,
                        [this, done = std::move(done)]() mutable { Finish(done, Status::kOk); });
    return;
  }
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(inflight_.size());
    inflight_.emplace_back();
  }
  inflight_[slot].req = req;
  inflight_[slot].done = std::move(done);
  engine().ScheduleAt(at, [this, slot] { CompleteWithData(slot); });
}

void SsdModel::CompleteWithData(std::uint32_t slot) {
  Inflight& f = inflight_[slot];
  const IoRequest& r = f.req;
  switch (r.op) {
    case IoOp::kRead: store_->Read(r.offset, r.length, r.data); break;
    case IoOp::kWrite: store_->Write(r.offset, r.length, r.data); break;
    case IoOp::kDiscard: store_->Discard(r.offset, r.length); break;
    case IoOp::kFlush: break;
  }
  IoCallback done = std::move(f.done);
  free_slots_.push_back(slot);
  Finish(done, Status::kOk);
}

std::uint64_t SsdModel::WarmImpl(const IoRequest& req) {
  if (req.op != IoOp::kWrite || burst_bytes_ == 0) return 0;
  const BackEnd b = StateAt(engine().Now());
  // The idle time up to now is counted in the burst: the back end's free
  // time moves up to now so that it is not counted again.
  backend_free_ps_ = std::max(backend_free_ps_, engine().Now() * 1000);
  burst_left_ = std::max<std::int64_t>(0, b.burst - static_cast<std::int64_t>(req.length));
  return 0;
}

void SsdModel::AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                              AllocationMap& out) const {
  if (store_) {
    store_->MapAllocation(offset, length, max_extents, out);
  } else {
    BlockDevice::AllocationImpl(offset, length, max_extents, out);
  }
}

}  // namespace tierlab
