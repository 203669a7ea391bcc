#pragma once
// The one way tierlab reads JSON that a user gives it: layouts, profiles,
// matrices, trace profiles and the results files of report, merge and diff
// all come through ReadJsonFile or ParseJsonText.
//
// On top of JSON (with // and /* */ comments allowed, as before):
//   - nesting is bounded (kMaxJsonDepth): a document 100,000 levels deep is
//     an error, not a stack overflow in whatever later copies, compares or
//     prints the value recursively (nlohmann::json does all three);
//   - a key given twice in one object is an error naming the field and both
//     values ("x.json: cache.tier: duplicate key: first "cache", then "hdd"")
//     where nlohmann would keep the last silently;
//   - NUL bytes are reported as binary data, with the line, rather than as a
//     syntax error about an invalid literal;
//   - a directory, or a file that cannot be read, is an error naming it.
// Errors are one line that starts with the source name; exit code 2 for bad
// input, 3 for a read error.
//
// DescribeJson is how an error message shows an offending value: short
// scalars as written, anything else by its type and at most a short prefix,
// so a message never dumps a whole (possibly huge) value.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tiering/core/Expected.h"

namespace tierlab {

// Deepest nesting accepted (objects and arrays). tierlab's own documents
// nest at most 7 levels (a results file's cells[i].jobs[0].read.lat_ns.
// percentile); 64 leaves room for user "description" objects while keeping
// nlohmann's recursive copy, compare and dump of any accepted value a few
// kilobytes of stack.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Parses `text`; `source` (a file name) starts every error message.
Expected<nlohmann::json> ParseJsonText(std::string_view text, std::string_view source);

// Reads and parses a file; errors name `path`.
Expected<nlohmann::json> ReadJsonFile(std::string_view path);

// Reads a whole text file for a parser: errors name the file ("is a
// directory", "cannot open", "read error" with exit code 3).
Expected<std::string> ReadTextFile(std::string_view path);

// The first byte of `text` that no text file holds (NUL, or a control
// character other than tab, line feed, vertical tab, form feed, carriage
// return) as "source:LINE: binary data (byte 0x00 at column C); <what> is
// text", or nothing. Bytes >= 0x80 (UTF-8) are text.
Expected<void> CheckTextBytes(std::string_view text, std::string_view source,
                              std::string_view what);

// A value for an error message: `5`, `true`, `"4k"`; longer strings,
// objects and arrays as their type and a prefix of at most `max_chars`:
// `an object {"tier": "cache", "read": ...}`, `a string of 5000 chars "aaaa..."`.
std::string DescribeJson(const nlohmann::json& v, std::size_t max_chars = 48);

}  // namespace tierlab
