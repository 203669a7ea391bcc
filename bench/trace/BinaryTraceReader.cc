#include "bench/trace/BinaryTraceReader.h"

#include <algorithm>

namespace tierlab {

BinaryTraceReader::BinaryTraceReader(std::unique_ptr<std::istream> in, std::string name,
                                     const TraceOptions& options)
    : TraceReader(std::move(name), options),
      in_(std::move(in)),
      buf_(std::max(options.buffer_bytes, kMinTraceBuffer)) {}

bool BinaryTraceReader::Refill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  in_->read(reinterpret_cast<char*>(buf_.data() + end_),
            static_cast<std::streamsize>(buf_.size() - end_));
  std::streamsize got = in_->gcount();
  if (got <= 0 || !*in_) eof_ = true;
  end_ += static_cast<std::size_t>(got > 0 ? got : 0);
  return got > 0;
}

bool BinaryTraceReader::ReadExact(void* out, std::size_t n) {
  if (buf_.size() < n) buf_.resize(n);  // a header larger than a small buffer
  while (end_ - begin_ < n) {
    if (!Refill()) return false;
  }
  std::memcpy(out, buf_.data() + begin_, n);
  begin_ += n;
  header_bytes_ += n;
  return true;
}

std::size_t BinaryTraceReader::Peek(const unsigned char** p, std::size_t n) {
  if (buf_.size() < n) buf_.resize(n);
  while (end_ - begin_ < n && Refill()) {
  }
  *p = buf_.data() + begin_;
  return std::min(n, end_ - begin_);
}

void BinaryTraceReader::Start(std::size_t record_size,
                              std::optional<std::uint64_t> expected_records, PartialTail tail) {
  record_size_ = record_size;
  if (buf_.size() < record_size) buf_.resize(record_size);
  expected_records_ = expected_records;
  tail_ = tail;
}

void BinaryTraceReader::Fail(std::string why, std::optional<std::uint64_t> record) {
  if (failed_) return;
  if (!record && in_->bad()) {
    // A header seen short because the stream failed (damaged compressed
    // data): that is the error, not the header's shape.
    failed_ = ReadError(*in_);
    return;
  }
  failed_ =
      MakeError(name_ + ": " + (record ? "record " + std::to_string(*record) + ": " : "") + why);
}

Expected<bool> BinaryTraceReader::Next(TraceRecord* record) {
  if (failed_) return *failed_;
  for (;;) {
    if (end_ - begin_ < record_size_) {
      Refill();
      while (end_ - begin_ < record_size_ && Refill()) {
      }
      if (end_ - begin_ < record_size_) {
        if (in_->bad()) {
          failed_ = ReadError(*in_);
          return *failed_;
        }
        if (end_ != begin_) {
          if (tail_ == PartialTail::kBadRecord && options_.skip_bad) {
            ++bad_records_;
            ++index_;
            begin_ = end_;
            return false;
          }
          Fail("truncated at byte " + std::to_string(header_bytes_ + index_ * record_size_) + ": " +
                   std::to_string(end_ - begin_) + " of " + std::to_string(record_size_) + " bytes",
               index_);
          return *failed_;
        }
        if (expected_records_ && *expected_records_ != index_) {
          Fail("truncated: the header promises " + std::to_string(*expected_records_) +
               " records, the file holds " + std::to_string(index_));
          return *failed_;
        }
        return false;
      }
    }
    if (expected_records_ && index_ >= *expected_records_) {
      Fail("trailing data after the " + std::to_string(*expected_records_) +
           " records the header promises");
      return *failed_;
    }
    const unsigned char* p = buf_.data() + begin_;
    begin_ += record_size_;
    std::uint64_t index = index_++;
    switch (Decode(p, record)) {
      case RecordResult::kRecord: ++records_; return true;
      case RecordResult::kSkip: continue;
      case RecordResult::kBad:
        if (options_.skip_bad) {
          ++bad_records_;
          continue;
        }
        Fail(error_, index);
        return *failed_;
    }
  }
}

}  // namespace tierlab
