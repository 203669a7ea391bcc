#pragma once
// Opening a trace: format detection from content and the reader factory.

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

// Reads the head of the file at `path` and detects its format.
Expected<TraceFormat> DetectTraceFormat(const std::string& path);

// Opens `path` as options.format (detected when kAuto). Errors (exit code 2,
// an unreadable input is an input error): the file cannot be opened, the
// format cannot be detected, an option is invalid. A wrong header surfaces
// as the error of the first Next().
Expected<std::unique_ptr<TraceReader>> OpenTrace(const std::string& path,
                                                 const TraceOptions& options = {});

// The same over any stream, e.g. a std::istringstream over fuzzer input;
// detection needs a seekable stream. `name` replaces the path in errors.
Expected<std::unique_ptr<TraceReader>> OpenTrace(std::unique_ptr<std::istream> in, std::string name,
                                                 const TraceOptions& options);

}  // namespace tierlab
