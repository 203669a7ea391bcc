#include "tiering/core/BlockDevice.h"

#include <algorithm>

namespace tierlab {

void DeviceStats::Add(const DeviceStats& o) {
  read_ops += o.read_ops;
  read_bytes += o.read_bytes;
  write_ops += o.write_ops;
  write_bytes += o.write_bytes;
  flush_ops += o.flush_ops;
  discard_ops += o.discard_ops;
  discard_bytes += o.discard_bytes;
  errors += o.errors;
  busy_ns += o.busy_ns;
  qd_integral_ns += o.qd_integral_ns;
  max_queue_depth = std::max(max_queue_depth, o.max_queue_depth);
}

void DeviceStats::Subtract(const DeviceStats& earlier) {
  read_ops -= earlier.read_ops;
  read_bytes -= earlier.read_bytes;
  write_ops -= earlier.write_ops;
  write_bytes -= earlier.write_bytes;
  flush_ops -= earlier.flush_ops;
  discard_ops -= earlier.discard_ops;
  discard_bytes -= earlier.discard_bytes;
  errors -= earlier.errors;
  busy_ns -= earlier.busy_ns;
  qd_integral_ns -= earlier.qd_integral_ns;
}

const char* ToString(IoOp op) {
  switch (op) {
    case IoOp::kRead: return "read";
    case IoOp::kWrite: return "write";
    case IoOp::kFlush: return "flush";
    case IoOp::kDiscard: return "discard";
  }
  return "unknown";
}

namespace {

// ValidateRequest's checks, inlined into Submit. `requires_data()` is asked
// only for a read or write without a buffer, so a timing-only stack makes one
// virtual call less per submit of every layer.
template <typename RequiresData>
inline Status CheckRequest(const IoRequest& req, std::uint64_t size, std::uint32_t block_size,
                           RequiresData requires_data) {
  if (req.op == IoOp::kFlush) return Status::kOk;
  if (req.op != IoOp::kRead && req.op != IoOp::kWrite && req.op != IoOp::kDiscard) {
    return Status::kInvalid;
  }
  if (req.length == 0 || block_size == 0) return Status::kInvalid;
  // Block sizes are powers of two in practice: a mask instead of two 64-bit
  // divisions.
  const bool misaligned = (block_size & (block_size - 1)) == 0
                              ? ((req.offset | req.length) & (block_size - 1)) != 0
                              : req.offset % block_size != 0 || req.length % block_size != 0;
  if (misaligned) return Status::kInvalid;
  if (req.offset > size || req.length > size - req.offset) return Status::kInvalid;
  if (req.data == nullptr && req.op != IoOp::kDiscard && requires_data()) return Status::kInvalid;
  return Status::kOk;
}

}  // namespace

Status ValidateRequest(const IoRequest& req, std::uint64_t size, std::uint32_t block_size,
                       bool requires_data) {
  return CheckRequest(req, size, block_size, [requires_data] { return requires_data; });
}

BlockDevice::BlockDevice(Engine& engine, std::string name)
    : engine_(engine), name_(std::move(name)), last_change_(engine.Now()) {}

void BlockDevice::Submit(const IoRequest& req, IoCallback done) {
  if (!geometry_read_) {
    checked_size_ = Size();
    checked_block_size_ = BlockSize();
    geometry_read_ = true;
  }
  const Status st =
      CheckRequest(req, checked_size_, checked_block_size_, [this] { return RequiresData(); });
  if (st != Status::kOk) {
    ++stats_.errors;
    engine_.Post([done = std::move(done), st]() mutable { done(st); });
    return;
  }
  switch (req.op) {
    case IoOp::kRead:
      ++stats_.read_ops;
      stats_.read_bytes += req.length;
      break;
    case IoOp::kWrite:
      ++stats_.write_ops;
      stats_.write_bytes += req.length;
      break;
    case IoOp::kFlush: ++stats_.flush_ops; break;
    case IoOp::kDiscard:
      ++stats_.discard_ops;
      stats_.discard_bytes += req.length;
      break;
  }
  Advance();
  ++in_flight_;
  stats_.max_queue_depth = std::max(stats_.max_queue_depth, in_flight_);
  SubmitImpl(req, std::move(done));
}

void BlockDevice::FinishAsync(IoCallback done, Status status) {
  engine_.Post([this, done = std::move(done), status]() mutable { Finish(done, status); });
}

Status BlockDevice::QueryAllocation(std::uint64_t offset, std::uint64_t length,
                                    std::size_t max_extents, AllocationMap* out) const {
  const std::uint64_t size = Size();
  const std::uint64_t bs = BlockSize();
  if (length == 0 || max_extents == 0 || bs == 0 || offset % bs != 0 || length % bs != 0 ||
      offset > size || length > size - offset) {
    return Status::kInvalid;
  }
  AllocationMap raw;
  AllocationImpl(offset, length, max_extents, raw);
  // Cut to the query and merge neighbours first, so that a hole split over
  // several extents still counts its whole blocks.
  AllocationMap merged;
  std::uint64_t covered = 0;
  for (const AllocationExtent& e : raw) {
    const std::uint64_t n = std::min(e.length, length - covered);
    AppendExtent(merged, n, e.hole);
    covered += n;
  }
  out->clear();
  // Offsets below are relative to `offset`, which is block-aligned, so
  // relative and absolute block boundaries coincide.
  std::uint64_t pos = 0;
  for (const AllocationExtent& e : merged) {
    if (e.hole) {
      // Only the whole blocks inside a hole are a hole: the rest of a block
      // it covers in part is unknown, hence data.
      const std::uint64_t a = (pos + bs - 1) / bs * bs;
      const std::uint64_t b = (pos + e.length) / bs * bs;
      if (a < b) {
        AppendExtent(*out, a - pos, false);
        AppendExtent(*out, b - a, true);
        AppendExtent(*out, pos + e.length - b, false);
      } else {
        AppendExtent(*out, e.length, false);
      }
    } else {
      AppendExtent(*out, e.length, false);
    }
    pos += e.length;
  }
  // A prefix answer ends on a block boundary (the rest of its last block is
  // unknown: data); an empty answer is all data.
  const std::uint64_t end = pos == 0 ? length : std::min(length, (pos + bs - 1) / bs * bs);
  AppendExtent(*out, end - pos, false);
  if (out->size() > max_extents) out->resize(max_extents);
  return Status::kOk;
}

void BlockDevice::AllocationImpl(std::uint64_t /*offset*/, std::uint64_t length,
                                 std::size_t /*max_extents*/, AllocationMap& out) const {
  AppendExtent(out, length, false);
}

DeviceStats BlockDevice::stats() const {
  DeviceStats s = stats_;
  const Nanos dt = engine_.Now() - last_change_;
  if (in_flight_ > 0 && dt > 0) {
    s.busy_ns += dt;
    s.qd_integral_ns += static_cast<double>(in_flight_) * static_cast<double>(dt);
  }
  return s;
}

std::uint64_t BlockDevice::WarmSettleImpl() {
  std::uint64_t placed = 0;
  for (BlockDevice* c : Children()) placed += c->WarmSettle();
  return placed;
}

}  // namespace tierlab
