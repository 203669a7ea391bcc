#include "tiering/core/Crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace tierlab {
namespace {

using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[0][i] = c;
  }
  for (std::uint32_t i = 0; i < 256; ++i) {
    for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
  }
  return t;
}

constexpr Tables kTables = MakeTables();

std::uint32_t Crc32cTables(std::uint32_t crc, const void* data, std::size_t len);

#if defined(__x86_64__)
// SSE4.2's crc32 instruction computes exactly this polynomial, 8 bytes per
// instruction. One chain of them is bound by the instruction's 3-cycle
// latency, so long buffers run three independent chains over three stripes
// and combine them: the raw CRC register is linear, so
//   crc(c, A ++ B) = shift(crc(c, A), |B|) ^ crc(0, B)
// where shift(x, n) advances x over n zero bytes (a fixed 32x32 bit matrix,
// applied through four byte tables). About 3x one chain on a 4 KiB sector —
// data checksums are taken on the write and read paths (CacheJournal.h).
constexpr std::size_t kStripe = 1360;  // bytes per chain per round (3 x 1360 <= 4096)

__attribute__((target("sse4.2"))) std::uint64_t Chain(std::uint64_t c, const unsigned char* p,
                                                      std::size_t len) {
  for (; len >= 8; p += 8, len -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
  }
  return c;
}

struct ShiftTables {
  std::uint32_t t[4][256];
};

__attribute__((target("sse4.2"))) ShiftTables MakeShiftTables() {
  std::uint32_t basis[32];
  for (int i = 0; i < 32; ++i) {
    std::uint64_t c = std::uint64_t{1} << i;
    for (std::size_t n = 0; n < kStripe; n += 8) c = _mm_crc32_u64(c, 0);
    basis[i] = static_cast<std::uint32_t>(c);
  }
  ShiftTables s{};
  for (int k = 0; k < 4; ++k) {
    for (std::uint32_t b = 0; b < 256; ++b) {
      std::uint32_t v = 0;
      for (int j = 0; j < 8; ++j) {
        if ((b >> j) & 1) v ^= basis[8 * k + j];
      }
      s.t[k][b] = v;
    }
  }
  return s;
}

std::uint32_t Shift(const ShiftTables& s, std::uint32_t x) {
  return s.t[0][x & 0xFF] ^ s.t[1][(x >> 8) & 0xFF] ^ s.t[2][(x >> 16) & 0xFF] ^ s.t[3][x >> 24];
}

__attribute__((target("sse4.2"))) std::uint32_t Crc32cSse42(std::uint32_t crc, const void* data,
                                                            std::size_t len) {
  static const ShiftTables kShift = MakeShiftTables();
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t c = ~crc;
  while (len >= 3 * kStripe) {
    std::uint64_t c0 = c, c1 = 0, c2 = 0;
    const unsigned char* q = p;
    for (std::size_t i = 0; i < kStripe; i += 8, q += 8) {
      std::uint64_t w0, w1, w2;
      std::memcpy(&w0, q, 8);
      std::memcpy(&w1, q + kStripe, 8);
      std::memcpy(&w2, q + 2 * kStripe, 8);
      c0 = _mm_crc32_u64(c0, w0);
      c1 = _mm_crc32_u64(c1, w1);
      c2 = _mm_crc32_u64(c2, w2);
    }
    const std::uint32_t m =
        Shift(kShift, static_cast<std::uint32_t>(c0)) ^ static_cast<std::uint32_t>(c1);
    c = Shift(kShift, m) ^ static_cast<std::uint32_t>(c2);
    p += 3 * kStripe;
    len -= 3 * kStripe;
  }
  c = Chain(c, p, len);
  p += len / 8 * 8;
  len %= 8;
  auto c32 = static_cast<std::uint32_t>(c);
  while (len-- > 0) c32 = _mm_crc32_u8(c32, *p++);
  return ~c32;
}

const bool kHaveSse42 = __builtin_cpu_supports("sse4.2");
#endif

}  // namespace

std::uint32_t Crc32c(std::uint32_t crc, const void* data, std::size_t len) {
#if defined(__x86_64__)
  if (kHaveSse42) return Crc32cSse42(crc, data, len);
#endif
  return Crc32cTables(crc, data, len);
}

namespace {

std::uint32_t Crc32cTables(std::uint32_t crc, const void* data, std::size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
  while (len >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);  // little-endian hosts (x86-64, arm64)
    w ^= c;
    c = kTables[7][w & 0xFF] ^ kTables[6][(w >> 8) & 0xFF] ^ kTables[5][(w >> 16) & 0xFF] ^
        kTables[4][(w >> 24) & 0xFF] ^ kTables[3][(w >> 32) & 0xFF] ^ kTables[2][(w >> 40) & 0xFF] ^
        kTables[1][(w >> 48) & 0xFF] ^ kTables[0][w >> 56];
    p += 8;
    len -= 8;
  }
  while (len-- > 0) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFF];
  return ~c;
}

}  // namespace

}  // namespace tierlab
