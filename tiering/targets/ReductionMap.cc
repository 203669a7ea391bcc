#include "tiering/targets/ReductionMap.h"

namespace tierlab {

ReductionMap::ReductionMap(std::uint64_t logical_blocks, std::uint64_t physical_blocks,
                           std::uint32_t sector_bytes)
    : sector_(sector_bytes),
      per_block_(kBlock / sector_bytes),
      map_(logical_blocks, kNone),
      blocks_(1),
      pbn_use_(physical_blocks, 0) {}

ReductionMap::Location ReductionMap::Where(std::uint32_t id) const {
  const StoredBlock& b = blocks_[id];
  return {b.pbn * kBlock + std::uint64_t{b.first_sector} * sector_,
          std::uint32_t{b.sectors} * sector_, b.compressed};
}

std::uint64_t ReductionMap::AllocatePhysical() {
  const std::uint64_t n = pbn_use_.size();
  if (used_pbns_ == n) return kNoPack;
  // Next fit: writes of a filling volume go to ascending blocks, as a
  // sequential allocator's would.
  while (pbn_use_[next_pbn_] != 0) next_pbn_ = next_pbn_ + 1 == n ? 0 : next_pbn_ + 1;
  const std::uint64_t pbn = next_pbn_;
  next_pbn_ = next_pbn_ + 1 == n ? 0 : next_pbn_ + 1;
  ++used_pbns_;
  return pbn;
}

void ReductionMap::ReleasePhysical(std::uint64_t pbn) {
  if (--pbn_use_[pbn] == 0) --used_pbns_;
}

std::uint32_t ReductionMap::Allocate(std::uint16_t compressed_bytes, std::uint64_t fingerprint) {
  StoredBlock b;
  b.fingerprint = fingerprint;
  b.pending = true;
  b.compressed = compressed_bytes;
  if (compressed_bytes == 0) {
    b.pbn = AllocatePhysical();
    if (b.pbn == kNoPack) return kNone;
    pbn_use_[b.pbn] = 1;
    b.sectors = static_cast<std::uint8_t>(per_block_);
  } else {
    const std::uint32_t need = (compressed_bytes + sector_ - 1) / sector_;
    if (pack_ == kNoPack || pack_next_ + need > per_block_) {
      const std::uint64_t fresh = AllocatePhysical();
      if (fresh == kNoPack) return kNone;
      if (pack_ != kNoPack) ReleasePhysical(pack_);  // the open pack's own hold
      pack_ = fresh;
      pack_next_ = 0;
      pbn_use_[pack_] = 1;
    }
    b.pbn = pack_;
    b.first_sector = static_cast<std::uint8_t>(pack_next_);
    b.sectors = static_cast<std::uint8_t>(need);
    pack_next_ += need;
    ++pbn_use_[pack_];
    ++compressed_;
  }
  live_sectors_ += b.sectors;
  ++stored_;
  std::uint32_t id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
    blocks_[id] = b;
  } else {
    id = static_cast<std::uint32_t>(blocks_.size());
    blocks_.push_back(b);
  }
  return id;
}

void ReductionMap::MaybeFree(std::uint32_t id) {
  StoredBlock& b = blocks_[id];
  if (b.refs != 0 || b.pins != 0 || b.pending) return;
  if (b.indexed) {
    auto it = index_.find(b.fingerprint);
    if (it != index_.end() && it->second == id) index_.erase(it);
  }
  ReleasePhysical(b.pbn);
  live_sectors_ -= b.sectors;
  --stored_;
  if (b.compressed != 0) --compressed_;
  b = StoredBlock{};
  free_ids_.push_back(id);
}

void ReductionMap::Abandon(std::uint32_t id) {
  blocks_[id].pending = false;
  MaybeFree(id);
}

void ReductionMap::Map(std::uint64_t lba, std::uint32_t id) {
  const std::uint32_t old = map_[lba];
  if (old == id) {
    if (id != kNone) blocks_[id].pending = false;
    return;
  }
  if (id != kNone) {
    blocks_[id].pending = false;
    ++blocks_[id].refs;
  }
  map_[lba] = id;
  mapped_ += (id != kNone ? 1 : 0);
  if (old != kNone) {
    --mapped_;
    --blocks_[old].refs;
    MaybeFree(old);
  }
}

void ReductionMap::Unpin(std::uint32_t id) {
  --blocks_[id].pins;
  MaybeFree(id);
}

std::uint32_t ReductionMap::Find(std::uint64_t fp) const {
  auto it = index_.find(fp);
  return it == index_.end() ? kNone : it->second;
}

void ReductionMap::Index(std::uint32_t id) {
  StoredBlock& b = blocks_[id];
  if (b.indexed || b.refs == 0) return;
  auto [it, inserted] = index_.try_emplace(b.fingerprint, id);
  if (!inserted) {
    StoredBlock& holder = blocks_[it->second];
    // Another block with this fingerprint: a hash collision between
    // different contents (the verification said so), or a copy stored while
    // the first was still being written. A live older hint stays; a dead
    // one (kept only by a read in flight) gives way.
    if (holder.refs != 0) return;
    holder.indexed = false;
    it->second = id;
  }
  b.indexed = true;
}

ReductionMapStats ReductionMap::Stats() const {
  ReductionMapStats s;
  s.logical_blocks_mapped = mapped_;
  s.stored_blocks = stored_;
  s.compressed_blocks = compressed_;
  s.physical_blocks_used = used_pbns_;
  s.live_sectors = live_sectors_;
  s.index_entries = index_.size();
  // The map and block table as allocated; the index as a node-based hash
  // table holds it: a bucket pointer per bucket, a node of key, value and
  // next pointer (rounded to 32 bytes by the allocator) per entry.
  s.metadata_bytes = map_.capacity() * sizeof(std::uint32_t) +
                     blocks_.capacity() * sizeof(StoredBlock) + pbn_use_.capacity() +
                     index_.bucket_count() * sizeof(void*) + index_.size() * 32;
  return s;
}

}  // namespace tierlab
