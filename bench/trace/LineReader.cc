#include "bench/trace/LineReader.h"

#include <cstring>

namespace tierlab {

LineReader::LineReader(std::istream& in, std::size_t max_line) : in_(in), buf_(max_line) {}

// Moves the unread tail to the front and reads more; false when nothing was added.
bool LineReader::Fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) return false;
  in_.read(buf_.data() + end_, static_cast<std::streamsize>(buf_.size() - end_));
  std::streamsize got = in_.gcount();
  if (got <= 0 || !in_) eof_ = true;
  end_ += static_cast<std::size_t>(got > 0 ? got : 0);
  return got > 0;
}

LineReader::Result LineReader::Next(std::string_view* line) {
  std::size_t scan = begin_;
  for (;;) {
    const char* start = buf_.data() + scan;
    const void* nl = std::memchr(start, '\n', end_ - scan);
    if (nl != nullptr) {
      std::size_t pos = static_cast<const char*>(nl) - buf_.data();
      std::size_t len = pos - begin_;
      if (len > 0 && buf_[pos - 1] == '\r') --len;
      *line = std::string_view(buf_.data() + begin_, len);
      begin_ = pos + 1;
      ++line_number_;
      return Result::kLine;
    }
    std::size_t scanned = end_ - begin_;
    if (!Fill()) {
      if (!eof_ && end_ - begin_ == buf_.size()) return Result::kTooLong;
      if (in_.bad()) return Result::kReadError;
      if (begin_ == end_) return Result::kEnd;
      std::size_t len = end_ - begin_;
      if (buf_[end_ - 1] == '\r') --len;
      *line = std::string_view(buf_.data() + begin_, len);
      begin_ = end_;
      ++line_number_;
      return Result::kLine;
    }
    scan = begin_ + scanned;  // Fill moved the data to the front
  }
}

}  // namespace tierlab
