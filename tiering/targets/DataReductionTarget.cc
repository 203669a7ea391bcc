#include "tiering/targets/DataReductionTarget.h"

#include <algorithm>
#include <cstring>

namespace tierlab {
namespace {

constexpr std::uint32_t kBlock = ReductionMap::kBlock;

std::uint64_t LogicalBytes(const ReductionConfig& c, const BlockDevice& child) {
  const std::uint64_t bytes = c.logical_bytes != 0 ? c.logical_bytes : child.Size();
  return bytes - bytes % kBlock;
}

// Fragments are packed in 512-byte sectors whatever the child's block size;
// a child with larger blocks gets whole pack blocks (StorePacked).
constexpr std::uint32_t kSector = 512;

}  // namespace

DataReductionTarget::DataReductionTarget(Engine& engine, std::string name,
                                         std::unique_ptr<BlockDevice> child, ReductionConfig config)
    : BlockDevice(engine, std::move(name)),
      child_(std::move(child)),
      config_(config),
      logical_bytes_(LogicalBytes(config_, *child_)),
      map_(logical_bytes_ / kBlock, child_->Size() / kBlock, kSector),
      compressor_(config_.compression, config_.zstd_level),
      cpu_free_at_(std::max<std::uint32_t>(1, config_.cpu_threads), 0),
      direct_sectors_(child_->BlockSize() != 0 && kSector % child_->BlockSize() == 0) {}

DataReductionTarget::~DataReductionTarget() = default;

std::string DataReductionTarget::Check() const {
  const std::uint32_t s = child_->BlockSize();
  if (s == 0 || s > kBlock || kBlock % s != 0) {
    return child_->name() + ": block size " + std::to_string(s) + " does not divide 4096";
  }
  if (child_->Size() < kBlock) return child_->name() + ": smaller than one 4 KiB block";
  if (config_.keep_compressed_max == 0 || config_.keep_compressed_max >= kBlock) {
    return "keep_compressed_max must be between 1 and 4095 bytes";
  }
  return {};
}

// ---- CPU model ----------------------------------------------------------------

void DataReductionTarget::ChargeCpu(Nanos cost, Task then) {
  if (!config_.model_cpu || cost <= 0) {
    engine().Post(std::move(then));
    return;
  }
  // The least busy of the modelled cores: requests queue for CPU as they
  // would on a host whose reduction threads are busy.
  auto core = std::min_element(cpu_free_at_.begin(), cpu_free_at_.end());
  const Nanos start = std::max(engine().Now(), *core);
  *core = start + cost;
  stats_.cpu_ns += static_cast<std::uint64_t>(cost);
  engine().ScheduleAt(*core, std::move(then));
}

std::uint64_t DataReductionTarget::SkipOf(const ReductionMap::Location& at) const {
  return direct_sectors_ ? 0 : at.offset % child_->BlockSize();
}

void DataReductionTarget::SpanOf(const ReductionMap::Location& at, IoRequest& r) const {
  // A fragment on a device with larger blocks is read with the whole blocks
  // around it (within its 4 KiB pack block), and found SkipOf bytes in.
  const std::uint64_t skip = SkipOf(at);
  const std::uint64_t b = direct_sectors_ ? 1 : child_->BlockSize();
  r.offset = at.offset - skip;
  r.length = (skip + at.length + b - 1) / b * b;
}

// ---- Requests -----------------------------------------------------------------

DataReductionTarget::Op* DataReductionTarget::NewOp(const IoRequest& req, IoCallback done) {
  Op* op = ops_.Reuse();
  op->done = std::move(done);
  op->req = req;
  op->status = Status::kOk;
  op->remaining = 0;
  op->issued = false;
  op->decompress = 0;
  op->blocks.clear();
  const std::size_t n = req.op == IoOp::kFlush ? 0 : req.length / kBlock;
  if (op->scratch.size() < n * kBlock) op->scratch = AlignedBuffer(n * kBlock);
  return op;
}

void DataReductionTarget::Release(Op* op) {
  IoCallback done = std::move(op->done);
  const Status st = op->status;
  ops_.Release(op);
  Finish(done, st);
}

void DataReductionTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  switch (req.op) {
    case IoOp::kFlush: {
      Op* op = NewOp(req, std::move(done));
      child_->Submit(req, [this, op](Status st) {
        op->status = st;
        Release(op);
      });
      return;
    }
    case IoOp::kRead: StartRead(NewOp(req, std::move(done))); return;
    case IoOp::kWrite:
    case IoOp::kDiscard: StartWrite(NewOp(req, std::move(done))); return;
  }
}

// ---- Writes -------------------------------------------------------------------

std::uint64_t DataReductionTarget::BeginBlockWrite(std::uint64_t lba) {
  InFlight& f = in_flight_[lba];
  f.newest = ++next_seq_;
  ++f.count;
  return f.newest;
}

void DataReductionTarget::ApplyBlockWrite(const BlockWrite& w, std::uint32_t id) {
  auto it = in_flight_.find(w.lba);
  const bool newest = it->second.newest == w.seq;
  if (newest) {
    map_.Map(w.lba, id);
    if (id != ReductionMap::kNone && config_.dedupe) map_.Index(id);
  } else if (w.action == BlockAction::kStore && id != ReductionMap::kNone) {
    map_.Abandon(id);  // a newer write of this block was submitted after it
  }
  if (--it->second.count == 0) in_flight_.erase(it);
}

void DataReductionTarget::StartWrite(Op* op) {
  const IoRequest& req = op->req;
  const bool discard = req.op == IoOp::kDiscard;
  const std::size_t n = req.length / kBlock;
  op->blocks.resize(n);
  Nanos cost = 0;
  const Nanos started = engine().Now();  // real time: what the work takes
  for (std::size_t i = 0; i < n; ++i) {
    BlockWrite& w = op->blocks[i];
    w = BlockWrite{};
    w.lba = req.offset / kBlock + i;
    w.seq = BeginBlockWrite(w.lba);
    if (discard) continue;  // kZero: unmapped
    ++stats_.logical_write_blocks;
    const std::byte* data = req.data + i * kBlock;
    if (IsZeroBlock(data, kBlock)) {
      ++stats_.zero_blocks;
      continue;
    }
    if (config_.dedupe) {
      w.fingerprint = Fingerprint(data, kBlock);
      cost += config_.cpu.fingerprint_ns;
      const std::uint32_t hint = map_.Find(w.fingerprint);
      if (hint != ReductionMap::kNone && map_.Live(hint)) {
        w.action = BlockAction::kVerify;
        w.id = hint;
        map_.Pin(hint);
        const bool packed = map_.Where(hint).compressed != 0;
        cost += config_.cpu.compare_ns + (packed ? config_.cpu.decompress_ns : 0);
        continue;
      }
      auto [it, first] = storing_.try_emplace(w.fingerprint);
      if (!first) {
        // Being stored by a write in flight: wait for it, then compare.
        w.action = BlockAction::kWait;
        it->second.waiters.push_back({op, i});
        cost += config_.cpu.compare_ns;
        continue;
      }
      it->second.owner = {op, i};
    }
    w.action = BlockAction::kStore;
    if (config_.compression != CompressionKind::kNone) {
      cost += config_.cpu.compress_ns;
      w.compressed = static_cast<std::uint16_t>(compressor_.Compress(
          data, kBlock, op->scratch.data() + i * kBlock, config_.keep_compressed_max));
    }
  }
  if (!config_.model_cpu) stats_.cpu_ns += static_cast<std::uint64_t>(engine().Now() - started);
  ChargeCpu(cost, [this, op] { IssueWrites(op); });
}

void DataReductionTarget::IssueWrites(Op* op) {
  // One count per block plus one held while blocks are issued, so a block
  // finishing at once cannot complete the request half-way through.
  op->remaining = static_cast<std::uint32_t>(op->blocks.size()) + 1;
  op->issued = true;
  for (std::size_t i = 0; i < op->blocks.size(); ++i) {
    BlockWrite& w = op->blocks[i];
    switch (w.action) {
      case BlockAction::kZero: BlockDone(op, i, Status::kOk); break;
      case BlockAction::kStore: Store(op, i); break;
      case BlockAction::kVerify: IssueVerify(op, i); break;
      case BlockAction::kWait: break;  // ReleaseWaiters moves it on
    }
  }
  BlockDone(op, op->blocks.size(), Status::kOk);
}

void DataReductionTarget::IssueVerify(Op* op, std::size_t i) {
  ++stats_.verify_reads;
  const ReductionMap::Location at = map_.Where(op->blocks[i].id);
  IoRequest r;
  r.op = IoOp::kRead;
  SpanOf(at, r);
  r.data = op->scratch.data() + i * kBlock;
  child_->Submit(r, [this, op, i](Status st) { Verified(op, i, st); });
}

void DataReductionTarget::ReleaseWaiters(Op* op, std::size_t i, bool landed) {
  const BlockWrite& owner = op->blocks[i];
  auto it = storing_.find(owner.fingerprint);
  if (it == storing_.end() || it->second.owner.op != op || it->second.owner.block != i) return;
  std::vector<Waiter> waiters = std::move(it->second.waiters);
  storing_.erase(it);
  // The owner's block, if its write landed and it is still what its volume
  // block maps to: the waiters verify against it as against any hint.
  const std::uint32_t id = landed && map_.Live(owner.id) ? owner.id : ReductionMap::kNone;
  for (const Waiter& wt : waiters) {
    BlockWrite& w = wt.op->blocks[wt.block];
    if (id != ReductionMap::kNone) {
      w.action = BlockAction::kVerify;
      w.id = id;
      map_.Pin(id);
      if (wt.op->issued) IssueVerify(wt.op, wt.block);
      continue;
    }
    // Nothing to share: the block is new content after all.
    w.action = BlockAction::kStore;
    if (config_.compression != CompressionKind::kNone) {
      w.compressed = static_cast<std::uint16_t>(compressor_.Compress(
          wt.op->req.data + wt.block * kBlock, kBlock, wt.op->scratch.data() + wt.block * kBlock,
          config_.keep_compressed_max));
    }
    if (wt.op->issued) Store(wt.op, wt.block);
  }
}

void DataReductionTarget::Verified(Op* op, std::size_t i, Status st) {
  BlockWrite& w = op->blocks[i];
  const std::byte* mine = op->req.data + i * kBlock;
  const ReductionMap::Location at = map_.Where(w.id);
  bool same = false;
  if (st == Status::kOk) {
    const std::byte* theirs = op->scratch.data() + i * kBlock + SkipOf(at);
    if (at.compressed != 0) {
      if (op->plain.size() < kBlock) op->plain = AlignedBuffer(kBlock);
      same = compressor_.Decompress(theirs, at.compressed, op->plain.data(), kBlock) &&
             std::memcmp(op->plain.data(), mine, kBlock) == 0;
    } else {
      same = std::memcmp(theirs, mine, kBlock) == 0;
    }
  }
  const std::uint32_t candidate = w.id;
  const bool live = map_.Live(candidate);
  if (same && live) {
    ++stats_.dedupe_hits;
    ApplyBlockWrite(w, candidate);
    map_.Unpin(candidate);
    BlockDone(op, i, Status::kOk);
    return;
  }
  map_.Unpin(candidate);
  // Not the same bytes (or the copy died, or could not be read): this block
  // is new content after all. Its compression was skipped; do it now.
  if (st == Status::kOk && !same && live) ++stats_.hint_mismatches;
  w.action = BlockAction::kStore;
  w.id = ReductionMap::kNone;
  if (config_.compression != CompressionKind::kNone) {
    w.compressed = static_cast<std::uint16_t>(compressor_.Compress(
        mine, kBlock, op->scratch.data() + i * kBlock, config_.keep_compressed_max));
  }
  Store(op, i);
}

void DataReductionTarget::Store(Op* op, std::size_t i) {
  BlockWrite& w = op->blocks[i];
  w.id = map_.Allocate(w.compressed, w.fingerprint);
  if (w.id == ReductionMap::kNone) {
    ++stats_.no_space;
    BlockDone(op, i, Status::kNoSpace);
    return;
  }
  const ReductionMap::Location at = map_.Where(w.id);
  IoRequest r;
  r.op = IoOp::kWrite;
  r.flags = op->req.flags;
  r.offset = at.offset;
  r.length = at.length;
  if (at.compressed != 0 && !direct_sectors_) {
    ++stats_.stored_compressed;
    StorePacked(op, i, at);
    return;
  }
  if (at.compressed != 0) {
    ++stats_.stored_compressed;
    std::byte* slot = op->scratch.data() + i * kBlock;
    std::memset(slot + at.compressed, 0, at.length - at.compressed);
    r.data = slot;
  } else {
    ++stats_.stored_raw;
    r.data = op->req.data + i * kBlock;
  }
  child_->Submit(r, [this, op, i](Status st) { BlockDone(op, i, st); });
}

void DataReductionTarget::StorePacked(Op* op, std::size_t i, const ReductionMap::Location& at) {
  const std::uint64_t pbn = at.offset / kBlock;
  const std::size_t in_block = at.offset % kBlock;
  std::unique_ptr<Pack>& pack = packs_[pbn];
  if (!pack) pack = std::make_unique<Pack>();
  if (in_block == 0) {
    // A fresh pack block (the map fills packs front to back): what an older
    // use of this block left in the image is dead. Packs that are closed
    // and idle are done with.
    for (auto it = packs_.begin(); it != packs_.end();) {
      const bool done = it->first != pbn && !it->second->busy && it->second->queued.empty() &&
                        it->first != map_.open_pack();
      it = done ? packs_.erase(it) : std::next(it);
    }
    if (pack->image.size() < kBlock) pack->image = AlignedBuffer(kBlock);
    std::memset(pack->image.data(), 0, kBlock);
  }
  std::byte* dst = pack->image.data() + in_block;
  std::memcpy(dst, op->scratch.data() + i * kBlock, at.compressed);
  std::memset(dst + at.compressed, 0, at.length - at.compressed);
  pack->queued.push_back({op, i});
  if (!pack->busy) WritePack(pbn);
}

void DataReductionTarget::WritePack(std::uint64_t pbn) {
  Pack& pack = *packs_[pbn];
  pack.busy = true;
  pack.writing.swap(pack.queued);
  IoRequest r;
  r.op = IoOp::kWrite;
  r.offset = pbn * kBlock;
  r.length = kBlock;
  r.data = pack.image.data();
  // Fragments added while this write is in flight change sectors nothing
  // maps yet; the next write carries them.
  for (const Waiter& w : pack.writing) r.flags |= w.op->req.flags;
  child_->Submit(r, [this, pbn](Status st) {
    Pack& p = *packs_[pbn];
    std::vector<Waiter> carried;
    carried.swap(p.writing);
    p.busy = false;
    if (!p.queued.empty()) WritePack(pbn);
    for (const Waiter& w : carried) BlockDone(w.op, w.block, st);
  });
}

void DataReductionTarget::BlockDone(Op* op, std::size_t i, Status st) {
  if (i < op->blocks.size()) {
    BlockWrite& w = op->blocks[i];
    if (st == Status::kOk) {
      // Verify's hits were applied in Verified; zeros and stores here.
      if (w.action != BlockAction::kVerify) ApplyBlockWrite(w, w.id);
    } else {
      if (w.action == BlockAction::kStore && w.id != ReductionMap::kNone) map_.Abandon(w.id);
      auto it = in_flight_.find(w.lba);
      if (--it->second.count == 0) in_flight_.erase(it);
      if (op->status == Status::kOk) op->status = st;
    }
    if (w.action == BlockAction::kStore && config_.dedupe) {
      ReleaseWaiters(op, i, st == Status::kOk);
    }
  }
  if (--op->remaining == 0) Release(op);
}

// ---- Reads --------------------------------------------------------------------

void DataReductionTarget::StartRead(Op* op) {
  const IoRequest& req = op->req;
  const std::size_t n = req.length / kBlock;
  op->remaining = static_cast<std::uint32_t>(n) + 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t id = map_.Lookup(req.offset / kBlock + i);
    std::byte* dest = req.data + i * kBlock;
    if (id == ReductionMap::kNone) {
      std::memset(dest, 0, kBlock);
      --op->remaining;
      continue;
    }
    map_.Pin(id);
    const ReductionMap::Location at = map_.Where(id);
    IoRequest r;
    r.op = IoOp::kRead;
    SpanOf(at, r);
    r.data = at.compressed != 0 ? op->scratch.data() + i * kBlock : dest;
    child_->Submit(r, [this, op, i, id](Status st) { ReadDone(op, i, id, st); });
  }
  // The held count: released on the next turn, so a read of zeros alone
  // still completes outside Submit.
  engine().Post(
      [this, op] { ReadDone(op, op->req.length / kBlock, ReductionMap::kNone, Status::kOk); });
}

void DataReductionTarget::ReadDone(Op* op, std::size_t i, std::uint32_t id, Status st) {
  if (id != ReductionMap::kNone) {
    const ReductionMap::Location at = map_.Where(id);
    if (st == Status::kOk && at.compressed != 0) {
      ++op->decompress;
      const Nanos started = engine().Now();
      if (!compressor_.Decompress(op->scratch.data() + i * kBlock + SkipOf(at), at.compressed,
                                  op->req.data + i * kBlock, kBlock)) {
        st = Status::kIoError;  // a damaged fragment is a medium error, never wrong data
      }
      if (!config_.model_cpu) stats_.cpu_ns += static_cast<std::uint64_t>(engine().Now() - started);
    }
    map_.Unpin(id);
  }
  if (st != Status::kOk && op->status == Status::kOk) op->status = st;
  if (--op->remaining != 0) return;
  const Nanos cost = static_cast<Nanos>(op->decompress) * config_.cpu.decompress_ns;
  if (cost > 0 && config_.model_cpu) {
    ChargeCpu(cost, [this, op] { Release(op); });
  } else {
    Release(op);
  }
}

// ---- Allocation ---------------------------------------------------------------

void DataReductionTarget::AllocationImpl(std::uint64_t offset, std::uint64_t length,
                                         std::size_t max_extents, AllocationMap& out) const {
  const std::uint64_t first = offset / kBlock;
  const std::uint64_t end = (offset + length + kBlock - 1) / kBlock;
  for (std::uint64_t b = first; b < end && out.size() <= max_extents; ++b) {
    const std::uint64_t from = std::max(offset, b * kBlock);
    const std::uint64_t to = std::min(offset + length, (b + 1) * kBlock);
    AppendExtent(out, to - from, map_.Lookup(b) == ReductionMap::kNone);
  }
}

}  // namespace tierlab
