#pragma once
// Splits a byte stream into lines in a fixed buffer: constant memory, no
// per-line allocation. Faster than std::getline for multi-million-line traces.

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string_view>
#include <vector>

namespace tierlab {

class LineReader {
 public:
  enum class Result { kLine, kEnd, kTooLong, kReadError };

  // Lines longer than max_line bytes are an error (a binary file read as text);
  // max_line is also the buffer size. The stream must outlive the reader.
  explicit LineReader(std::istream& in, std::size_t max_line = 1 << 20);

  // The next line without its "\n" or "\r\n", valid until the next call.
  // A last line without a newline is returned too.
  Result Next(std::string_view* line);

  // 1-based number of the line last returned.
  std::uint64_t line_number() const { return line_number_; }

 private:
  bool Fill();

  std::istream& in_;
  std::vector<char> buf_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::uint64_t line_number_ = 0;
};

}  // namespace tierlab
