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
      block_size_(options.block_size == 0 ? 512 : options.block_size) {
  const std::uint64_t cap = options.capacity != 0 ? options.capacity : preset.capacity_bytes;
  size_ = cap - cap % block_size_;
  read_ = {PsPerOp(preset.read_iops_4k), PsPerByte(preset.seq_read_mbps), preset.read_latency};
  write_ = {PsPerOp(preset.write_iops_4k), PsPerByte(preset.seq_write_mbps), preset.write_latency};
  if (options.with_data) store_.emplace();
}

std::int64_t SsdModel::CostPs(const Direction& d, std::uint64_t length) const {
  if (length <= k4K) return d.op_ps;
  const auto bw_ps = static_cast<std::int64_t>(static_cast<double>(length) * d.ps_per_byte);
  return std::max(d.op_ps, bw_ps);
}

Nanos SsdModel::MinLatency(const Direction& d, std::uint64_t length) const {
  if (length <= k4K) return d.latency;
  return d.latency + static_cast<Nanos>(static_cast<double>(length - k4K) * d.ps_per_byte / 1000.0);
}

Nanos SsdModel::PredictCompletion(const IoRequest& req) const {
  const Nanos now = engine().Now();
  switch (req.op) {
    case IoOp::kFlush: return now + kFlushLatency;
    case IoOp::kDiscard: return now + kDiscardLatency;
    case IoOp::kRead:
    case IoOp::kWrite: break;
  }
  const Direction& d = req.op == IoOp::kRead ? read_ : write_;
  const std::int64_t start_ps = std::max(now * 1000, backend_free_ps_);
  const std::int64_t end_ps = start_ps + CostPs(d, req.length);
  const Nanos backend_done = (end_ps + 999) / 1000;
  return std::max(now + MinLatency(d, req.length), backend_done);
}

void SsdModel::SubmitImpl(const IoRequest& req, IoCallback done) {
  const Nanos at = PredictCompletion(req);
  if (req.op == IoOp::kRead || req.op == IoOp::kWrite) {
    const Direction& d = req.op == IoOp::kRead ? read_ : write_;
    backend_free_ps_ = std::max(engine().Now() * 1000, backend_free_ps_) + CostPs(d, req.length);
  }
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

void SsdModel::AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                              AllocationMap& out) const {
  if (store_) {
    store_->MapAllocation(offset, length, max_extents, out);
  } else {
    BlockDevice::AllocationImpl(offset, length, max_extents, out);
  }
}

}  // namespace tierlab
