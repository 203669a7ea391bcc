#include "bench/trace/TraceFactory.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "bench/trace/BlkparseReader.h"
#include "bench/trace/FioIologReader.h"
#include "bench/trace/KeyTraceReader.h"
#include "bench/trace/MsrCsvReader.h"
#include "bench/trace/SpcCsvReader.h"
#include "bench/trace/Systor17CsvReader.h"
#include "bench/trace/TextFields.h"
#include "bench/trace/TierlabBinaryFormat.h"
#include "bench/trace/TierlabBinaryReader.h"
#include "bench/trace/TraceInput.h"
#include "bench/trace/VscsiReader.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {

namespace tf = textfields;

namespace {

constexpr std::size_t kHeadBytes = 4096;

bool IsTextByte(unsigned char c) {
  return c >= 0x20 || c == '\n' || c == '\r' || c == '\t';
}

bool IsReadWrite(std::string_view s, bool single_letter) {
  if (single_letter) return s == "r" || s == "w" || s == "R" || s == "W";
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return lower == "read" || lower == "write";
}

}  // namespace

Expected<TraceFormat> DetectTraceFormat(std::string_view head, const std::string& name) {
  auto bytes = reinterpret_cast<const unsigned char*>(head.data());
  if (head.size() >= 8 && head.substr(0, 8) == std::string_view(tierlab_bin::kMagic, 8)) {
    return TraceFormat::kTierlabBin;
  }
  if (head.substr(0, 19) == "fio version 2 iolog") return TraceFormat::kFioIologV2;
  if (head.substr(0, 19) == "fio version 3 iolog") return TraceFormat::kFioIologV3;
  bool text = true;
  for (unsigned char c : head) {
    if (!IsTextByte(c)) {
      text = false;
      break;
    }
  }
  if (!text) {
    if (VscsiReader::DetectVersion(bytes, head.size()) != 0) return TraceFormat::kVscsi;
    return MakeError(name + ": binary data of unknown trace format (valid formats: " +
                     TraceFormatChoices() + "; key-only traces are never detected: name them)");
  }
  // Examine the first lines (the last one may be cut off by the 4 KiB head).
  std::size_t pos = 0;
  int lines = 0;
  while (pos < head.size() && lines < 20) {
    std::size_t nl = head.find('\n', pos);
    bool complete = nl != std::string_view::npos;
    std::string_view line = tf::Trim(head.substr(pos, complete ? nl - pos : head.size() - pos));
    pos = complete ? nl + 1 : head.size();
    ++lines;
    if (line.empty()) continue;
    if (lines == 1 && line == Systor17CsvReader::kHeader) return TraceFormat::kSystor17Csv;
    if (BlkparseReader::LooksLikeEvent(line)) return TraceFormat::kBlkparse;
    std::string_view f[7];
    std::size_t n = tf::SplitDelimited(line, ',', f, 7);
    std::uint64_t v = 0;
    if (n == 7 && tf::ParseU64(f[0], &v) && IsReadWrite(f[3], false)) return TraceFormat::kMsrCsv;
    if (n >= 5 && tf::ParseU64(f[0], &v) && tf::ParseU64(f[1], &v) && IsReadWrite(f[3], true)) {
      return TraceFormat::kSpcCsv;
    }
    if (lines == 1 && line.substr(0, 3) == "ASU") continue;  // SPC header
    if (!complete) break;
  }
  return MakeError(name + ": cannot detect the trace format; name it (valid formats: " +
                   TraceFormatChoices() + ")");
}

namespace {

// The source of `path`: the file, or standard input for "-", which one
// process reads at most once (a second reader would silently miss what the
// first consumed).
Expected<std::unique_ptr<std::istream>> OpenSource(const std::string& path) {
  if (IsStdinTrace(path)) {
    static std::atomic<bool> taken{false};
    if (taken.exchange(true)) {
      return StdinReadOnceError("this command opened the trace a second time");
    }
    return std::unique_ptr<std::istream>(std::make_unique<std::istream>(std::cin.rdbuf()));
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return MakeError(path + ": is a directory, not a trace file");
  }
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) return MakeError(path + ": cannot open");
  return std::unique_ptr<std::istream>(std::move(in));
}

}  // namespace

bool IsStdinTrace(std::string_view path) {
  return path == kStdinTracePath;
}

std::string TraceInputName(const std::string& path) {
  return IsStdinTrace(path) ? std::string(kStdinTraceName) : path;
}

Error StdinReadOnceError(const std::string& why) {
  return MakeError(std::string(kStdinTraceName) +
                   ": cannot read the trace from standard input here: " + why +
                   ", and standard input can be read only once; save the trace to a file");
}

Expected<TraceFormat> DetectTraceFormat(const std::string& path) {
  auto source = OpenSource(path);
  if (!source.ok()) return source.error();
  const std::string name = TraceInputName(path);
  auto input = TraceInput::Open(std::move(*source), name, {});
  if (!input.ok()) return input.error();
  auto head = (*input)->Head(kHeadBytes);
  if (!head.ok()) return head.error();
  if (head->empty()) return MakeError(name + ": empty file; cannot detect the trace format");
  return DetectTraceFormat(*head, name);
}

Expected<std::unique_ptr<TraceReader>> OpenTrace(std::unique_ptr<std::istream> source,
                                                 std::string name, const TraceOptions& options) {
  TraceOptions opts = options;
  if (opts.blkparse_action != 'Q' && opts.blkparse_action != 'D' && opts.blkparse_action != 'C') {
    return MakeError(name + ": blkparse action must be Q, D or C, got " +
                     QuotedText(std::string_view(&opts.blkparse_action, 1)));
  }
  if (opts.lba_unit == 0) return MakeError(name + ": lba_unit must be > 0");
  if (opts.object_size == 0) return MakeError(name + ": object_size must be > 0");
  if (opts.buffer_bytes < kMinTraceBuffer) {
    return MakeError(name + ": buffer_bytes must be >= " + std::to_string(kMinTraceBuffer));
  }
  auto input = TraceInput::Open(std::move(source), name, opts);
  if (!input.ok()) return input.error();
  // Read the head even when the format is named: damaged compressed data at
  // the start fails here, as it does with detection.
  auto head = (*input)->Head(kHeadBytes);
  if (!head.ok()) return head.error();
  if (opts.format == TraceFormat::kAuto) {
    if (head->empty()) {
      const TraceCompression c = (*input)->compression();
      return MakeError(name + ": empty " +
                       (c == TraceCompression::kNone
                            ? std::string("file")
                            : std::string("after ") + ToString(c) + " decompression") +
                       "; cannot detect the trace format");
    }
    auto detected = DetectTraceFormat(*head, name);
    if (!detected.ok()) return detected.error();
    opts.format = *detected;
  }
  std::unique_ptr<std::istream> in = std::move(*input);
  std::unique_ptr<TraceReader> reader;
  switch (opts.format) {
    case TraceFormat::kFioIologV2:
      reader = std::make_unique<FioIologReader>(std::move(in), std::move(name), opts, 2);
      break;
    case TraceFormat::kFioIologV3:
      reader = std::make_unique<FioIologReader>(std::move(in), std::move(name), opts, 3);
      break;
    case TraceFormat::kBlkparse:
      reader = std::make_unique<BlkparseReader>(std::move(in), std::move(name), opts);
      break;
    case TraceFormat::kMsrCsv:
      reader = std::make_unique<MsrCsvReader>(std::move(in), std::move(name), opts);
      break;
    case TraceFormat::kSpcCsv:
      reader = std::make_unique<SpcCsvReader>(std::move(in), std::move(name), opts);
      break;
    case TraceFormat::kSystor17Csv:
      reader = std::make_unique<Systor17CsvReader>(std::move(in), std::move(name), opts);
      break;
    case TraceFormat::kVscsi:
      reader = std::make_unique<VscsiReader>(std::move(in), std::move(name), opts);
      break;
    case TraceFormat::kTierlabBin:
      reader = std::make_unique<TierlabBinaryReader>(std::move(in), std::move(name), opts);
      break;
    case TraceFormat::kKeysU32:
      reader = std::make_unique<KeyTraceReader>(std::move(in), std::move(name), opts, 4);
      break;
    case TraceFormat::kKeysU64:
      reader = std::make_unique<KeyTraceReader>(std::move(in), std::move(name), opts, 8);
      break;
    case TraceFormat::kAuto: return MakeError(name + ": no trace format");
  }
  return reader;
}

Expected<std::unique_ptr<TraceReader>> OpenTrace(const std::string& path,
                                                 const TraceOptions& options) {
  auto source = OpenSource(path);
  if (!source.ok()) return source.error();
  return OpenTrace(std::move(*source), TraceInputName(path), options);
}

}  // namespace tierlab
