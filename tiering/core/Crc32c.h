#pragma once
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of
// iSCSI, ext4/btrfs metadata and dm-persistent-data. Table-driven,
// slice-by-8 (about 1-2 GB/s per core), or the SSE4.2 instruction where the
// CPU has it (several GB/s: data checksums on the write path). Pure function,
// thread-safe.

#include <cstddef>
#include <cstdint>

namespace tierlab {

// Extends `crc` (the value returned by a previous call, or 0 to start) over
// `len` bytes: Crc32c(Crc32c(0, a), b) == Crc32c(0, a ++ b).
std::uint32_t Crc32c(std::uint32_t crc, const void* data, std::size_t len);

}  // namespace tierlab
