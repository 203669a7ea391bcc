#pragma once
// The bookkeeping of a data-reducing volume (DataReductionTarget), as a pure
// data structure: no I/O, no clock, so it is tested on its own.
//
//   logical map      volume block -> stored block (0: never written, or
//                    zeros: reads return zeros and nothing is stored)
//   stored blocks    where each distinct content lives on the physical
//                    device and how many volume blocks share it (refs)
//   fingerprint idx  fingerprint -> stored block, dedup's hints
//   physical blocks  4 KiB blocks of the physical device, each free, one raw
//                    block, or a pack of compressed fragments
//
// Packing: a compressed block takes whole sectors (the physical device's
// logical block, 512 bytes on the models) of the open pack block, which is
// filled front to back and replaced by a fresh one when the next fragment
// does not fit, as VDO's packer fills a block with fragments. A physical
// block is free again when its last fragment dies; a pack keeps its dead
// fragments' sectors until then, so space freed by overwrites of compressed
// data comes back a whole block at a time (reported as packing slack).
//
// Lifetime of a stored block: Allocate (pending: its write is in flight, so
// it is not freed though nothing refers to it) -> Map (refs) or Abandon.
// Pins are reads and verification reads in flight: a block whose last
// reference goes while it is pinned keeps its sectors until the pin goes,
// so a racing read never sees them rewritten with other data.

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tierlab {

struct ReductionMapStats {
  std::uint64_t logical_blocks_mapped = 0;  // volume blocks holding data (not zeros)
  std::uint64_t stored_blocks = 0;          // distinct contents stored
  std::uint64_t compressed_blocks = 0;      // of which compressed
  std::uint64_t physical_blocks_used = 0;   // 4 KiB physical blocks not free
  std::uint64_t live_sectors = 0;           // sectors of stored blocks
  std::uint64_t index_entries = 0;
  std::uint64_t metadata_bytes = 0;  // map + stored blocks + index + block table, in RAM
};

class ReductionMap {
 public:
  static constexpr std::uint32_t kBlock = 4096;
  static constexpr std::uint32_t kNone = 0;

  // `sector_bytes` divides 4096 (the physical device's logical block).
  ReductionMap(std::uint64_t logical_blocks, std::uint64_t physical_blocks,
               std::uint32_t sector_bytes);

  std::uint32_t sectors_per_block() const { return per_block_; }
  std::uint32_t sector_bytes() const { return sector_; }
  std::uint64_t logical_blocks() const { return map_.size(); }
  std::uint64_t physical_blocks() const { return pbn_use_.size(); }
  // The pack block fragments are being added to, or ~0 if none is open.
  std::uint64_t open_pack() const { return pack_; }

  // The stored block volume block `lba` maps to, or kNone.
  std::uint32_t Lookup(std::uint64_t lba) const { return map_[lba]; }

  struct Location {
    std::uint64_t offset;      // bytes on the physical device
    std::uint32_t length;      // bytes: whole sectors
    std::uint16_t compressed;  // bytes of compressed data at offset; 0: raw 4 KiB
  };
  Location Where(std::uint32_t id) const;
  std::uint64_t FingerprintOf(std::uint32_t id) const { return blocks_[id].fingerprint; }
  // Still referred to by a volume block (a dead one must not be shared).
  bool Live(std::uint32_t id) const { return blocks_[id].refs > 0; }

  // Room for one block: raw (compressed_bytes 0) or a fragment of
  // `compressed_bytes`. kNone if the physical device is full.
  std::uint32_t Allocate(std::uint16_t compressed_bytes, std::uint64_t fingerprint);
  // A pending block whose write lost the race to a newer write, or failed.
  void Abandon(std::uint32_t id);
  // Points `lba` at `id` (kNone: zeros) and lets go of what it pointed at.
  // `id` may be pending (it stops being) or live (dedup: one more sharer).
  void Map(std::uint64_t lba, std::uint32_t id);

  void Pin(std::uint32_t id) { ++blocks_[id].pins; }
  void Unpin(std::uint32_t id);

  // Dedup: the stored block whose fingerprint is `fp`, or kNone.
  std::uint32_t Find(std::uint64_t fp) const;
  // Makes `id` the hint for its fingerprint unless another live one is.
  void Index(std::uint32_t id);

  ReductionMapStats Stats() const;

 private:
  struct StoredBlock {
    std::uint64_t pbn = 0;
    std::uint64_t fingerprint = 0;
    std::uint32_t refs = 0;
    std::uint32_t pins = 0;
    std::uint16_t compressed = 0;
    std::uint8_t first_sector = 0;
    std::uint8_t sectors = 0;
    bool pending = false;
    bool indexed = false;
  };
  std::uint64_t AllocatePhysical();
  void ReleasePhysical(std::uint64_t pbn);
  void MaybeFree(std::uint32_t id);

  std::uint32_t sector_;
  std::uint32_t per_block_;
  std::vector<std::uint32_t> map_;
  std::vector<StoredBlock> blocks_;  // [0] unused: kNone
  std::vector<std::uint32_t> free_ids_;
  // Per physical block: fragments (or 1 for raw) living in it, plus one
  // while it is the open pack; 0 = free.
  std::vector<std::uint8_t> pbn_use_;
  std::uint64_t next_pbn_ = 0;  // next-fit cursor
  std::uint64_t used_pbns_ = 0;
  static constexpr std::uint64_t kNoPack = ~std::uint64_t{0};
  std::uint64_t pack_ = kNoPack;  // the open pack block
  std::uint32_t pack_next_ = 0;   // its first free sector
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::uint64_t mapped_ = 0;
  std::uint64_t stored_ = 0;
  std::uint64_t compressed_ = 0;
  std::uint64_t live_sectors_ = 0;
};

}  // namespace tierlab
