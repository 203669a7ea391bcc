#include "bench/trace/TraceWriter.h"

#include <charconv>
#include <fstream>
#include <iostream>
#include <vector>

#include "bench/trace/TierlabBinaryFormat.h"

namespace tierlab {

namespace {

// Buffers output in a byte vector and hands it to the stream in large writes.
class BufferedTraceWriter : public TraceWriter {
 public:
  BufferedTraceWriter(std::unique_ptr<std::ostream> out, std::string name)
      : out_(std::move(out)), name_(std::move(name)) {
    buf_.reserve(kFlushAt + 256);
  }

  Expected<void> Write(const TraceRecord& record) final {
    if (closed_) return MakeError(name_ + ": write after close");
    if (record.timestamp < 0) return RecordError("negative timestamp");
    if (auto r = Encode(record); !r.ok()) return r;
    ++records_;
    if (buf_.size() >= kFlushAt) return Flush();
    return {};
  }

  Expected<void> Close() final {
    if (closed_) return {};
    closed_ = true;
    if (auto r = Finish(); !r.ok()) return r;
    if (auto r = Flush(); !r.ok()) return r;
    if (auto r = Patch(); !r.ok()) return r;
    out_->flush();
    if (!*out_) return MakeError(name_ + ": write error", ErrorKind::kIo);
    return {};
  }

 protected:
  static constexpr std::size_t kFlushAt = 1 << 20;

  virtual Expected<void> Encode(const TraceRecord& record) = 0;
  virtual Expected<void> Finish() { return {}; }
  virtual Expected<void> Patch() { return {}; }

  Error RecordError(const std::string& why) const {
    return MakeError(name_ + ": record " + std::to_string(records_) + ": " + why);
  }
  Expected<void> Flush() {
    out_->write(reinterpret_cast<const char*>(buf_.data()),
                static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
    if (!*out_) return MakeError(name_ + ": write error", ErrorKind::kIo);
    return {};
  }
  void Append(std::string_view s) { buf_.insert(buf_.end(), s.begin(), s.end()); }
  void AppendU64(std::uint64_t v) {
    char tmp[24];
    auto [p, ec] = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.insert(buf_.end(), tmp, p);
  }

  std::unique_ptr<std::ostream> out_;
  std::string name_;
  std::vector<char> buf_;
  bool closed_ = false;
};

class TierlabBinaryWriter final : public BufferedTraceWriter {
 public:
  TierlabBinaryWriter(std::unique_ptr<std::ostream> out, std::string name)
      : BufferedTraceWriter(std::move(out), std::move(name)) {
    unsigned char h[tierlab_bin::kHeaderSize];
    tierlab_bin::EncodeHeader(h, tierlab_bin::kUnknownCount);
    buf_.insert(buf_.end(), h, h + sizeof h);
  }

 private:
  Expected<void> Encode(const TraceRecord& record) override {
    std::size_t at = buf_.size();
    buf_.resize(at + tierlab_bin::kRecordSize);
    tierlab_bin::EncodeRecord(reinterpret_cast<unsigned char*>(buf_.data() + at), record);
    return {};
  }
  // Fills in the record count when the output can seek; otherwise readers
  // accept kUnknownCount and read to the end.
  Expected<void> Patch() override {
    std::streampos end = out_->tellp();
    if (end == std::streampos(-1)) return {};
    out_->seekp(16);
    if (!*out_) {
      out_->clear();
      return {};
    }
    unsigned char count[8];
    StoreLe64(count, records_);
    out_->write(reinterpret_cast<const char*>(count), 8);
    out_->seekp(end);
    if (!*out_) return MakeError(name_ + ": write error", ErrorKind::kIo);
    return {};
  }
};

class FioIologV3Writer final : public BufferedTraceWriter {
 public:
  FioIologV3Writer(std::unique_ptr<std::ostream> out, std::string name)
      : BufferedTraceWriter(std::move(out), std::move(name)) {
    Append("fio version 3 iolog\n0 trace add\n0 trace open\n");
  }

 private:
  Expected<void> Encode(const TraceRecord& r) override {
    last_us_ = static_cast<std::uint64_t>(r.timestamp / kMicro);
    AppendU64(last_us_);
    switch (r.op) {
      case IoOp::kRead: Append(" trace read "); break;
      case IoOp::kWrite: Append(" trace write "); break;
      case IoOp::kDiscard: Append(" trace trim "); break;
      case IoOp::kFlush: Append(" trace sync 0 0\n"); return {};
    }
    AppendU64(r.offset);
    Append(" ");
    AppendU64(r.length);
    Append("\n");
    return {};
  }
  Expected<void> Finish() override {
    AppendU64(last_us_);
    Append(" trace close\n");
    return {};
  }
  std::uint64_t last_us_ = 0;
};

class MsrCsvWriter final : public BufferedTraceWriter {
 public:
  using BufferedTraceWriter::BufferedTraceWriter;

 private:
  Expected<void> Encode(const TraceRecord& r) override {
    if (r.op != IoOp::kRead && r.op != IoOp::kWrite) {
      return RecordError(std::string("MSR CSV cannot hold a ") + ToString(r.op));
    }
    AppendU64(static_cast<std::uint64_t>(r.timestamp / 100));
    Append(",tierlab,");
    AppendU64(r.offset / kTraceDeviceStride);
    Append(r.op == IoOp::kRead ? ",Read," : ",Write,");
    AppendU64(r.offset % kTraceDeviceStride);
    Append(",");
    AppendU64(r.length);
    Append(",0\n");
    return {};
  }
};

}  // namespace

bool CanWriteTraceFormat(TraceFormat format) {
  return format == TraceFormat::kTierlabBin || format == TraceFormat::kFioIologV3 ||
         format == TraceFormat::kMsrCsv;
}

Expected<std::unique_ptr<TraceWriter>> CreateTraceWriter(std::unique_ptr<std::ostream> out,
                                                         std::string name, TraceFormat format) {
  switch (format) {
    case TraceFormat::kTierlabBin:
      return std::unique_ptr<TraceWriter>(new TierlabBinaryWriter(std::move(out), std::move(name)));
    case TraceFormat::kFioIologV3:
      return std::unique_ptr<TraceWriter>(new FioIologV3Writer(std::move(out), std::move(name)));
    case TraceFormat::kMsrCsv:
      return std::unique_ptr<TraceWriter>(new MsrCsvWriter(std::move(out), std::move(name)));
    default:
      return MakeError(name + ": cannot write format '" + ToString(format) +
                       "' (valid: tierlab, fio-v3, msr)");
  }
}

Expected<std::unique_ptr<TraceWriter>> CreateTraceWriter(const std::string& path,
                                                         TraceFormat format) {
  if (!CanWriteTraceFormat(format)) return CreateTraceWriter(nullptr, path, format);
  if (path == "-") {
    // Standard output, as fio and the Unix tools read "-": a stream on
    // std::cout's buffer, which outlives the writer and is not closed by it.
    return CreateTraceWriter(std::make_unique<std::ostream>(std::cout.rdbuf()), "standard output",
                             format);
  }
  auto out = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
  if (!*out) return MakeError(path + ": cannot create file", ErrorKind::kIo);
  return CreateTraceWriter(std::move(out), path, format);
}

}  // namespace tierlab
