// libFuzzer target for compressed traces: the input's trace is compressed
// here, with zlib, libzstd or liblzma, optionally cut short, and read
// through OpenTrace. A whole stream must read exactly as the uncompressed
// trace does (the same records, skipped and reordered counts, and the same
// end or error); a stream cut inside its last member, frame or stream must
// read a prefix of those records and end in an error, the decompressor's
// ("fuzz: gzip: ...") or the one the uncompressed trace ends in.
//
// The first byte: low 4 bits the format (modulo 11: auto or one of the ten
// readers), bit 4 skip_bad, bits 5-6 the compression (gzip; gzip in two
// members; zstd in two frames; xz), bit 7 cut; the next two bytes where to
// cut (little-endian, modulo what can be cut); the rest is the trace. Readers
// use 97-byte buffers, so every decoder refill crosses records and lines.
// See fuzz/README.md.
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bench/trace/TraceCompression.h"
#include "bench/trace/TraceFactory.h"

namespace {

using tierlab::TraceFormat;

constexpr TraceFormat kFormats[] = {
    TraceFormat::kAuto,        TraceFormat::kFioIologV2, TraceFormat::kFioIologV3,
    TraceFormat::kBlkparse,    TraceFormat::kMsrCsv,     TraceFormat::kSpcCsv,
    TraceFormat::kSystor17Csv, TraceFormat::kVscsi,      TraceFormat::kTierlabBin,
    TraceFormat::kKeysU32,     TraceFormat::kKeysU64,
};

std::string Gzip(const std::string& in) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Zstd(const std::string& in) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 1);
  if (ZSTD_isError(n)) std::abort();
  out.resize(n);
  return out;
}

std::string Xz(const std::string& in) {
  std::string out(lzma_stream_buffer_bound(in.size()), '\0');
  std::size_t pos = 0;
  if (lzma_easy_buffer_encode(
          0, LZMA_CHECK_CRC32, nullptr, reinterpret_cast<const std::uint8_t*>(in.data()), in.size(),
          reinterpret_cast<std::uint8_t*>(out.data()), &pos, out.size()) != LZMA_OK) {
    std::abort();
  }
  out.resize(pos);
  return out;
}

struct Read {
  std::vector<tierlab::TraceRecord> records;
  std::string error;  // empty: a clean end (or the record cap)
  std::uint64_t bad = 0;
  std::uint64_t reordered = 0;
};

Read ReadTrace(const std::string& bytes, const tierlab::TraceOptions& options) {
  Read out;
  auto reader = tierlab::OpenTrace(std::make_unique<std::istringstream>(bytes), "fuzz", options);
  if (!reader.ok()) {
    out.error = reader.error().message;
    if (out.error.empty()) std::abort();
    return out;
  }
  tierlab::TraceRecord r;
  while (out.records.size() < 20000) {
    auto more = (*reader)->Next(&r);
    if (!more.ok()) {
      out.error = more.error().message;
      if (out.error.rfind("fuzz", 0) != 0 || out.error.find('\n') != std::string::npos) {
        std::abort();  // errors are one line naming the input
      }
      break;
    }
    if (!*more) break;
    out.records.push_back(r);
  }
  out.bad = (*reader)->bad_records();
  out.reordered = (*reader)->reordered_records();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  tierlab::TraceOptions options;
  options.format = kFormats[(data[0] & 0x0f) % std::size(kFormats)];
  options.skip_bad = (data[0] & 0x10) != 0;
  options.buffer_bytes = 97;
  options.decoder_memory_bytes = 16 << 20;
  const int codec = (data[0] >> 5) & 3;
  const bool cut = (data[0] & 0x80) != 0;
  const std::size_t where = data[1] | (std::size_t{data[2]} << 8);
  const std::string body(reinterpret_cast<const char*>(data + 3), size - 3);
  // A body that is itself compressed would be decompressed once more when
  // read plain: not comparable.
  if (tierlab::DetectTraceCompression(body) != tierlab::TraceCompression::kNone) return 0;

  // Two members or frames split the body in the middle.
  const std::string first = body.substr(0, body.size() / 2);
  const std::string second = body.substr(body.size() / 2);
  std::string packed;
  std::size_t first_part = 0;  // bytes of the first member or frame
  const char* name = "gzip";
  switch (codec) {
    case 0: packed = Gzip(body); break;
    case 1:
      packed = Gzip(first);
      first_part = packed.size();
      packed += Gzip(second);
      break;
    case 2:
      name = "zstd";
      packed = Zstd(first);
      first_part = packed.size();
      packed += Zstd(second);
      break;
    default:
      name = "xz";
      packed = Xz(body);
      break;
  }

  const Read plain = ReadTrace(body, options);
  if (!cut) {
    const Read got = ReadTrace(packed, options);
    if (got.records != plain.records || got.bad != plain.bad || got.reordered != plain.reordered) {
      std::abort();
    }
    // An empty body is "empty file" plain and "empty after <codec>
    // decompression" compressed; anything else is the same error.
    if (body.empty() ? got.error.empty() != plain.error.empty() : got.error != plain.error) {
      std::abort();
    }
    return 0;
  }
  // Cut inside the last member or frame, past the magic bytes: the data
  // ends where no complete stream does.
  const std::size_t from = std::max(first_part + 1, tierlab::kCompressionMagicBytes);
  if (packed.size() <= from) return 0;
  const std::size_t keep = from + where % (packed.size() - from);
  const Read got = ReadTrace(packed.substr(0, keep), options);
  if (got.records.size() > plain.records.size() ||
      !std::equal(got.records.begin(), got.records.end(), plain.records.begin())) {
    std::abort();
  }
  if (got.records.size() < 20000 && got.error.empty()) std::abort();  // a cut stream is an error
  const std::string codec_error = std::string("fuzz: ") + name + ": ";
  if (!got.error.empty() && got.error.rfind(codec_error, 0) != 0 && got.error != plain.error) {
    std::abort();
  }
  return 0;
}
