#include "bench/trace/TraceInput.h"

#include <algorithm>
#include <exception>

namespace tierlab {
namespace {

constexpr std::size_t kHeadBytes = 4096;
constexpr std::size_t kMaxBuffer = 64 * 1024;

}  // namespace

TraceInput::TraceInput(std::unique_ptr<std::istream> source, std::string name)
    : std::istream(nullptr), name_(std::move(name)), source_(std::move(source)) {}

Expected<std::unique_ptr<TraceInput>> TraceInput::Open(std::unique_ptr<std::istream> source,
                                                       const std::string& name,
                                                       const TraceOptions& options) {
  const std::size_t buffer = std::clamp(options.buffer_bytes, kMinTraceBuffer, kMaxBuffer);
  const std::size_t peek_buffer = std::max(buffer, kHeadBytes);
  std::unique_ptr<TraceInput> in(new TraceInput(std::move(source), name));
  in->raw_ = std::make_unique<PeekStreambuf>(in->source_->rdbuf(), peek_buffer);
  in->top_ = in->raw_.get();
  in->rdbuf(in->top_);
  std::string_view magic;
  try {
    magic = in->raw_->Peek(kCompressionMagicBytes);
  } catch (const std::exception&) {
    return in->Failure();
  }
  in->compression_ = DetectTraceCompression(magic);
  if (in->compression_ != TraceCompression::kNone) {
    in->decoder_ = MakeDecompressingStreambuf(in->compression_, in->raw_.get(), buffer,
                                              options.decoder_memory_bytes);
    in->decoded_ = std::make_unique<PeekStreambuf>(in->decoder_.get(), peek_buffer);
    in->top_ = in->decoded_.get();
    in->rdbuf(in->top_);
  }
  return in;
}

Expected<std::string_view> TraceInput::Head(std::size_t n) {
  try {
    return top_->Peek(std::min(n, kHeadBytes));
  } catch (const std::exception&) {
    setstate(std::ios_base::badbit);
    return Failure();
  }
}

Error TraceInput::Failure() const {
  if (decoder_ && !decoder_->error().empty()) {
    return MakeError(name_ + ": " + decoder_->error(), ErrorKind::kInput);
  }
  return MakeError(name_ + ": read error", ErrorKind::kIo);
}

}  // namespace tierlab
