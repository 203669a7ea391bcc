#pragma once
// Parses the byte counts that appear in policy specs: decimal digits with an
// optional binary suffix k, m, g or t (case-insensitive; 4k = 4096, 4m = 4 MiB).
// No sign, no spaces, no fractions. Returns nullopt for anything else,
// including overflow of 64 bits.

#include <cstdint>
#include <optional>
#include <string_view>

namespace tierlab {

std::optional<std::uint64_t> ParseByteSize(std::string_view text);

}  // namespace tierlab
