#include "bench/trace/DecompressingStreambuf.h"

#include <ios>

namespace tierlab {

DecompressingStreambuf::DecompressingStreambuf(std::streambuf* source, const char* codec,
                                               std::size_t buffer_bytes)
    : InputStreambuf(buffer_bytes),
      source_(source),
      codec_(codec),
      in_(new unsigned char[buffer_bytes]) {}

bool DecompressingStreambuf::FillInput() {
  if (in_avail_ > 0) return true;
  const std::streamsize got = source_->sgetn(reinterpret_cast<char*>(in_.get()),
                                             static_cast<std::streamsize>(buffer_size()));
  in_next_ = in_.get();
  in_avail_ = got > 0 ? static_cast<std::size_t>(got) : 0;
  return in_avail_ > 0;
}

void DecompressingStreambuf::Fail(const std::string& why) {
  error_ = std::string(codec_) + ": " + why;
  throw std::ios_base::failure(error_);
}

std::string DecompressingStreambuf::MemoryText(std::uint64_t bytes) {
  if (bytes < (std::uint64_t{1} << 20)) return std::to_string((bytes + 1023) >> 10) + " KiB";
  return std::to_string((bytes + (std::uint64_t{1} << 20) - 1) >> 20) + " MiB";
}

std::size_t DecompressingStreambuf::Fill(char* out, std::size_t n) {
  if (!error_.empty()) throw std::ios_base::failure(error_);
  return Decode(out, n);
}

}  // namespace tierlab
