#pragma once
// fio's number syntax for sizes and times, shared by the JSON and job-file
// parsers.
//
// Sizes: a non-negative integer (decimal or 0x hex) with an optional,
// case-insensitive suffix k/m/g/t/p, optionally followed by "b", "i" or
// "ib". Like fio, the meaning depends on kb_base:
//   kb_base=1024 (fio's default, "compatibility mode"): k, kb, ki = 1024;
//                kib = 1000 (sic: fio keeps old scripts' meaning).
//   kb_base=1000: k, kb, ki = 1000; kib = 1024 (SI/IEC).
// Times: a non-negative integer with an optional suffix us/usec, ms/msec,
// s, m, h, d, fio's own (any other is refused: fio would read it as
// microseconds); a bare number is in `default_unit` (seconds for
// runtime/ramp_time, microseconds for thinktime, as in fio).
//
// Errors carry only the reason ("expected ..., got 'x'"); callers prefix the
// file and field.

#include <cstdint>
#include <string>
#include <string_view>

#include "tiering/core/Expected.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

Expected<std::uint64_t> ParseFioSize(std::string_view text, int kb_base = 1024);
Expected<Nanos> ParseFioTime(std::string_view text, Nanos default_unit);
// Plain non-negative integer (no suffix) and a finite double.
Expected<std::uint64_t> ParseUnsigned(std::string_view text);
Expected<double> ParseDouble(std::string_view text);

// Canonical forms that ParseFioSize/ParseFioTime (kb_base 1024) read back to
// the same value: "4k", "1m", "1000"; "30s", "1500ms", "250us" (a time
// that is no whole number of microseconds, which no parsed one is, is
// rounded to the nearest: fio's resolution).
std::string FormatFioSize(std::uint64_t bytes);
std::string FormatFioTime(Nanos t);
// Shortest text that reads back to the same double ("0.8", "1.2").
std::string FormatDouble(double v);

std::string_view Trim(std::string_view s);

}  // namespace tierlab
