#pragma once
// Opening a trace: its source (a file, or standard input for "-"), its
// compression (gzip, zstd, xz: decompressed on the way, TraceInput.h), format
// detection from the decompressed content, and the reader factory.

#include <istream>
#include <memory>
#include <string>
#include <string_view>

#include "bench/trace/TraceReader.h"

namespace tierlab {

// Detects the format from the first bytes of a trace (up to 4 KiB are
// looked at): tierlab magic, fio iolog headers, vscsi version fields,
// the SYSTOR'17 header, MSR / SPC CSV field shapes, blkparse event lines.
// `name` is used in the error message when nothing matches.
Expected<TraceFormat> DetectTraceFormat(std::string_view head, const std::string& name);

// The trace path that means standard input.
inline constexpr std::string_view kStdinTracePath = "-";
// How standard input is named in errors and reports.
inline constexpr std::string_view kStdinTraceName = "stdin";

// True for "-".
bool IsStdinTrace(std::string_view path);
// The name of `path` in errors: the path, or "stdin" for "-".
std::string TraceInputName(const std::string& path);

// Standard input is read once, as it comes. A command that reads its trace
// more than once (the write-cache analyzer, a matrix) refuses "-" with this
// one-line error: "stdin: cannot read the trace from standard input here:
// <why>, and standard input can be read only once; save the trace to a file".
Error StdinReadOnceError(const std::string& why);

// Reads the head of the trace at `path` (decompressed) and detects its
// format. "-" consumes the head of standard input.
Expected<TraceFormat> DetectTraceFormat(const std::string& path);

// Opens `path` ("-": standard input, at most once per process) as
// options.format (detected when kAuto). Compressed traces are recognised by
// their magic bytes and decompressed. Errors (exit code 2, an unreadable
// input is an input error): the file cannot be opened, the format cannot be
// detected, the compressed head is damaged, an option is invalid. A wrong
// header surfaces as the error of the first Next().
Expected<std::unique_ptr<TraceReader>> OpenTrace(const std::string& path,
                                                 const TraceOptions& options = {});

// The same over any stream, e.g. a std::istringstream over fuzzer input;
// it need not be seekable (the head is buffered, not re-read). `name`
// replaces the path in errors.
Expected<std::unique_ptr<TraceReader>> OpenTrace(std::unique_ptr<std::istream> in, std::string name,
                                                 const TraceOptions& options);

}  // namespace tierlab
